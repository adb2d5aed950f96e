import Synchronization

/// Finds calculators by the names graph files use (`SobelEdgesCalculator`).
///
/// `FrameFlowCalculators` provides `CalculatorRegistry.standard` with every built-in
/// calculator; add your own with `register(_:)`.
///
/// ```swift
/// let registry = CalculatorRegistry()
/// registry.register(MyCalculator.self)
/// let graph = try Graph(config, registry: registry)
/// ```
public final class CalculatorRegistry: Sendable {
    private let entries = Locked<[String: CalculatorTypeBox]>([:])

    /// An empty registry.
    public init() {}

    /// A registry holding `types`.
    public init(_ types: [any Calculator.Type]) {
        for t in types { register(t) }
    }

    /// A registry with this one's calculators and `types` (later names win).
    public func adding(_ types: [any Calculator.Type]) -> CalculatorRegistry {
        let r = CalculatorRegistry(entries.withLock { $0.values.map(\.type) })
        for t in types { r.register(t) }
        return r
    }

    /// Registers `type` under its `name` (and any `aliases`, e.g. MediaPipe's names).
    public func register(_ type: any Calculator.Type, aliases: [String] = []) {
        entries.withLock { e in
            e[type.name] = CalculatorTypeBox(type)
            for a in aliases { e[a] = CalculatorTypeBox(type) }
        }
    }

    /// The calculator registered as `name`.
    public func calculator(named name: String) -> (any Calculator.Type)? {
        entries.withLock { $0[name]?.type }
    }

    /// Every registered name, sorted.
    public var names: [String] { entries.withLock { $0.keys.sorted() } }

    /// The registered name closest to `name`, for "did you mean" hints.
    public func suggestion(for name: String) -> String? { nearest(name, in: names) }
}
