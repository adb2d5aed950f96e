import Foundation
import FrameFlow

#if canImport(Glibc)
    import Glibc
#endif

/// One loaded `Model` per model file in the process, shared by every graph that runs it: a
/// fleet of cameras running the same graph holds one copy of the weights and their packed
/// forms, not one per camera.
///
/// `InferenceCalculator` loads its `model_path` (or a path in its `MODEL` side packet)
/// through `shared`, keyed by the file's resolved path (symbolic links followed), size,
/// modification time, device and inode: a file replaced or rewritten is loaded again for the
/// graphs that start after; graphs already running keep the model they opened with.
/// `TfLiteModelCalculator` shares models built from the same bytes (exactly equal contents).
///
/// The cache holds models weakly: a model is freed when the last graph using it closes (only
/// the small key stays). Sharing is safe because `Model.run` may be called from several
/// threads at once: a model is immutable after loading, and each run takes its own scratch
/// pool (`Model.pools`).
///
/// ```swift
/// let a = try ModelCache.shared.model(atPath: "face_detection_short_range.tflite")
/// let b = try ModelCache.shared.model(atPath: "face_detection_short_range.tflite")
/// print(a === b)  // Prints "true"
/// ```
public final class ModelCache: Sendable {
    /// The cache the calculators use.
    public static let shared = ModelCache()

    /// What identifies one version of a file.
    struct Stamp: Equatable {
        var size: Int64
        var modified: Int64  // nanoseconds since 1970
        var device: UInt64
        var inode: UInt64
    }

    /// The model last loaded from a path; `lock` is held while it loads, so graphs opening
    /// the same file at once load it once.
    private final class PathEntry: Sendable {
        struct State {
            var stamp: Stamp?
            weak var model: Model?
            /// Loads of this path so far (tests count them).
            var loads = 0
        }
        let state = Locked(State())
    }

    private struct Blob {
        weak var model: Model?
    }

    private let paths = Locked<[String: PathEntry]>([:])
    /// Models built from bytes, by size and hash (each checked byte for byte on a hit).
    private let blobs = Locked<[Int: [Blob]]>([:])

    /// An empty cache (tests use their own).
    public init() {}

    /// The model in the file at `path` (a relative path is looked up under `environment`'s
    /// resource roots first), held to its limits: the one already loaded under the same
    /// limits when the file has not changed since and a graph still uses it, else a new load.
    ///
    /// - Throws: `ModelError` naming the file when it cannot be read or is not a model.
    public func model(atPath path: String, environment: GraphEnvironment = GraphEnvironment()) throws -> Model {
        let file = try Self.key(path, environment)
        let limits = environment.limits
        let key = "\(limits.maxTensorElements) \(file)"
        let entry = paths.withLock { table in
            if let e = table[key] { return e }
            let e = PathEntry()
            table[key] = e
            return e
        }
        return try entry.state.withLock { s in
            // Stamp before reading: a file changed during the load is loaded again next time.
            let stamp = try Self.stamp(file)
            if let m = s.model, s.stamp == stamp { return m }
            let m = try Model.load(contentsOf: URL(fileURLWithPath: file), limits: limits)
            s.model = m
            s.stamp = stamp
            s.loads += 1
            return m
        }
    }

    /// The model built from `bytes`, a TFLite flatbuffer: one already built from equal
    /// bytes while a graph still uses it, else a new one.
    ///
    /// - Throws: `ModelError` (naming `file`) when the bytes are not a model.
    public func model(tflite bytes: [UInt8], file: String = "<model>", limits: ResourceLimits = ResourceLimits()) throws -> Model {
        var h = Hasher()
        h.combine(bytes.count)
        h.combine(limits.maxTensorElements)
        bytes.withUnsafeBytes { h.combine(bytes: $0) }
        let key = h.finalize()
        if let m = blobs.withLock({
            $0[key]?.lazy.compactMap(\.model).first { $0.sourceBytes == bytes && $0.maxTensorElements == limits.maxTensorElements }
        }) {
            return m
        }
        // Built outside the lock (other models load meanwhile); two graphs building the same
        // bytes at once keep the first model stored.
        let built = try Checked.$maxElements.withValue(limits.maxTensorElements) { try Model(tflite: bytes, file: file, keepingBytes: true) }
        return blobs.withLock { table in
            var list = (table[key] ?? []).filter { $0.model != nil }
            if let m = list.lazy.compactMap(\.model).first(where: { $0.sourceBytes == bytes && $0.maxTensorElements == limits.maxTensorElements }) {
                return m
            }
            list.append(Blob(model: built))
            table[key] = list
            return built
        }
    }

    /// Models the cache holds that some graph still uses.
    public var liveModels: Int {
        let p = paths.withLock { Array($0.values) }.reduce(0) { n, e in n + (e.state.withLock { $0.model } == nil ? 0 : 1) }
        return p + blobs.withLock { $0.values.reduce(0) { $0 + $1.filter { $0.model != nil }.count } }
    }

    /// `path` resolved: under the environment's resource roots when relative, symbolic links
    /// followed.
    static func key(_ path: String, _ environment: GraphEnvironment) throws -> String {
        let resolved = environment.resolve(path)
        guard let real = realpath(resolved, nil) else {
            let reason = String(cString: strerror(errno))
            throw ModelError(
                "\(resolved): cannot read the model file (\(reason))\(resolved == path ? environment.placesSearched(for: path) : "")",
                cause: .missingFile(path: path))
        }
        defer { free(real) }
        return String(cString: real)
    }

    /// The entry of the file at `path` under the default environment.
    private func entry(_ path: String) -> PathEntry? {
        let env = GraphEnvironment()
        guard let file = try? Self.key(path, env) else { return nil }
        return paths.withLock { $0["\(env.limits.maxTensorElements) \(file)"] }
    }

    /// How many times the file at `path` was loaded (under the default limits).
    func loadCount(atPath path: String) -> Int {
        guard let e = entry(path) else { return 0 }
        return e.state.withLock { $0.loads }
    }

    /// Whether a model of the file at `path` is alive (1) or not (0).
    func liveModels(atPath path: String) -> Int {
        guard let e = entry(path) else { return 0 }
        return e.state.withLock { $0.model == nil ? 0 : 1 }
    }

    /// Size, modification time and identity of the file at `path`.
    static func stamp(_ path: String) throws -> Stamp {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw ModelError("\(path): cannot read the model file (\(String(cString: strerror(errno))))", cause: .missingFile(path: path))
        }
        return Stamp(
            size: Int64(st.st_size), modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }
}
