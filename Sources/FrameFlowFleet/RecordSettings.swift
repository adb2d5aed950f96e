import FrameFlowMedia

/// A camera's `record { … }` block: event clips cut from its encoded stream (and, with
/// `continuous`, segments of everything), in a folder with a retention policy.
///
/// ```
/// record {
///   folder: "clips/door"        # made if missing; relative to the fleet file
///   events_stream: "events"     # the graph's [ObjectEvent] stream (EventBuilderCalculator)
///   pre_roll_seconds: 5         # 0…300
///   post_roll_seconds: 5        # 0…300
///   continuous: false
///   segment_seconds: 60         # 1…3600
///   retain_days: 7              # (0, 36500]
///   max_bytes: 20000000000      # 1…1e15
/// }
/// ```
public struct RecordSettings: Sendable {
    /// Where clips and segments go.
    public var folder: String
    /// The graph output stream carrying `[ObjectEvent]`.
    public var eventsStream: String
    /// Pre- and post-roll, continuous segments, retention.
    public var options: ClipRecorder.Options

    public init(folder: String, eventsStream: String = "events", options: ClipRecorder.Options = ClipRecorder.Options()) {
        self.folder = folder
        self.eventsStream = eventsStream
        self.options = options
    }
}

/// A camera's `snapshots { … }` block: each event's best frame as `<event id>.jpg`,
/// `-crop.jpg` and `-annotated.jpg`.
///
/// ```
/// snapshots {
///   folder: "clips/door"
///   stream: "snapshots"         # the graph's [ObjectSnapshot] stream (SnapshotSelectorCalculator)
///   events_stream: "events"
/// }
/// ```
public struct SnapshotSettings: Sendable {
    public var folder: String
    /// The graph output stream carrying `[ObjectSnapshot]`.
    public var stream: String
    /// The graph output stream carrying `[ObjectEvent]`.
    public var eventsStream: String

    public init(folder: String, stream: String = "snapshots", eventsStream: String = "events") {
        self.folder = folder
        self.stream = stream
        self.eventsStream = eventsStream
    }
}
