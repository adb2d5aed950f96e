/// `help [COMMAND…]`: the help of the root or of the named subcommand. The parser answers it
/// (it knows the root); list it among a root's subcommands to have it.
public struct HelpCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "help", abstract: "show the help of a command")
    }

    /// The command path whose help to show.
    @Argument(valueName: "COMMAND", help: "the command to describe") public var command: [String] = []

    public init() {}

    @MainActor public func run() throws {
        throw ExitRequest.usage("help is answered while parsing; call parseAsRoot on the root command")
    }
}
