import Foundation

/// A command: its configuration, its declared arguments, and what it does.
///
/// ```swift
/// struct Validate: ParsableCommand {
///     static var configuration: CommandConfiguration {
///         CommandConfiguration(commandName: "validate", abstract: "check a graph file")
///     }
///     @Argument(valueName: "GRAPH", help: "the graph file") var graph: String
///     @Flag(help: "print the expanded graph too") var expanded = false
///     func run() throws { … }
/// }
/// ```
public protocol ParsableCommand: ParsableArguments {
    /// Its name, help and subcommands.
    static var configuration: CommandConfiguration { get }
    /// Does the work; throws `ExitRequest` for an exit status other than 0 or 1 and any other
    /// error for a failure (status 1). A command with subcommands and nothing of its own to do
    /// keeps the default, which asks for a subcommand.
    @MainActor mutating func run() throws
}

extension ParsableCommand {
    @MainActor public mutating func run() throws {
        throw ExitRequest.usage(HelpGenerator.help(for: [Self.self]))
    }

    /// Parses `arguments` (without the executable's name) from this root command down to the
    /// command they select, and returns that command, filled and validated; throws
    /// `ExitRequest` for help, a version or bad arguments.
    public static func parseAsRoot(_ arguments: [String]) throws -> any ParsableCommand {
        try CommandParser(root: Self.self).parse(arguments)
    }

    /// Parses `arguments` for this command alone (no subcommands looked up).
    public static func parse(_ arguments: [String]) throws -> Self {
        let parsed = try CommandParser(root: Self.self).parseCommand(path: [Self.self], arguments: arguments)
        guard let command = parsed as? Self else { throw ExitRequest.failure("internal: parsed a different command") }
        return command
    }

    /// The help text, for `--help`.
    public static func helpMessage() -> String { HelpGenerator.help(for: [Self.self]) }

    /// The executable's entry: parses the process's arguments, runs the command, prints an
    /// `ExitRequest`'s message (standard output for help, standard error otherwise) or any other
    /// error's description, and exits with the status.
    @MainActor public static func main(_ arguments: [String]? = nil) -> Never {
        let status = runToStatus(arguments ?? Array(CommandLine.arguments.dropFirst()))
        exit(status)
    }

    /// Parses and runs `arguments` like `main`, returning the exit status instead of exiting.
    @MainActor public static func runToStatus(_ arguments: [String]) -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            return 0
        } catch let request as ExitRequest {
            if request.isSuccess {
                print(request.message)
            } else if !request.message.isEmpty {  // empty: the command has said why already
                FileHandle.standardError.write(Data((request.message + "\n").utf8))
            }
            return request.status
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return 1
        }
    }
}
