/// A value that parsed but is not acceptable, thrown by `ParsableCommand.validate()`;
/// reported like a parsing error: the message, the command's usage line, status 2.
public struct ValidationError: Error, CustomStringConvertible {
    /// What is wrong, naming the option.
    public var message: String

    /// A validation error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
