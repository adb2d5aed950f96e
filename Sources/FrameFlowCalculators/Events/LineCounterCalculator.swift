import FrameFlow

/// Counts tracked objects crossing the settings' lines, by direction (as supervision's
/// `LineZone`, with Frigate's bottom-centre anchor): an object's side of the line A→B is the
/// sign of (B − A) × (P − A) for its box's bottom centre P (positive: right of A→B as seen on
/// the image, y down). A crossing counts when the object settles on the other side for
/// `min_frames` matched detections in a row and its step across went between A and B (the
/// segment from its last point before to its first point after meets A→B); `in` is left to
/// right, `out` right to left. The first position only sets the side; a point exactly on the
/// line changes nothing; lost tracks are not moved.
///
/// With `IMAGE_SIZE` the tracks' boxes are taken as pixels and normalized lines are scaled to
/// the frame; without it, points are used as written.
///
/// Inputs:
///   - `TRACKS`: `[TrackedObject]`, the tracker's confirmed tracks.
///   - `IMAGE_SIZE`: `ImageSize` (optional), the frame's size; the latest holds until the next.
/// Outputs:
///   - `CROSSINGS`: `[LineCrossing]` (optional), this frame's crossings (often empty).
///   - `COUNTS`: `[LineCount]` (optional), every line's totals, emitted when one changes (and
///     once at the first packet, all 0).
/// Side packets: `EVENT_SETTINGS` (optional, text): replaces the options.
/// Options: `frameflow.EventSettings`: its `line`s (see `EventSettings.Line`).
///
/// Example usage:
/// ```
/// node {
///   calculator: "LineCounterCalculator"
///   input_stream: "TRACKS:tracks"
///   input_stream: "IMAGE_SIZE:size"
///   output_stream: "CROSSINGS:crossings"
///   output_stream: "COUNTS:line_counts"
///   options { [frameflow.EventSettings.ext] {
///     line { name: "gate" min_frames: 2 point { x: 0.5 y: 0 } point { x: 0.5 y: 1 } }
///   } }
/// }
/// ```
public final class LineCounterCalculator: Calculator {
    public typealias Options = EventSettings

    /// The tracks.
    public static let tracks = InputPort<[TrackedObject]>("TRACKS")
    /// The frame's size.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// This frame's crossings.
    public static let crossings = OutputPort<[LineCrossing]>("CROSSINGS", optional: true)
    /// Totals per line.
    public static let counts = OutputPort<[LineCount]>("COUNTS", optional: true)
    public static let contract = CalculatorContract(ports: [tracks, imageSize, crossings, counts, EventSettings.sidePacket])

    /// One track's standing against one line.
    private struct Standing {
        var side = 0  // the settled side: -1 left, 1 right, 0 not yet known
        var candidate = 0  // the other side it is on now, if any
        var run = 0  // detections in a row on `candidate`
        var stepCrossed = false  // the step onto `candidate` went between A and B
    }

    private struct TrackState {
        var last: (x: Double, y: Double)?
        var standing: [Standing]
    }

    private var settings: EventSettings
    private var size: ImageSize?
    private var states = TrackStates<TrackState>()
    private var totals: [LineCount] = []
    private var sentTotals: [LineCount]?

    public init(options: EventSettings) { settings = options }

    public func open(_ cc: CalculatorContext) throws {
        settings = try EventSettings.resolve(settings, cc)
        totals = settings.line.map { LineCount(line: $0.name) }
    }

    public func process(_ cc: CalculatorContext) throws {
        if let s = try cc.value(Self.imageSize) { size = s }
        guard let tracks = try cc.value(Self.tracks) else { return }
        let (w, h, scale) = EventSettings.scale(size)
        let ends: [(a: (x: Double, y: Double), b: (x: Double, y: Double))] = settings.line.map { l in
            let sx = scale && l.units == "normalized" ? w : 1, sy = scale && l.units == "normalized" ? h : 1
            return ((l.point[0].x * sx, l.point[0].y * sy), (l.point[1].x * sx, l.point[1].y * sy))
        }
        var found: [LineCrossing] = []
        _ = states.update(tracks, make: { _ in TrackState(standing: Array(repeating: Standing(), count: ends.count)) }) { t, fresh, s in
            if fresh {
                let p = t.box.bottomCenter
                let label = t.label ?? "object"
                for (i, line) in settings.line.enumerated() where line.label.isEmpty || line.label.contains(label) {
                    let (a, b) = ends[i]
                    let v = sideOfLine(ax: a.x, ay: a.y, bx: b.x, by: b.y, px: p.x, py: p.y)
                    let side = v > 0 ? 1 : (v < 0 ? -1 : 0)
                    var st = s.standing[i]
                    if side == 0 {
                        // On the line: no side yet.
                    } else if st.side == 0 {
                        st.side = side
                    } else if side == st.side {
                        st.candidate = 0
                        st.run = 0
                    } else {
                        if st.candidate != side {
                            st.candidate = side
                            st.run = 0
                            st.stepCrossed = s.last.map { segmentsIntersect($0, p, a, b) } ?? false
                        }
                        st.run += 1
                        if st.run >= line.minFrames {
                            if st.stepCrossed {
                                let inward = st.side < 0
                                found.append(LineCrossing(line: line.name, trackID: t.id, label: label, direction: inward ? "in" : "out"))
                                if inward {
                                    totals[i].inCount += 1
                                    totals[i].inByLabel[label, default: 0] += 1
                                } else {
                                    totals[i].outCount += 1
                                    totals[i].outByLabel[label, default: 0] += 1
                                }
                            }
                            st.side = side
                            st.candidate = 0
                            st.run = 0
                        }
                    }
                    s.standing[i] = st
                }
                s.last = p
            }
        }
        if cc.isConnected(Self.crossings) { try cc.emit(found, to: Self.crossings) }
        if cc.isConnected(Self.counts), sentTotals != totals {
            sentTotals = totals
            try cc.emit(totals, to: Self.counts)
        }
    }
}
