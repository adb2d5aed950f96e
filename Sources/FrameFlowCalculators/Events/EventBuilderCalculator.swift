import FrameFlow

/// Turns tracks into events, one per confirmed track, in Frigate's `frigate/events` shape
/// (`ObjectEvent`): `new` when the track first appears, `update` when its current or entered
/// zones change, its top score rises by `min_score_gain`, its label changes or it becomes
/// stationary or moving again, and `end` when the tracker has dropped it (absent from two
/// `TRACKS` packets in a row, since ByteTrack may bring a dropped track back in the next frame)
/// or when the stream closes. Every event has exactly one `new` and one `end`; `before` is the
/// state the previous message sent (`after` itself in a `new`).
///
/// Times are `time_base` (or the `TIME_BASE` side packet) + the packet's timestamp in seconds;
/// the event id is `"<start_time>-<camera>-<track id>"`. Boxes are the latest detection's, as
/// the tracker gives them (pixels when it had `IMAGE_SIZE`); `region` is the whole frame when
/// `IMAGE_SIZE` is connected, else the box.
///
/// `COUNTS` holds the objects the tracker still reports (tracked or briefly lost) by label, in
/// the frame and per zone, with `"all"`; every label and zone seen stays with 0, and a packet is
/// emitted when a number changes.
///
/// Inputs:
///   - `TRACKS`: `[TrackedObject]`, the tracker's confirmed tracks, one packet per frame.
///   - `ZONES`: `[ZonePresence]` (optional), `ZoneCalculator`'s output for the same frame.
///   - `IMAGE_SIZE`: `ImageSize` (optional), the frame's size (for `region`).
/// Outputs:
///   - `EVENTS`: `[ObjectEvent]`, this frame's messages (no packet when there are none).
///   - `COUNTS`: `ObjectCounts` (optional), when they change.
/// Side packets: `CAMERA` (optional, text): the camera's name, over `camera`; `TIME_BASE`
/// (optional, Double): seconds, over `time_base`.
/// Options: `frameflow.EventBuilderCalculatorOptions` { camera ("camera", 1…256 characters, no
/// control characters), time_base (0 s, 0…1e11: the Unix time of timestamp 0 for live cameras),
/// min_score_gain (0.05, 0…1) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "EventBuilderCalculator"
///   input_stream: "TRACKS:tracks"
///   input_stream: "ZONES:zones"
///   input_stream: "IMAGE_SIZE:size"
///   output_stream: "EVENTS:events"
///   output_stream: "COUNTS:counts"
///   options { [frameflow.EventBuilderCalculatorOptions.ext] { camera: "street" } }
/// }
/// ```
public final class EventBuilderCalculator: Calculator {
    /// The camera's name, the time base and when a better score is news.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.EventBuilderCalculatorOptions"
        /// The camera's name in events and counts.
        public var camera = "camera"
        /// Seconds added to timestamps to give event times.
        public var timeBase = 0.0
        /// How much the top score must rise to send an `update`.
        public var minScoreGain = 0.05
        public init() {}

