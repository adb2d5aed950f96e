import FrameFlow
import FrameFlowArguments

/// `frameflow validate GRAPH`: loads the graph; prints "ok", or throws its errors (status 1).
public struct ValidateCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "validate", abstract: "check a graph file; prints \"ok\" or the errors (exit 1)")
    }

    /// The graph file.
    @Argument(valueName: "GRAPH", help: "the graph file (.pbtxt)") public var graph: String
    /// Subgraphs, resource root, image limit.
    @OptionGroup public var subgraphs: SubgraphOptions

    public init() {}

    @MainActor public func run() throws {
        let registry = try CalculatorRegistry.commandLine()
        let environment = try subgraphs.apply(to: registry)
        do {
            _ = try Graph(contentsOfFile: GraphFiles.locate(graph), registry: registry, environment: environment)
        } catch {
            throw SubgraphOptions.explainingMissingModels(error)
        }
        print("ok")
    }
}
