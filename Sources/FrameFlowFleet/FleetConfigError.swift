import FrameFlow

/// A fleet file that cannot be run: bad text, an unknown field, a missing or repeated value.
///
/// The description names the file, line and column, as graph files' errors do:
///
///     cameras.fleet:12:3: camera 'door': 'source' is missing
public struct FleetConfigError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, without the location.
    public var message: String
    /// Where in the fleet file (or the graph file it names) the problem is.
    public var location: SourceLocation?

    /// An error saying `message` at `location`.
    public init(_ message: String, at location: SourceLocation?) {
        self.message = message
        self.location = location
    }

    public var description: String {
        guard let location else { return message }
        return "\(location): \(message)"
    }
}
