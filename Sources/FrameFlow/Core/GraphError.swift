/// A place in a graph file: file name, 1-based line and column.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file's path, or `nil` for text that came from a string.
    public var file: String?
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int

    /// The place at `line`, `column` of `file`.
    public init(file: String? = nil, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file ?? "<graph>"):\(line):\(column)" }
}

/// Every error the graph engine raises: building, validating and running a graph.
///
/// Each error says what went wrong and, where they exist, names the node, the stream,
/// and for graph files the line and column:
///
///     edge.pbtxt:14:3: node 'SobelEdgesCalculator': stream 'luma': no node produces this stream
public struct GraphError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; tests and tools switch on it.
    public enum Kind: String, Sendable {
        /// Reading a graph: bad text or bytes, an unknown field, calculator or options type, an option value out of range.
        case syntax, unknownField, unknownCalculator, invalidOption, unknownOption
        /// Connecting streams: a stream without or with several producers, mismatched types, a cycle without a back edge, a bad port or stream name.
        case noProducer, multipleProducers, typeMismatch, cycle, invalidPort, invalidStreamName
        /// Running: a side packet not given, an unknown stream or node, a repeated node name, timestamps out of order or out of range.
        case missingSidePacket, unknownStream, unknownNode, duplicateNodeName, timestampOrder, invalidTimestamp
        /// The run: a calculator threw, the run was cancelled, the graph is not started or already started, a stream is closed, or
        /// the call does not fit the graph's state.
        case calculatorFailed, cancelled, notStarted, alreadyStarted, closed, invalidState
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The human-readable explanation (without node, stream and location, which
    /// `description` adds).
    public var message: String
    /// The node concerned, by name.
    public var node: String?
    /// The stream or side packet concerned.
    public var stream: String?
    /// Where in the graph file.
    public var location: SourceLocation?
    /// The error a calculator threw, for `.calculatorFailed`.
    public var underlying: (any Error)?
    /// For a node that came from a subgraph: where the subgraph was used, innermost first.
    public var usedAt: [SourceLocation] = []
    /// What the failure is about where callers act on it rather than only show it (a model
    /// file to fetch); `GraphError.cause(of:)` finds it through the errors that wrap this one.
    public var cause: Cause?

    /// What a failure is about, beyond its kind, where callers act on it: `frameflow` offers
    /// to fetch a missing model, the Tasks API throws `TaskError.modelAsset`.
    public enum Cause: Sendable, Hashable {
        /// A file the graph reads — a model, a `.task` bundle, labels, a model's metadata — is
        /// not there or cannot be read: its path as the graph names it.
        case missingFile(path: String)
        /// A model asset was read but cannot be used: not a model, a damaged bundle, a bundle
        /// without the entry the graph asks for. `asset` names the file (and entry).
        case invalidModelAsset(asset: String)
    }

    /// An error of `kind` saying `message`, naming what it concerns.
    public init(
        _ kind: Kind, _ message: String, node: String? = nil, stream: String? = nil,
        location: SourceLocation? = nil, underlying: (any Error)? = nil, cause: Cause? = nil
    ) {
        self.kind = kind
        self.message = message
        self.node = node
        self.stream = stream
        self.location = location
        self.underlying = underlying
        self.cause = cause
    }

    /// The cause of `error`: its own, else the first found in the errors it wraps
    /// (`underlying`, the errors of a `GraphErrors`, and theirs); nil when none has one.
    public static func cause(of error: any Error) -> Cause? {
        switch error {
        case let e as GraphError: e.cause ?? e.underlying.flatMap { cause(of: $0) }
        case let e as GraphErrors: e.errors.lazy.compactMap { cause(of: $0) }.first
        default: nil
        }
    }

    public var description: String {
        var parts: [String] = []
        if let location { parts.append("\(location)") }
        if let node { parts.append("node '\(node)'") }
        if let stream { parts.append("stream '\(stream)'") }
        parts.append(message)
        let text = parts.joined(separator: ": ")
        return usedAt.isEmpty ? text : text + " (in a subgraph used at " + usedAt.map(\.description).joined(separator: ", used at ") + ")"
    }
}

/// Several errors found at once, e.g. by validation. Its description lists them, one a line.
public struct GraphErrors: Error, Sendable, CustomStringConvertible {
    /// The errors, in the order they were found.
    public var errors: [GraphError]
    /// The errors `errors`, in order.
    public init(_ errors: [GraphError]) { self.errors = errors }
    /// The first `shownLimit` errors, one a line, then how many more there are (a generated
    /// graph with 100 000 dangling streams gives a screenful, not megabytes).
    public var description: String {
        var lines = errors.prefix(Self.shownLimit).map(\.description)
        if errors.count > Self.shownLimit { lines.append("… and \(errors.count - Self.shownLimit) more errors") }
        return lines.joined(separator: "\n")
    }

    /// How many errors `description` lists.
    public static let shownLimit = 20
}
