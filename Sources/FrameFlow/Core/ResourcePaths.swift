import Foundation

/// Where relative file paths in calculator options (models, label maps, cascades, LUTs)
/// are found: MediaPipe's resource root. A relative path is looked up under `root` first,
/// then as given (relative to the working directory).
public enum ResourcePaths {
    /// The resource root (`frameflow run --resource-root DIR`); nil for none.
    public static var root: String? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    private static let storage = Locked<String?>(nil)

    /// `path` under the resource root when it is relative and exists there, else `path`.
    public static func resolve(_ path: String) -> String {
        guard !path.hasPrefix("/"), let root, !root.isEmpty else { return path }
        let candidate = (root as NSString).appendingPathComponent(path)
        return FileManager.default.fileExists(atPath: candidate) ? candidate : path
    }
}
