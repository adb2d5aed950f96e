import Foundation
import FrameFlow

/// Where a graph output stream goes in `frameflow run`.
public protocol PacketSink: AnyObject {
    /// Writes one packet. Called from one thread at a time, in timestamp order.
    func write(_ packet: Packet) throws
    /// Finishes the output (flush, trailer, close). Called once, also after errors.
    func finish() throws
    /// Abandons an output that a run failed to start: removes its temporary files and leaves
    /// the destination as it was. Called instead of `finish`.
    func discard()
}

extension PacketSink {
    /// Nothing to remove.
    public func discard() {}
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

/// Discards packets (counts them; the count may be read from any thread while it runs).
public final class NullSink: PacketSink, Sendable {
    private let counter = AtomicCounter()
    /// Packets written so far.
    public var count: Int { counter.current }
    public init() {}
    public func write(_ packet: Packet) throws { counter.add(1) }
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
    func discard() { file.discard() }
}

/// Writes one JSON object per packet, `PacketJSON.object` and a newline, to a hidden
/// temporary file beside `path` that `finish()` renames into place (an existing file is
/// replaced only by a finished output).
public final class JSONLinesSink: PacketSink {
    public let path: String
    let stream: String
    private let temporaryPath: String
    private let handle: FileHandle
    private var finished = false

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
    }

    deinit {
        if !finished {  // never finished: the run did not get that far; leave `path` alone
            try? handle.close()
            unlink(temporaryPath)
        }
    }

    public func write(_ packet: Packet) throws {
        guard var line = try PacketJSON.object(packet, stream: stream) else { return }
        line.append(UInt8(ascii: "\n"))
        do {
            try handle.write(contentsOf: line)
        } catch {
            throw MediaError(.cannotWrite, path, "cannot write: \(error.localizedDescription)")
        }
    }

    /// Removes the temporary file; `path` is left as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        try? handle.close()
        unlink(temporaryPath)
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
