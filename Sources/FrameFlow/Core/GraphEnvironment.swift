import Foundation

/// What one graph reads from outside its config: where relative resource paths are found,
/// the limits every loader checks, and shared services (a model cache). MediaPipe's
/// resources service and `CalculatorContext::GetResources`, as a value.
///
/// Each `Graph` has its own (`GraphEnvironment()` by default), so two graphs in one process
/// (two cameras of a fleet, two jobs of a batch) can have different roots and limits.
/// Calculators read it in `init(options:environment:)` and, while running, as
/// `CalculatorContext.environment`.
///
/// ```swift
/// var env = GraphEnvironment(resourceRoots: ["/opt/models"])
/// env.limits.maxImagePixels = 1 << 28
/// let graph = try Graph(config, registry: .standard, environment: env)
/// ```
public struct GraphEnvironment: Sendable {
    /// Directories a relative path in calculator options (a model, a label map, a cascade, a
    /// LUT) is looked up under, in order, before the working directory; MediaPipe's
    /// resource root.
    public var resourceRoots: [String]
    /// What a loader may allocate or recurse into.
    public var limits: ResourceLimits
    private var services: [ObjectIdentifier: any Sendable] = [:]

    /// An environment with `resourceRoots` and `limits`.
    public init(resourceRoots: [String] = [], limits: ResourceLimits = ResourceLimits()) {
        self.resourceRoots = resourceRoots
        self.limits = limits
    }

    /// `path` under the first root where it exists when it is relative, else `path`.
    public func resolve(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        for root in resourceRoots where !root.isEmpty {
            let candidate = (root as NSString).appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return path
    }

    /// Where a relative `path` was looked for, for an error that cannot find it: " (looked for
    /// under ROOT, … and in the working directory DIR)"; empty for an absolute path.
    public func placesSearched(for path: String) -> String {
        guard !path.hasPrefix("/") else { return "" }
        let roots = resourceRoots.filter { !$0.isEmpty }
        let cwd = FileManager.default.currentDirectoryPath
        return roots.isEmpty
            ? " (looked for in the working directory \(cwd))"
            : " (looked for under \(roots.joined(separator: ", ")) and in the working directory \(cwd))"
    }

    /// The per-user folder that `frameflow models fetch` fills and the command-line tool looks
    /// in last: `$FRAMEFLOW_MODELS`, else `$XDG_CACHE_HOME/frameflow/models`, else
    /// `~/.cache/frameflow/models`.
    public static func userModelFolder(_ variables: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = variables["FRAMEFLOW_MODELS"], !dir.isEmpty { return dir }
        if let cache = variables["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/frameflow/models" }
        let home = variables["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/frameflow/models"
    }

    /// The service of type `S` this environment carries (a `ModelCache`), or nil.
    public func service<S: Sendable>(_ type: S.Type) -> S? {
        services[ObjectIdentifier(type)] as? S
    }

    /// This environment with `service` as its service of type `S`.
    public func with<S: Sendable>(_ service: S) -> GraphEnvironment {
        var e = self
        e.services[ObjectIdentifier(S.self)] = service
        return e
    }
}
