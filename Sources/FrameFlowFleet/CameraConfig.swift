import FrameFlow
import FrameFlowCalculators

/// One camera of a fleet file: its source, its graph and what to do with the graph's outputs.
///
/// ```
/// camera {
///   name: "door"
///   source: "rtsp://10.0.0.7/stream1"
///   graph: "graphs/face_detection.pbtxt"     # else the defaults' graph
///   side_packet { name: "min_score" value: "0.6" }
///   stall_seconds: 3                          # else the defaults'
///   resource_root: "models"                   # where its graph's relative model paths are found
///   max_image_pixels: 33554432                # the largest frame or image it may decode
///   output { stream: "detections" to: "mqtt" }
///   events {                                  # zones, lines, filters, masks; else the defaults'
///     zone { name: "drive" point { x: 0 y: 0.5 } point { x: 1 y: 0.5 } point { x: 1 y: 1 } }
///     line { name: "gate" point { x: 0.5 y: 0 } point { x: 0.5 y: 1 } }
///   }
///   record { folder: "clips/door" events_stream: "events" pre_roll_seconds: 5 }   # RecordSettings
///   snapshots { folder: "clips/door" stream: "snapshots" }                       # SnapshotSettings
/// }
/// ```
///
/// An `events { … }` block (in a camera, or in `defaults` for every camera without its own) holds
/// `EventSettings` in the format the events calculators' options use, checked when the file is
/// read. The camera's graph then gets two input side packets: `event_settings` (the settings as
/// text, which the events calculators' `EVENT_SETTINGS` side packet takes over their options) and
/// `camera` (the camera's name, for `EventBuilderCalculator`'s `CAMERA`); so its graph must
/// declare both, as `Graphs/people_events_hog.pbtxt` does.
public struct CameraConfig: Sendable {
    /// The camera's name: unique in the fleet, not empty; it names topics and health lines.
    public var name: String
    /// A `MediaSource` spec: URL, device, `testsrc…` or a file (resolved against the fleet
    /// file's folder).
    public var source: String
    /// The graph file's path (resolved against the fleet file's folder).
    public var graph: String
    /// Input side packets as text (`frameflow run --side NAME=VALUE`): the defaults' merged
    /// with the camera's own, the camera's winning.
    public var sidePackets: [String: String]
    /// Outputs of the graph and where they go.
    public var outputs: [CameraOutput]
    /// A source that delivers no frame for this long (opening included) is reconnected.
    public var stallSeconds: Double
    /// How reconnections are spaced.
    public var reconnect: ReconnectPolicy
    /// Play files at their own rate, as a camera would deliver them.
    public var realtime: Bool
    /// The folder relative paths in the graph's options (models, label maps) are looked up
    /// under first (resolved against the fleet file's folder); nil: the fleet's own.
    public var resourceRoot: String?
    /// The largest image, in pixels, the camera's graph may decode or allocate; nil: the fleet's.
    public var maxImagePixels: Int?
    /// Zones, lines, object filters and masks of its `events { … }` block (or the defaults');
    /// nil when neither has one.
    public var events: EventSettings?
    /// Event clips and recordings (`record { … }`), if any.
    public var record: RecordSettings?
    /// Event snapshots (`snapshots { … }`), if any.
    public var snapshots: SnapshotSettings?
    /// The stream whose images the live view and snapshots show (`live_stream`); nil: the
    /// graph's first output stream that carries images, else its input.
    public var liveStream: String?
    /// Where the camera is written in the fleet file.
    public var location: SourceLocation?

    /// A camera with the fleet defaults for everything but its name, source and graph.
    public init(
        name: String, source: String, graph: String, sidePackets: [String: String] = [:], outputs: [CameraOutput] = [],
        stallSeconds: Double = 5, reconnect: ReconnectPolicy = ReconnectPolicy(), realtime: Bool = true, location: SourceLocation? = nil
    ) {
        self.name = name
        self.source = source
        self.graph = graph
        self.sidePackets = sidePackets
        self.outputs = outputs
        self.stallSeconds = stallSeconds
        self.reconnect = reconnect
        self.realtime = realtime
        self.location = location
    }

    /// `base` with this camera's resource root (looked in first) and pixel limit.
    public func environment(over base: GraphEnvironment) -> GraphEnvironment {
        var e = base
        if let resourceRoot { e.resourceRoots.insert(resourceRoot, at: 0) }
        if let maxImagePixels { e.limits.maxImagePixels = maxImagePixels }
        return e
    }
}
