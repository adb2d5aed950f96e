import Foundation
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
    private let subgraphs = Locked<[String: GraphConfig]>([:])
    /// The protobuf schemas binary graphs are decoded with: MediaPipe's graph-only options
    /// types and the options of every calculator registered here.
    public let schemas = ProtoSchemaRegistry.mediaPipe

    /// An empty registry.
    public init() {}

    /// A registry holding `types`.
    public init(_ types: [any Calculator.Type]) {
        for t in types { register(t) }
    }

    /// A registry with this one's calculators (aliases too), subgraphs and `types` (later
    /// names win).
    public func adding(_ types: [any Calculator.Type]) -> CalculatorRegistry {
        let r = CalculatorRegistry()
        let mine = entries.withLock { $0 }
        r.entries.withLock { $0 = mine }
        for box in mine.values { r.schemas.register(optionsOf: box.type) }
        r.subgraphs.withLock { $0 = subgraphs.withLock { $0 } }
        for t in types { r.register(t) }
        return r
    }

    /// Registers `type` under its `name`, its own `aliases` and any `aliases` given here
    /// (e.g. MediaPipe's names).
    public func register(_ type: any Calculator.Type, aliases: [String] = []) {
        entries.withLock { e in
            e[type.name] = CalculatorTypeBox(type)
            for a in type.aliases + aliases { e[a] = CalculatorTypeBox(type) }
        }
        // Binary graphs decode this calculator's options by its proto field numbers.
        schemas.register(optionsOf: type)
    }

    /// The calculator registered as `name`.
    public func calculator(named name: String) -> (any Calculator.Type)? {
        entries.withLock { $0[name]?.type }
    }

    /// Every registered calculator name, sorted.
    public var names: [String] { entries.withLock { $0.keys.sorted() } }

    /// The registered calculator or subgraph name closest to `name`, for "did you mean" hints.
    public func suggestion(for name: String) -> String? { nearestName(to: name, in: names + subgraphNames) }

    // MARK: Subgraphs

    /// Registers a subgraph: nodes whose `calculator` is `name` (default: the graph's
    /// `type:`) are replaced by its nodes when a graph is built, as MediaPipe does.
    public func registerSubgraph(_ config: GraphConfig, as name: String? = nil) throws {
        guard let name = name ?? config.type, !name.isEmpty else {
            throw GraphError(
                .syntax, "a subgraph needs a name: a type: \"…\" line in its file, or NAME=FILE",
                location: SourceLocation(file: config.file, line: 1, column: 1))
        }
        subgraphs.withLock { $0[name] = config }
    }

    /// Registers the subgraph in graph file `path`.
    public func registerSubgraph(contentsOfFile path: String, as name: String? = nil) throws {
        try registerSubgraph(try GraphConfig(contentsOfFile: path, registry: self), as: name)
    }

    /// Registers every graph file in `directory` (`.pbtxt`, `.binarypb`) that declares a `type:`.
    public func registerSubgraphs(inDirectory directory: String) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        for file in names where file.hasSuffix(".pbtxt") || file.hasSuffix(".binarypb") {
            let config = try GraphConfig(contentsOfFile: (directory as NSString).appendingPathComponent(file), registry: self)
            if config.type != nil { try registerSubgraph(config) }
        }
    }

    /// The subgraph registered as `name`.
    public func subgraph(named name: String) -> GraphConfig? { subgraphs.withLock { $0[name] } }

    /// Every registered subgraph name, sorted.
    public var subgraphNames: [String] { subgraphs.withLock { $0.keys.sorted() } }
}