        /// Checks the values (called by the graph before `init`).
        public func validate() throws {
            try EventBuilderCalculator.checkCamera(camera, "camera")
            try OptionCheck.range(timeBase, 0...1e11, "time_base")
            try OptionCheck.range(minScoreGain, 0...1, "min_score_gain")
        }
    }

    /// The tracks.
    public static let tracks = InputPort<[TrackedObject]>("TRACKS")
    /// Each track's zones.
    public static let zones = InputPort<[ZonePresence]>("ZONES", optional: true)
    /// The frame's size.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// The frame's event messages.
    public static let events = OutputPort<[ObjectEvent]>("EVENTS")
    /// Object counts, when they change.
    public static let counts = OutputPort<ObjectCounts>("COUNTS", optional: true)
    /// The camera's name.
    public static let cameraSide = InputSidePacket<String>("CAMERA", optional: true)
    /// The time base in seconds.
    public static let timeBaseSide = InputSidePacket<Double>("TIME_BASE", optional: true)
    public static let contract = CalculatorContract(ports: [tracks, zones, imageSize, events, counts, cameraSide, timeBaseSide])

    /// An event still open: the state last sent.
    private struct Open {
        var sent: ObjectEvent.State
        var lastSeen: Double
    }

    private let options: Options
    private var camera: String
    private var timeBase: Double
    private var size: ImageSize?
    private var openEvents = TrackStates<Open>()
    private var ended = Set<Int>()
    private var lastTimestamp: Timestamp?
    private var labels: [String] = []
    private var zoneNames: [String] = []
    private var sentCounts: ObjectCounts?

    public init(options: Options) {
        self.options = options
        camera = options.camera
        timeBase = options.timeBase
    }

    public func open(_ cc: CalculatorContext) throws {
        if let c = try cc.value(Self.cameraSide) {
            do { try Self.checkCamera(c, "CAMERA") } catch var e as GraphError {
                e.node = cc.nodeName
                throw e
            }
            camera = c
        }
        if let t = try cc.value(Self.timeBaseSide) {
            guard t.isFinite, (0...1e11).contains(t) else {
                throw GraphError(.invalidOption, "side packet TIME_BASE must be from 0 to 1e11 seconds, not \(t)", node: cc.nodeName)
            }
            timeBase = t
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        if let s = try cc.value(Self.imageSize) { size = s }
        guard let tracks = try cc.value(Self.tracks) else { return }
        let zones = try cc.value(Self.zones) ?? []
        lastTimestamp = cc.inputTimestamp
        let now = timeBase + Double(cc.inputTimestamp.microseconds) / 1_000_000
        var byID: [Int: ZonePresence] = [:]
        for z in zones { byID[z.trackID] = z }
        var out: [ObjectEvent] = []
        let gone = openEvents.update(
            tracks,
            make: { t in
                // A track id whose event has ended (gone two packets, then back) starts a new
                // event that begins now, so its id differs from the ended one's.
                let s = state(t, nil, now: now, zones: byID[t.id], start: ended.contains(t.id) ? now : nil)
                out.append(ObjectEvent(type: .new, before: s, after: s))
                return Open(sent: s, lastSeen: timeBase + Double(t.lastSeen) / 1_000_000)
            }
        ) { t, _, o in
            let label = t.label ?? "object"
            if !labels.contains(label) { labels.append(label) }
            var after = state(t, o.sent, now: now, zones: byID[t.id])
            if o.sent.stationary && !after.stationary { after.positionChanges += 1 }
            o.lastSeen = timeBase + Double(t.lastSeen) / 1_000_000
            if isNews(from: o.sent, to: after) {
                out.append(ObjectEvent(type: .update, before: o.sent, after: after))
                o.sent = after
            }
        }
        out += gone.map { end($0.id, $0.state, now: now) }
        if !out.isEmpty { try cc.emit(out, to: Self.events) }
        if cc.isConnected(Self.counts) { try emitCounts(tracks, zones: byID, cc) }
    }

    public func close(_ cc: CalculatorContext) throws {
        guard let last = lastTimestamp, !openEvents.isEmpty else { return }
        let at = Timestamp(last.microseconds + 1)
        let now = timeBase + Double(at.microseconds) / 1_000_000
        let out = openEvents.removeAll().map { end($0.id, $0.state, now: now) }
        try cc.emit(out, to: Self.events, at: at)
        if cc.isConnected(Self.counts) {
            lastTimestamp = at
            try emitCounts([], zones: [:], cc, at: at)
        }
    }

    /// The `end` message of track `id`'s event `o`, let go of.
    private func end(_ id: Int, _ o: Open, now: Double) -> ObjectEvent {
        ended.insert(id)
        var after = o.sent
        after.frameTime = now
        after.endTime = max(o.lastSeen, after.startTime)
        return ObjectEvent(type: .end, before: o.sent, after: after)
    }

    /// Whether `after` differs from what was sent in a way worth a message.
    private func isNews(from sent: ObjectEvent.State, to after: ObjectEvent.State) -> Bool {
        after.currentZones != sent.currentZones || after.enteredZones != sent.enteredZones || after.stationary != sent.stationary
            || after.label != sent.label || after.topScore >= sent.topScore + max(options.minScoreGain, 1e-12)
    }

    /// Track `t`'s state now; `previous` carries what the track does not hold.
    private func state(_ t: TrackedObject, _ previous: ObjectEvent.State?, now: Double, zones: ZonePresence?, start: Double? = nil)
        -> ObjectEvent.State
    {
        let b = t.box
        let start = start ?? timeBase + Double(t.firstSeen) / 1_000_000
        let region: [Double] = size.map { [0, 0, Double($0.width), Double($0.height)] } ?? [b.x1, b.y1, b.x2, b.y2]
        return ObjectEvent.State(
            id: previous?.id ?? Self.eventID(start: start, camera: camera, track: t.id), camera: camera, frameTime: now,
            label: t.label ?? "object", topScore: t.topScore, startTime: previous?.startTime ?? start, score: t.score,
            box: [b.x1, b.y1, b.x2, b.y2], area: b.width * b.height, ratio: b.height > 0 ? b.width / b.height : 0, region: region,
            currentZones: zones?.currentZones ?? previous?.currentZones ?? [], enteredZones: zones?.enteredZones ?? previous?.enteredZones ?? [],
            stationary: t.isStationary, motionlessCount: t.motionlessFrames, positionChanges: previous?.positionChanges ?? 0)
    }

    /// `"<seconds with 6 decimals>-<camera>-<track>"`.
    static func eventID(start: Double, camera: String, track: Int) -> String {
        let us = Int64(saturating: (start * 1_000_000).rounded())
        let fraction = String(us % 1_000_000)
        return "\(us / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)-\(camera)-\(track)"
    }

    private func emitCounts(_ tracks: [TrackedObject], zones: [Int: ZonePresence], _ cc: CalculatorContext, at: Timestamp? = nil) throws {
        for z in zones.values { for n in z.currentZones where !zoneNames.contains(n) { zoneNames.append(n) } }
        func zeros() -> [String: Int] { Dictionary((labels + ["all"]).map { ($0, 0) }, uniquingKeysWith: { a, _ in a }) }
        var counts = ObjectCounts(camera: camera, objects: zeros(), zones: Dictionary(uniqueKeysWithValues: zoneNames.map { ($0, zeros()) }))
        for t in tracks {
            let label = t.label ?? "object"
            counts.objects[label, default: 0] += 1
            counts.objects["all", default: 0] += 1
            for z in zones[t.id]?.currentZones ?? [] {
                counts.zones[z]?[label, default: 0] += 1
                counts.zones[z]?["all", default: 0] += 1
            }
        }
        guard counts != sentCounts else { return }
        sentCounts = counts
        try cc.emit(counts, to: Self.counts, at: at)
    }

    static func checkCamera(_ name: String, _ field: String) throws {
        guard !name.isEmpty, name.count <= 256, name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw GraphError(.invalidOption, "\(field) '\(name)' must be 1 to 256 characters without control characters")
        }
    }
}
