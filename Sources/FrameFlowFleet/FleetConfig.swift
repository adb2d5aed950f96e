import FrameFlow
import Foundation

/// A fleet file: the cameras one `frameflow fleet` process runs, each with its own graph.
///
/// The file is protobuf text format, like graph files, so its errors name the file, line and
/// column. Paths (graphs, file sources, output files) are relative to the fleet file's folder.
///
/// ```
/// defaults {
///   graph: "graphs/face_detection.pbtxt"
///   side_packet { name: "min_score" value: "0.5" }
///   stall_seconds: 5                      # no frame for this long: reconnect
///   reconnect { initial_seconds: 1 max_seconds: 30 healthy_seconds: 10 }
///   realtime: true
///   resource_root: "models"               # relative model paths are found here first
///   max_image_pixels: 67108864            # the largest image a graph may decode
/// }
/// mqtt { host: "127.0.0.1" port: 1883 qos: 1 client_id: "frameflow-0" }
/// camera {
///   name: "door"
///   source: "rtsp://10.0.0.7/stream1"
///   output { stream: "detections" to: "mqtt" }
/// }
/// camera {
///   name: "yard"
///   source: "http://10.0.0.8/live.ts"
///   graph: "graphs/edges.pbtxt"
///   output { stream: "output_video" to: "yard.mp4" }
/// }
/// camera {
///   name: "street"
///   source: "street.mp4"
///   graph: "Graphs/people_events_hog.pbtxt"
///   events {                              # zones, lines, filters, masks (EventSettings)
///     zone { name: "walkway" point { x: 0 y: 0.25 } point { x: 0.45 y: 0.25 } point { x: 0.45 y: 0.75 } }
///     line { name: "gate" min_frames: 2 point { x: 0.45 y: 0.25 } point { x: 0.45 y: 0.75 } }
///     filter { label: "person" min_area: 2000 min_score: 0.3 }
///   }
///   output { stream: "events" to: "mqtt" }       # each event on frameflow/events
///   output { stream: "counts" to: "mqtt" }       # retained frameflow/street/person, frameflow/walkway/person
/// }
/// ```
///
/// Camera events: an `events { … }` block (a camera's, else the defaults') is read by the events
/// calculators' own parser (`EventSettings`: the same fields as their options, every value
/// range-checked, errors at the field's line and column) and reaches the camera's graph as two
/// input side packets, `event_settings` (the settings as text, over the calculators' options)
/// and `camera` (the camera's name); a graph used with it declares both. An output of an events
/// stream (`[ObjectEvent]`) to `mqtt` publishes each event, in order, on `frameflow/events` in
/// Frigate's `frigate/events` shape, and an `ObjectCounts` stream publishes retained counts on
/// `frameflow/<camera>/<label>` and `frameflow/<zone>/<label>`, as Frigate does.
///
/// An `http { listen: "127.0.0.1:8080" }` block serves the fleet's HTTP API (`frameflow fleet
/// --http` overrides it; see FrameFlowHTTP).
///
/// Camera names must be unique and not empty; every camera needs a source and a graph (its
/// own or the defaults'); two cameras may not write one file. Unknown fields and repeated
/// single fields are errors.
public struct FleetConfig: Sendable {
    /// The cameras, in the order of the file (the order `--shard` splits).
    public var cameras: [CameraConfig]
    /// The broker, if the file has an `mqtt { … }` block.
    public var mqtt: MQTTSettings?
    /// The fleet file's path, if it came from one.
    public var file: String?
    /// The `http { listen: "127.0.0.1:8080" }` block, if the file has one.
    public var http: HTTPSettings?
    /// The defaults block, for cameras added later (`camera(text:)`).
    var defaults = FleetFileReader.Defaults()

    /// A fleet of `cameras`.
    public init(cameras: [CameraConfig], mqtt: MQTTSettings? = nil) {
        self.cameras = cameras
        self.mqtt = mqtt
    }

    /// Reads and checks a fleet file.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FleetConfigError(
                "cannot read the fleet file (no such file or permission denied)", at: SourceLocation(file: path, line: 0, column: 0))
        }
        guard let text = String(validating: [UInt8](data), as: UTF8.self) else {
            throw FleetConfigError("the fleet file is not UTF-8 text", at: SourceLocation(file: path, line: 0, column: 0))
        }
        try self.init(text: text, file: path)
    }

    /// Parses fleet-file `text`; `file` names it in errors and is where relative paths start
    /// (its folder; without a file, the current folder).
    public init(text: String, file: String? = nil) throws {
        let message: TextMessage
        do {
            message = try TextFormatParser.parse(text, file: file)
        } catch let e as GraphError {
            throw FleetConfigError(e.message, at: e.location)
        }
        let base = file.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        let reader = FleetFileReader(base: base)
        (cameras, mqtt, defaults, http) = try reader.readAll(message)
        self.file = file
    }

    /// Reads one `camera { … }` block sent on its own (over HTTP): the fleet file's format,
    /// with this fleet's defaults and paths relative to its folder. Errors name `origin`, the
    /// line and the column (`request:2:3: camera: unknown field 'sauce'`).
    public func camera(text: String, origin: String = "request") throws -> CameraConfig {
        let message: TextMessage
        do {
            message = try TextFormatParser.parse(text, file: origin)
        } catch let e as GraphError {
            throw FleetConfigError(e.message, at: e.location)
        }
        return try FleetFileReader(base: file.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path })
            .singleCamera(message, defaults: defaults, mqtt: mqtt != nil)
    }
}
