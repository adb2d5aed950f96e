import CFFmpeg
import Foundation
import FrameFlow
import FrameFlowSinks

/// FFmpeg's I/O for an input that is a FIFO or a character device (`mkfifo`, `/dev/stdin` fed
/// by a pipe): opened without blocking and read through `poll`, so that waiting for a writer
/// that never comes, or for data a writer never sends, ends at the time-out or the first
/// Ctrl-C/SIGTERM like every other read (`IOInterrupt`). FFmpeg's own file protocol would
/// block in `open` or `read` where no callback can reach it.
final class PipeInput {
    /// The I/O context to put in `AVFormatContext.pb` (with `AVFMT_FLAG_CUSTOM_IO`).
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    private let fd: Int32
    private let io: IOInterrupt

    /// Whether `path` names a FIFO or a character device (but not a camera, `/dev/video*`).
    static func applies(to path: String) -> Bool {
        guard !path.hasPrefix("/dev/video") else { return false }
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let type = st.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR
    }

    init(path: String, io: IOInterrupt) throws {
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw MediaError(.fileNotFound, path, "cannot open: \(String(cString: strerror(errno)))") }
        self.io = io
        let size = 1 << 16
        guard let buffer = av_malloc(size) else {
            close(fd)
            throw MediaError(.ffmpeg, path, "cannot allocate an I/O buffer")
        }
        context = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, Unmanaged.passUnretained(self).toOpaque(),
            { opaque, buf, size in
                Unmanaged<PipeInput>.fromOpaque(opaque!).takeUnretainedValue().read(buf!, Int(size))
            }, nil, nil)
        if context == nil {
            var b: UnsafeMutableRawPointer? = buffer
            av_freep(&b)
            close(fd)
            throw MediaError(.ffmpeg, path, "cannot allocate an I/O context")
        }
    }

    deinit {
        if let c = context {
            var b: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(c.pointee.buffer)
            av_freep(&b)
            avio_context_free(&context)
        }
        close(fd)
    }

    /// Up to `size` bytes; waits in slices of 50 ms, checking the interrupt flag and deadline.
    /// A FIFO without a writer yet reads as empty, so only `poll` tells data (POLLIN) and a
    /// writer that came and went (POLLHUP) from a writer still to come.
    private func read(_ buf: UnsafeMutablePointer<UInt8>, _ size: Int) -> Int32 {
        while true {
            if io.shouldStop() != 0 { return ff_averror_exit() }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, 50)
            if r < 0 {
                if errno == EINTR { continue }
                return ff_averror(errno)
            }
            guard r > 0 else { continue }
            if p.revents & Int16(POLLIN) != 0 {
                let n = Foundation.read(fd, buf, size)
                if n > 0 { return Int32(n) }
                if n == 0 { return ff_averror_eof() }
                if errno == EAGAIN || errno == EINTR { continue }
                return ff_averror(errno)
            }
            if p.revents & Int16(POLLHUP | POLLERR) != 0 { return ff_averror_eof() }
        }
    }
}
