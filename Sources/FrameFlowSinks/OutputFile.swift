import Foundation
import FrameFlow

/// How every file output is written: to a hidden temporary beside the destination, then
/// synced, closed, checked and renamed into place; on any error the temporaries go and the
/// destination is left as it was. An HLS output's temporary is a folder of that name holding
/// the playlist and its segments.
///
/// Temporary names are `.NAME.frameflow-HOST-PID-N.EXT` (hidden, in the destination's folder so
/// the rename is atomic, with the destination's extension so FFmpeg picks the same muxer). A run
/// that was killed cannot remove its own; the next output to the same destination removes
/// those of this host whose process is gone.
package enum OutputFile {
    /// Refuses a destination that exists and is not a regular file (a device such as
    /// `/dev/full`, a FIFO, a folder): the final rename would replace it.
    package static func checkDestination(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        let type = st.st_mode & S_IFMT
        if type == S_IFDIR { throw MediaError(.cannotWrite, path, "is a folder; name a file to write") }
        guard type == S_IFREG else {
            throw MediaError(.unsupportedOutput, path, "is not a regular file (a device, FIFO, socket or link); outputs are files FrameFlow creates")
        }
    }

    /// A new temporary name for `path` (which may be a `%d` pattern).
    package static func temporaryName(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let n = counter.add(1)
        let name = ".\(url.lastPathComponent).frameflow-\(host)-\(getpid())-\(n).\(url.pathExtension)"
        let dir = (path as NSString).deletingLastPathComponent
        return dir.isEmpty ? name : (dir as NSString).appendingPathComponent(name)
    }

    /// Removes the temporaries that killed runs of this host left for `path`: those whose name
    /// starts like `path`'s (up to a `%` pattern) and whose process no longer exists.
    package static func removeStaleTemporaries(for path: String) {
        let dir = folder(of: path)
        var base = (path as NSString).lastPathComponent
        if let p = base.firstIndex(of: "%") { base = String(base[..<p]) }
        let marker = ".frameflow-\(host)-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names where name.hasPrefix("." + base) {
            guard let m = name.range(of: marker) else { continue }
            let pidText = name[m.upperBound...].prefix { $0.isNumber }
            guard let pid = pid_t(pidText), pid > 0, pid != getpid() else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            // A file, or the folder of an HLS output with its segments.
            let stale = (dir as NSString).appendingPathComponent(name)
            if unlink(stale) != 0 && (errno == EISDIR || errno == EPERM) { try? FileManager.default.removeItem(atPath: stale) }
        }
    }

    /// Flushes `path`'s data to the disk (`fsync`), so that a full or failing disk is reported
    /// before the rename, not lost after it.
    package static func sync(_ path: String, reportingAs destination: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MediaError(.cannotWrite, destination, "cannot write (reopening to sync): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw MediaError(.cannotWrite, destination, "cannot write (syncing to disk): \(String(cString: strerror(errno)))")
        }
    }

    /// Renames each `(temporary, destination)` pair; if one fails, the destinations renamed
    /// before it (this run's files now) and the remaining temporaries are removed.
    package static func moveIntoPlace(_ pairs: [(from: String, to: String)]) throws {
        for (i, (from, to)) in pairs.enumerated() where rename(from, to) != 0 {
            let why = String(cString: strerror(errno))
            for (_, done) in pairs[..<i] { unlink(done) }
            for (rest, _) in pairs[i...] { unlink(rest) }
            throw MediaError(.cannotWrite, to, "cannot write (moving the finished output into place): \(why)")
        }
    }

    private static func folder(of path: String) -> String {
        let dir = (path as NSString).deletingLastPathComponent
        return dir.isEmpty ? "." : dir
    }

    private static let counter = AtomicCounter()

    /// This machine's name, made safe for a file name (fleets may share a folder over NFS).
    private static let host: String = {
        var buf = [CChar](repeating: 0, count: 256)
        gethostname(&buf, buf.count - 1)
        let name = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return safe.isEmpty ? "host" : String(safe.prefix(32))
    }()
}
