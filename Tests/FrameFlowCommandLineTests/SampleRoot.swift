import FrameFlowArguments

/// A root command with a subcommand, `help` and a version, for the parser's tests.
struct SampleRoot: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "tool", abstract: "a sample tool", subcommands: [SampleCommand.self, HelpCommand.self], version: "tool 1.2.3")
    }
}
