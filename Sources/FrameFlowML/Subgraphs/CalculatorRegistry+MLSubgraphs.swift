import FrameFlow
import FrameFlowInference

extension CalculatorRegistry {
    /// FrameFlowML's built-in subgraphs (MediaPipe's face detection family, …), by the names
    /// MediaPipe registers them under: the `.pbtxt` files in `Sources/FrameFlowML/Subgraphs/Graphs`,
    /// each under its `type:`, embedded in the library (`BuiltInGraphFiles`), so a copied binary
    /// needs no resource files beside it.
    public static func mlSubgraphs() throws -> [(name: String, config: GraphConfig)] {
        try BuiltInGraphFiles.files.map { file, bytes in
            let config = try GraphConfig(parsing: String(decoding: bytes, as: UTF8.self), file: "<built-in \(file)>")
            guard let name = config.type else {
                throw GraphError(.syntax, "built-in graph \(file) has no type: line", location: SourceLocation(file: file, line: 1, column: 1))
            }
            return (name, config)
        }
    }

    /// The text of the built-in subgraph named `name` (its `.pbtxt` file), or nil.
    public static func mlSubgraphText(named name: String) -> String? {
        BuiltInGraphFiles.files.lazy.map { String(decoding: $0.bytes, as: UTF8.self) }.first { $0.contains("\ntype: \"\(name)\"\n") }
    }

    /// Registers `mlSubgraphs()` (a registered subgraph of the same name is replaced).
    public func registerMLSubgraphs() throws {
        for (name, config) in try Self.mlSubgraphs() { try registerSubgraph(config, as: name) }
    }

    /// The standard calculators, FrameFlowML's calculators and its built-in subgraphs.
    public static func withML() throws -> CalculatorRegistry {
        let r = CalculatorRegistry.standard.adding(mlCalculators)
        try r.registerMLSubgraphs()
        return r
    }
}
