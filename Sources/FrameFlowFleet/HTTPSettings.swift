import FrameFlow

/// A fleet file's `http { listen: "127.0.0.1:8080" }` block: where the fleet's HTTP API
/// listens. The address is checked by whoever serves it (`frameflow fleet`).
public struct HTTPSettings: Sendable, Equatable {
    /// `HOST:PORT`; the default, 127.0.0.1:8080, is reachable only from this machine.
    public var listen = "127.0.0.1:8080"
    /// Where `listen` is written in the file.
    public var location: SourceLocation?

    /// The default settings.
    public init() {}
}
