import Foundation
import FrameFlow

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
