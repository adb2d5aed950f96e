/// How a command ends early: help or a version asked for (status 0, printed to standard
/// output), bad arguments (status 2) or a failure (status 1), with the text to print.
/// Parsing and `ParsableCommand.run()` throw it instead of calling `exit`, so that tests can
/// run commands in process; `ParsableCommand.main` prints it and exits with its status.
public struct ExitRequest: Error, Equatable, CustomStringConvertible {
    /// The process exit status.
    public var status: Int32
    /// What to print: the help text, or the error message.
    public var message: String

    /// An exit with `status` and `message`.
    public init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// Help or a version: status 0, `text` to standard output.
    public static func help(_ text: String) -> ExitRequest { ExitRequest(status: 0, message: text) }

    /// Bad arguments: status 2.
    public static func usage(_ message: String) -> ExitRequest { ExitRequest(status: 2, message: message) }

    /// A failure: status 1 unless given.
    public static func failure(_ message: String, status: Int32 = 1) -> ExitRequest { ExitRequest(status: status, message: message) }

    /// True for a request that is not an error (help, version): printed to standard output.
    public var isSuccess: Bool { status == 0 }

    public var description: String { message }
}
