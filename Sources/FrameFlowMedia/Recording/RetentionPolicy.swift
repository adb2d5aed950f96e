import Foundation

/// How long and how much a recordings folder keeps: files older than `maxDays` go, then the
/// oldest go until the folder holds at most `maxBytes`. A file a caller protects (the clip or
/// snapshot of an event still open) and a file still being written (a hidden temporary) are
/// never removed, though their bytes count.
///
/// ```swift
/// let policy = try RetentionPolicy(maxDays: 7, maxBytes: 20e9)
/// let removed = try policy.enforce(in: "/var/clips", now: Date()) { $0.hasPrefix(openEventID) }
/// ```
public struct RetentionPolicy: Sendable, Hashable {
    /// Days a file is kept after it was finished (nil: no age limit).
    public let maxDays: Double?
    /// Bytes the folder may hold (nil: no size limit).
    public let maxBytes: Int64?
    /// The extensions the policy manages (recordings and snapshots); other files are neither
    /// counted nor touched.
    public static let managedExtensions: Set<String> = ["mp4", "jpg"]

    /// A policy; `maxDays` in (0, 36500], `maxBytes` in [1, 1e15]: anything else (0, negative,
    /// NaN, infinite) throws naming the value.
    public init(maxDays: Double? = nil, maxBytes: Double? = nil) throws {
        if let d = maxDays, !(d.isFinite && d > 0 && d <= 36500) {
            throw MediaError(.invalidArgument, "retention", "retain_days must be a number above 0 and at most 36500, not \(d)")
        }
        if let b = maxBytes, !(b.isFinite && b >= 1 && b <= 1e15) {
            throw MediaError(.invalidArgument, "retention", "max_bytes must be a number of bytes from 1 to 1e15, not \(b)")
        }
        self.maxDays = maxDays
        self.maxBytes = maxBytes.map { Int64($0) }
    }

    /// A file the policy sees.
    public struct Entry: Sendable, Hashable {
        public var name: String
        public var bytes: Int64
        public var modified: Date
    }

    /// The managed files of `folder` (hidden temporaries included), oldest first.
    public static func entries(in folder: String) throws -> [Entry] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            throw MediaError(.cannotWrite, folder, "cannot list the recordings folder: \(error.localizedDescription)")
        }
        var result: [Entry] = []
        for name in names where managedExtensions.contains((name as NSString).pathExtension.lowercased()) {
            var st = stat()
            let path = (folder as NSString).appendingPathComponent(name)
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            let modified = Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
            result.append(Entry(name: name, bytes: Int64(st.st_size), modified: modified))
        }
        return result.sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
    }

    /// Removes from `folder` the files past the age limit, then the oldest until the size
    /// limit holds; never a hidden temporary or a file `isProtected` names. Returns the names
    /// removed. `now` is the caller's clock (a synthetic one in tests).
    @discardableResult
    public func enforce(in folder: String, now: Date, isProtected: (String) -> Bool = { _ in false }) throws -> [String] {
        var entries = try Self.entries(in: folder)
        var total = entries.reduce(Int64(0)) { $0 + $1.bytes }
        let cutoff = maxDays.map { now.addingTimeInterval(-$0 * 86400) }
        var removed: [String] = []
        var i = 0
        while i < entries.count {
            let e = entries[i]
            let tooOld = cutoff.map { e.modified < $0 } ?? false
            let overSize = maxBytes.map { total > $0 } ?? false
            guard tooOld || overSize else {
                i += 1
                if cutoff == nil { break }  // oldest first: nothing later is over either limit
                continue
            }
            if e.name.hasPrefix(".") || isProtected(e.name) {
                i += 1
                continue
            }
            let path = (folder as NSString).appendingPathComponent(e.name)
            if unlink(path) != 0 && errno != ENOENT {
                throw MediaError(.cannotWrite, path, "cannot remove an old recording: \(String(cString: strerror(errno)))")
            }
            total -= e.bytes
            removed.append(e.name)
            entries.remove(at: i)
        }
        return removed
    }
}
