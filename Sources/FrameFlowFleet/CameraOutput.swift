import Foundation

/// Where one output stream of a camera's graph goes: `output { stream: "detections" to: … }`.
public struct CameraOutput: Sendable, Equatable {
    /// Where packets are written.
    public enum Destination: Sendable, Equatable {
        /// Published on `frameflow/<camera>/<stream>` through the fleet's `mqtt { … }` broker.
        case mqtt
        /// Discarded (counted).
        case null
        /// A `.jsonl`, video or image file (the path is resolved against the fleet file's
        /// folder). Each run of the camera writes a new file, never over an existing one:
        /// the first of `name.ext`, `name.1.ext`, `name.2.ext`, … that does not exist.
        case file(String)
    }

    /// The graph's output stream.
    public var stream: String
    /// Where its packets go.
    public var destination: Destination

    /// `stream` written to `destination`.
    public init(stream: String, destination: Destination) {
        self.stream = stream
        self.destination = destination
    }

    /// The file it writes, if it writes one.
    var filePath: String? {
        guard case .file(let path) = destination else { return nil }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
