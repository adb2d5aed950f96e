import FrameFlow
import FrameFlowArguments

/// `frameflow`: validate, inspect and run FrameFlow graphs. Its subcommands are the tool's
/// commands; `frameflow --version` prints the build and kernel level.
public struct FrameFlowCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "frameflow", abstract: "validate, inspect and run FrameFlow graphs",
            discussion: """
                run, validate, graph, batch and fleet take --subgraph FILE (named by its type:), --subgraph NAME=FILE
                and --graph-path DIR (every .pbtxt there with a type:) to register subgraphs.

                exit status of run and demo: 0 complete, 1 error, 2 bad arguments, 3 interrupted (Ctrl-C or
                SIGTERM; outputs finalized), 4 no frame read from the input
                """,
            subcommands: [
                DemoCommand.self, RunCommand.self, BatchCommand.self, FleetCommand.self, ValidateCommand.self, GraphCommand.self,
                SubgraphsCommand.self, SolutionsCommand.self, TaskCommand.self, CalculatorsCommand.self, ModelsCommand.self,
                ONNXConformanceCommand.self,
                VersionCommand.self,
                HelpCommand.self,
            ],
            version: frameFlowBuildDescription)
    }

    public init() {}
}
