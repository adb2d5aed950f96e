import FrameFlow

/// Places each tracked object in the settings' zones (Frigate's zones): an object is at its
/// box's bottom centre, and is in a zone once that point has been inside the zone's polygon
/// (even-odd rule, `Polygon.contains`) in `inertia` of its detections in a row, and out again
/// once it has been outside in as many, so a box that jitters on an edge does not flap. Only
/// matched detections count (a lost track keeps its zones until it is seen again); a zone
/// with labels holds only objects with one of them.
///
/// With `IMAGE_SIZE` the tracks' boxes are taken as pixels and normalized zones are scaled to
/// the frame; without it, points are used as written (normalized zones then need relative boxes).
///
/// Inputs:
///   - `TRACKS`: `[TrackedObject]`, the tracker's confirmed tracks (`ObjectTrackerCalculator`).
///   - `IMAGE_SIZE`: `ImageSize` (optional), the frame's size; the latest holds until the next.
/// Outputs:
///   - `ZONES`: `[ZonePresence]`, per track (in input order): current and entered zones.
/// Side packets: `EVENT_SETTINGS` (optional, text): replaces the options.
/// Options: `frameflow.EventSettings`: its `zone`s (see `EventSettings.Zone`).
///
/// Example usage:
/// ```
/// node {
///   calculator: "ZoneCalculator"
///   input_stream: "TRACKS:tracks"
///   input_stream: "IMAGE_SIZE:size"
///   output_stream: "ZONES:zones"
///   options { [frameflow.EventSettings.ext] {
///     zone { name: "door" inertia: 3 point { x: 0 y: 0.5 } point { x: 0.5 y: 0.5 } point { x: 0.5 y: 1 } point { x: 0 y: 1 } }
///   } }
/// }
/// ```
public final class ZoneCalculator: Calculator {
    public typealias Options = EventSettings

    /// The tracks.
    public static let tracks = InputPort<[TrackedObject]>("TRACKS")
    /// The frame's size.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// Each track's zones.
    public static let zones = OutputPort<[ZonePresence]>("ZONES")
    public static let contract = CalculatorContract(ports: [tracks, imageSize, zones, EventSettings.sidePacket])

    /// One track's standing in one zone.
    private struct Standing {
        var isIn = false
        var run = 0  // detections in a row on the other side of `isIn`
    }

    private struct TrackState {
        var standing: [Standing]
        var entered: [String] = []
    }

    private var settings: EventSettings
    private var size: ImageSize?
    private var states = TrackStates<TrackState>()

    public init(options: EventSettings) { settings = options }

    public func open(_ cc: CalculatorContext) throws { settings = try EventSettings.resolve(settings, cc) }

    public func process(_ cc: CalculatorContext) throws {
        if let s = try cc.value(Self.imageSize) { size = s }
        guard let tracks = try cc.value(Self.tracks) else { return }
        let (w, h, scale) = EventSettings.scale(size)
        let polygons = settings.zone.map { Polygon($0.point, units: $0.units, width: w, height: h, scale: scale) }
        var out: [ZonePresence] = []
        _ = states.update(tracks, make: { _ in TrackState(standing: Array(repeating: Standing(), count: polygons.count)) }) { t, fresh, s in
            if fresh {
                let p = t.box.bottomCenter
                for (i, zone) in settings.zone.enumerated() {
                    let allowed = zone.label.isEmpty || zone.label.contains(t.label ?? "")
                    let inside = allowed && polygons[i].contains(x: p.x, y: p.y)
                    if inside == s.standing[i].isIn {
                        s.standing[i].run = 0
                        continue
                    }
                    s.standing[i].run += 1
                    if s.standing[i].run >= zone.inertia {
                        s.standing[i].isIn = inside
                        s.standing[i].run = 0
                        if inside && !s.entered.contains(zone.name) { s.entered.append(zone.name) }
                    }
                }
            }
            let current = settings.zone.indices.filter { s.standing[$0].isIn }.map { settings.zone[$0].name }
            out.append(ZonePresence(trackID: t.id, currentZones: current, enteredZones: s.entered))
        }
        try cc.emit(out, to: Self.zones)
    }
}
