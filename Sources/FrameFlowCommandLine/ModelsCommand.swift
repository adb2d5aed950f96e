import FrameFlow
import FrameFlowArguments

/// `frameflow models`: the per-user model folder (`fetch`, `list`, `path`), which the other
/// commands look in after `--resource-root`.
public struct ModelsCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "models", abstract: "fetch and list MediaPipe's models in the per-user model folder",
            discussion: """
                The folder is $FRAMEFLOW_MODELS, else $XDG_CACHE_HOME/frameflow/models, else ~/.cache/frameflow/models.
                run, validate, batch and fleet look there for relative model paths after --resource-root.
                Nothing is downloaded by a graph run: only `frameflow models fetch` downloads.
                """,
            subcommands: [ModelsFetchCommand.self, ModelsListCommand.self, ModelsPathCommand.self])
    }

    public init() {}
}

/// `frameflow models path`: the model folder.
public struct ModelsPathCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "path", abstract: "print the model folder")
    }

    public init() {}

    @MainActor public func run() throws { print(GraphEnvironment.userModelFolder()) }
}
