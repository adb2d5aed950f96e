import Foundation
import FrameFlow

/// Where a graph output stream goes in `frameflow run`.
public protocol PacketSink: AnyObject {
    /// Writes one packet. Called from one thread at a time, in timestamp order.
    func write(_ packet: Packet) throws
    /// Finishes the output (flush, trailer, close). Called once, also after errors.
    func finish() throws
}

/// Opens the sink a destination names: `null`, a `.jsonl` file, or an image/video file.
public func makeSink(_ destination: String, stream: String, encode: EncodeOptions = EncodeOptions()) throws -> any PacketSink {
    if destination == "null" { return NullSink() }
    if destination == "window" {
        throw MediaError(.noDisplay, destination, "the window output needs FrameFlowDisplay (not built yet); use --output FILE")
    }
    if destination.lowercased().hasSuffix(".jsonl") { return try JSONLinesSink(path: destination, stream: stream) }
    return ImageStreamSink(try VideoFileSink(path: destination, options: encode), stream: stream)
}

/// Discards packets (counts them).
public final class NullSink: PacketSink {
    public private(set) var count = 0
    public init() {}
    public func write(_ packet: Packet) throws { count += 1 }
    public func finish() throws {}
}

/// Adapts `VideoFileSink` to image packets. Float masks (`grayFloat32`) are written as 8-bit
/// grey, value × 255 clamped and rounded (`ImageFrame.grayFloatToGray8`); a PNG of one is a
/// one-channel grey PNG.
final class ImageStreamSink: PacketSink {
    let file: VideoFileSink
    let stream: String
    init(_ file: VideoFileSink, stream: String) {
        self.file = file
        self.stream = stream
    }
    func write(_ packet: Packet) throws {
        var image = try packet.get(ImageFrame.self, stream: stream)
        if image.format == .grayFloat32 { image = try image.grayFloatToGray8() }
        try file.write(image, at: packet.timestamp)
    }
    func finish() throws { try file.finish() }
}

/// Writes one JSON object per packet: `{"stream":…,"timestamp_us":…, …payload}`, to a hidden
/// temporary file beside `path` that `finish()` renames into place (an existing file is
/// replaced only by a finished output).
///
/// The payload's members come from `JSONLinesRepresentable` (an image gives its `width`,
/// `height` and `format`, and a float mask also its `mean` and `foreground_fraction`, the
/// fraction of pixels ≥ 0.5); `[Detection]` becomes
/// `"detections": [{"label":[…],"score":[…],"location_data":{…}}, …]` (MediaPipe's field
/// names); other `Encodable` values merge an object's members or become `"value"`; anything
/// else is its description.
public final class JSONLinesSink: PacketSink {
    public let path: String
    let stream: String
    private let temporaryPath: String
    private let handle: FileHandle
    private var finished = false
    private let encoder = JSONEncoder()

    public init(path: String, stream: String) throws {
        self.path = path
        self.stream = stream
        let url = URL(fileURLWithPath: path)
        temporaryPath =
            url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).frameflow-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).jsonl").path
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil), let h = FileHandle(forWritingAtPath: temporaryPath) else {
            throw MediaError(.cannotWrite, path, "cannot write: no such folder or permission denied")
        }
        handle = h
        encoder.outputFormatting = [.sortedKeys]
    }

    deinit {
        if !finished {  // never finished: the run did not get that far; leave `path` alone
            try? handle.close()
            unlink(temporaryPath)
        }
    }

    public func write(_ packet: Packet) throws {
        guard let payload = packet.payload else { return }
        var members: [String: Any] = [:]
        if let r = payload as? JSONLinesRepresentable {
            members = r.jsonObject
        } else if let d = payload as? [Detection], let data = try? encoder.encode(d),
            let list = try? JSONSerialization.jsonObject(with: data)
        {
            members["detections"] = list
        } else if let e = payload as? Encodable, let data = try? encoder.encode(AnyEncodable(e)),
            let obj = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        {
            if let dict = obj as? [String: Any] { members = dict } else { members["value"] = obj }
        } else {
            members["value"] = String(describing: payload)
        }
        let body = try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
        let streamJSON = String(decoding: try JSONSerialization.data(withJSONObject: stream, options: [.fragmentsAllowed]), as: UTF8.self)
        var line = "{\"stream\":\(streamJSON),\"timestamp_us\":\(packet.timestamp.microseconds)"
        let inner = String(decoding: body, as: UTF8.self).dropFirst().dropLast()
        if !inner.isEmpty { line += "," + inner }
        line += "}\n"
        do {
            try handle.write(contentsOf: Data(line.utf8))
        } catch {
            throw MediaError(.cannotWrite, path, "cannot write: \(error.localizedDescription)")
        }
    }

    public func finish() throws {
        guard !finished else { return }
        finished = true
        try handle.close()
        guard rename(temporaryPath, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw MediaError(.cannotWrite, path, "cannot write (moving the finished output into place): \(why)")
        }
    }
}

struct AnyEncodable: Encodable {
    let value: Encodable
    init(_ value: Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}
