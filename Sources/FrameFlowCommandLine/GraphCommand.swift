import FrameFlow
import FrameFlowArguments
import Foundation

/// `frameflow graph GRAPH --dot [--expanded]`: the graph in Graphviz DOT; GRAPH may name a
/// built-in subgraph.
public struct GraphCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "graph", abstract: "print the graph in Graphviz DOT",
            discussion: "GRAPH may name a built-in subgraph (FaceLandmarkFrontCpu; frameflow subgraphs lists them).")
    }

    /// The graph file or built-in subgraph name.
    @Argument(valueName: "GRAPH", help: "the graph file, or the name of a built-in subgraph") public var graph: String
    /// `--dot`: the only output format, required.
    @Flag(help: "print Graphviz DOT (required)") public var dot = false
    /// `--expanded`.
    @Flag(help: "replace subgraphs by their nodes") public var expanded = false
    /// Subgraphs, resource root, image limit.
    @OptionGroup public var subgraphs: SubgraphOptions

    public init() {}

    public func validate() throws {
        guard dot else { throw ValidationError("--dot is required (the only output format)") }
    }

    @MainActor public func run() throws {
        let registry = try CalculatorRegistry.commandLine()
        let environment = try subgraphs.apply(to: registry)
        // A built-in subgraph's name (FaceLandmarkFrontCpu) shows that graph, unless a file has the name.
        let graph = GraphFiles.locate(self.graph)
        let exists = FileManager.default.fileExists(atPath: graph)
        let builtIn = exists ? nil : registry.subgraph(named: graph)
        if builtIn == nil && !exists && !graph.contains("/") && !graph.contains(".") {
            let hint = registry.suggestion(for: graph).map { " (did you mean \($0)?)" } ?? ""
            throw ExitRequest.failure("\(graph): no such graph file, nor a built-in subgraph of that name\(hint); frameflow subgraphs lists them")
        }
        let loaded =
            try builtIn.map { try Graph($0, registry: registry, environment: environment) }
            ?? Graph(contentsOfFile: graph, registry: registry, environment: environment)
        let config = expanded ? loaded.expandedConfig : loaded.config
        print(config.dot(name: URL(fileURLWithPath: graph).deletingPathExtension().lastPathComponent), terminator: "")
    }
}
