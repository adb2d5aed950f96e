import FrameFlow
import FrameFlowArguments

/// `frameflow subgraphs`: the built-in subgraphs' names, one a line.
public struct SubgraphsCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "subgraphs", abstract: "list the built-in subgraphs")
    }

    public init() {}

    @MainActor public func run() throws {
        for name in try CalculatorRegistry.commandLine().subgraphNames { print(name) }
    }
}
