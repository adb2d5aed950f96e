/// A place in a graph file: file name, 1-based line and column.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file's path, or `nil` for text that came from a string.
    public var file: String?
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int

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
        case syntax, unknownField, unknownCalculator, invalidOption, unknownOption
        case noProducer, multipleProducers, typeMismatch, cycle, invalidPort, invalidStreamName
        case missingSidePacket, unknownStream, unknownNode, duplicateNodeName, timestampOrder, invalidTimestamp
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

    public init(
        _ kind: Kind, _ message: String, node: String? = nil, stream: String? = nil,
        location: SourceLocation? = nil, underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.node = node
        self.stream = stream
        self.location = location
        self.underlying = underlying
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
    public init(_ errors: [GraphError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
