import Foundation
import FrameFlow

/// Where a graph output stream goes in `frameflow run`.
///
/// A run ends its sinks in two steps so that it either completes every output or replaces
/// none: `prepare()` on each (everything that can fail: flush, trailer, sync), then `finish()`
/// on each (making the output visible); on any error, `discard()` on each.
public protocol PacketSink: AnyObject {
    /// Writes one packet. Called from one thread at a time, in timestamp order.
    func write(_ packet: Packet) throws
    /// Completes the output without making it visible yet (flush, trailer, close, sync).
    func prepare() throws
    /// Finishes the output (after `prepare()`, which it calls if it was not): files are moved
    /// into place. Called once, after a run that succeeded or was interrupted.
    func finish() throws
    /// Abandons the output: removes its temporary files and leaves the destination as it was.
    /// Called instead of `finish` when the run failed, or after `finish` failed.
    func discard()
}

extension PacketSink {
    /// Nothing to complete before `finish`.
    public func prepare() throws {}
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
    func prepare() throws { try file.prepare() }
    func finish() throws { try file.finish() }
    func discard() { file.discard() }
}

/// Writes one JSON object per packet, `PacketJSON.object` and a newline, to a hidden
/// temporary file beside `path` that `finish()` renames into place once it is synced and
/// closed (an existing file is replaced only by a finished output; see `OutputFile`).
public final class JSONLinesSink: PacketSink {
    public let path: String
    let stream: String
    private let temporaryPath: String
    private var fd: Int32
    private var finished = false

    public init(path: String, stream: String) throws {
        self.path = path
        self.stream = stream
        try OutputFile.checkDestination(path)
        OutputFile.removeStaleTemporaries(for: path)
        temporaryPath = OutputFile.temporaryName(for: path)
        fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MediaError(.cannotWrite, path, "cannot write: \(String(cString: strerror(errno)))") }
    }

    deinit { discard() }

    public func write(_ packet: Packet) throws {
        guard var line = try PacketJSON.object(packet, stream: stream) else { return }
        line.append(UInt8(ascii: "\n"))
        guard fd >= 0 else { throw MediaError(.cannotWrite, path, "the output is already finished") }
        try line.withUnsafeBytes { b in
            var done = 0
            while done < b.count {
                let n = Foundation.write(fd, b.baseAddress! + done, b.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw MediaError(.cannotWrite, path, "cannot write: \(String(cString: strerror(errno)))") }
                done += n
            }
        }
    }

    /// Syncs and closes the temporary file, checking both.
    public func prepare() throws {
        guard fd >= 0 else { return }
        let synced = fsync(fd) == 0 ? nil : String(cString: strerror(errno))
        let closed = close(fd) == 0 ? nil : String(cString: strerror(errno))
        fd = -1
        if let why = synced ?? closed {
            discard()
            throw MediaError(.cannotWrite, path, "cannot write (syncing to disk): \(why)")
        }
    }

    /// Removes the temporary file; `path` is left as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        if fd >= 0 { close(fd) }
        fd = -1
        unlink(temporaryPath)
    }

    public func finish() throws {
        guard !finished else { return }
        try prepare()
        finished = true
        try OutputFile.moveIntoPlace([(temporaryPath, path)])
    }
}
