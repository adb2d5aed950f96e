import Foundation

/// How one file of a `frameflow batch` run ended: the JSON line printed for it.
///
///     {"file":"clips/a.mp4","line":3,"status":"ok","frames":50,"frames_out":50,"seconds":0.41,
///      "outputs":["out/a.mp4"]}
///
/// `file` is the list's line as written and `line` its number; `frames` counts the frames
/// read from the file and `frames_out` those the graph's first output passed; `error` is
/// present only when `status` is `error`.
public struct BatchResult: Codable, Sendable, Equatable {
    /// How a file ended.
    public enum Status: String, Codable, Sendable {
        /// Read to its end; every output finished.
        case ok
        /// It failed (named in `error`); the other files still run.
        case error
        /// Ctrl-C or SIGTERM stopped it; its outputs were finished, the files after it not run.
        case interrupted
    }

    /// The list's line as written.
    public var file: String
    /// The line number in the list, from 1.
    public var line: Int
    /// How it ended.
    public var status: Status
    /// Frames read from the file.
    public var frames: Int
    /// Packets of the graph's first output stream.
    public var framesOut: Int
    /// Wall-clock seconds for this file, loading the graph included.
    public var seconds: Double
    /// The output files written for it.
    public var outputs: [String]
    /// Why it failed (only with `status` `error`).
    public var error: String?

    /// A result; `error` only for a failed file.
    public init(
        file: String, line: Int, status: Status, frames: Int = 0, framesOut: Int = 0, seconds: Double = 0, outputs: [String] = [],
        error: String? = nil
    ) {
        self.file = file
        self.line = line
        self.status = status
        self.frames = frames
        self.framesOut = framesOut
        self.seconds = seconds
        self.outputs = outputs
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case file, line, status, frames
        case framesOut = "frames_out"
        case seconds, outputs, error
    }

    /// The result as one line of JSON (no newline), keys in a fixed order.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var rounded = self
        rounded.seconds = (seconds * 1000).rounded() / 1000
        // Encoding these plain fields cannot fail; the fallback keeps the line valid JSON.
        guard let data = try? encoder.encode(rounded) else { return #"{"status":"error","error":"unencodable result"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
