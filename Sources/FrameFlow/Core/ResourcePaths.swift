import Foundation

/// Where relative file paths in calculator options (models, label maps, cascades, LUTs)
/// are found: MediaPipe's resource root. A relative path is looked up under the roots first,
/// then as given (relative to the working directory).
public enum ResourcePaths {
    /// The resource root (`frameflow run --resource-root DIR`); nil for none. Setting it
    /// replaces every root, including those `withRoot` added.
    public static var root: String? {
        get { storage.withLock { $0.first } }
        set { storage.withLock { $0 = newValue.map { [$0] } ?? [] } }
    }

    private static let storage = Locked<[String]>([])

    /// Runs `body` with `root` added to the roots, and removes it after: code running at the
    /// same time with roots of its own (tests in parallel) keeps finding its files.
    public static func withRoot<T>(_ root: String, _ body: () throws -> T) rethrows -> T {
        storage.withLock { $0.append(root) }
        defer {
            storage.withLock { roots in
                if let i = roots.lastIndex(of: root) { roots.remove(at: i) }
            }
        }
        return try body()
    }

    /// `path` under the first root where it exists when it is relative, else `path`.
    public static func resolve(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        for root in storage.withLock({ $0 }) where !root.isEmpty {
            let candidate = (root as NSString).appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return path
    }
}
