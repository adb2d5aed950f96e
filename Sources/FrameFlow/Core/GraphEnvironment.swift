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
