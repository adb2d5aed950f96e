import Foundation

/// What a full input queue does when another packet arrives.
public enum QueuePolicy: String, Sendable, Codable, CaseIterable {
    /// The producer waits (is not scheduled; `send` blocks) until there is room.
    case block = "BLOCK"
    /// The oldest queued packet is dropped (and counted) to make room.
    case dropOldest = "DROP_OLDEST"
    /// Only the newest packet is kept: the queue holds one packet, older ones are dropped.
    case keepLatest = "KEEP_LATEST"
}

/// How a node decides that it can run: MediaPipe's input stream handlers.
public enum InputPolicy: Sendable, Equatable {
    /// `DefaultInputStreamHandler`: run at timestamp T once every input has a packet at T or
    /// has moved its bound past T; inputs without a packet at T arrive empty.
    case `default`
    /// `ImmediateInputStreamHandler`: run as soon as any input has a packet, one timestamp at
    /// a time, without waiting for the other inputs.
    case immediate
    /// `SyncSetInputStreamHandler`: each set of inputs (written `TAG`, `TAG:index` or `:index`)
    /// is synchronized as by the default policy on its own; a step carries one set's packets.
    /// Inputs in no set form one more set.
    case syncSets([[String]])
    /// `FixedSizeInputStreamHandler`: the default policy, but a queue that reaches
    /// `triggerQueueSize` packets is cut to its newest `targetQueueSize` (older packets of
    /// every input are dropped and counted), so a slow node works on recent packets.
    case fixedSize(triggerQueueSize: Int = 2, targetQueueSize: Int = 1, fixedMinSize: Bool = false)

    /// MediaPipe's name for the handler.
    public var handlerName: String {
        switch self {
        case .default: "DefaultInputStreamHandler"
        case .immediate: "ImmediateInputStreamHandler"
        case .syncSets: "SyncSetInputStreamHandler"
        case .fixedSize: "FixedSizeInputStreamHandler"
        }
    }
}

/// Per-input settings: `input_stream_info { tag_index: "FINISHED" back_edge: true }`.
public struct InputStreamInfo: Sendable {
    /// The port, as `TAG`, `TAG:index` or the stream's index for untagged ports.
    public var tagIndex: String
    /// Whether this input closes a loop (it is left out of cycle checks and readiness).
    public var backEdge: Bool
    /// FrameFlow extension: this edge's queue policy.
    public var queuePolicy: QueuePolicy?
    /// FrameFlow extension: this edge's queue size.
    public var maxQueueSize: Int?
    /// Where the setting is written in its graph file.
    public var location: SourceLocation?

    /// Settings for the input at `tagIndex`.
    public init(tagIndex: String, backEdge: Bool = false, queuePolicy: QueuePolicy? = nil, maxQueueSize: Int? = nil) {
        self.tagIndex = tagIndex
        self.backEdge = backEdge
        self.queuePolicy = queuePolicy
        self.maxQueueSize = maxQueueSize
    }
}

/// The options of a node, as read from a file or given in code.
public enum NodeOptions: Sendable {
    /// From a graph file: the extension's type name (`mediapipe.FlowLimiterCalculatorOptions`)
    /// and its fields.
    case text(typeName: String, TextMessage)
    /// From Swift code: a value of the calculator's `Options` type.
    case value(any CalculatorOptions)
}

/// One node of a graph: the calculator it runs and how its ports bind to streams.
public struct NodeConfig: Sendable {
    /// The calculator's registered name (`SobelEdgesCalculator`).
    public var calculator: String
    /// The node's name; `displayName` falls back to the calculator's name.
    public var name: String?
    /// The input streams, as `TAG:index:name` references.
    public var inputStreams: [StreamRef] = []
    /// The output streams.
    public var outputStreams: [StreamRef] = []
    /// The input side packets.
    public var inputSidePackets: [StreamRef] = []
    /// The output side packets.
    public var outputSidePackets: [StreamRef] = []
    /// The calculator's options; `nil` gives the defaults.
    public var options: NodeOptions?
    /// How inputs are grouped into calls (`input_stream_handler`); `nil` takes the graph's or the contract's.
    public var inputPolicy: InputPolicy?
    /// Per-input settings (`input_stream_info`): back edges, queue policies and sizes.
    public var inputStreamInfo: [InputStreamInfo] = []
    /// Queue size for this node's inputs (overrides the graph's).
    public var maxQueueSize: Int?
    /// Queue policy for this node's inputs (overrides the graph's).
    public var queuePolicy: QueuePolicy?
    /// How many timestamps the node may process at once (FrameFlow extension
    /// `concurrency`; `nil` means 1). Above 1 the calculator's contract must allow it
    /// (`concurrentProcess`); outputs still leave in timestamp order. For a stage slower than
    /// the rest of the graph, such as a model's inference: two frames on two cores instead of
    /// one frame split across both.
    public var concurrency: Int?
    /// Where the node starts in its graph file.
    public var location: SourceLocation?
    /// The calculator type, when the node was built in Swift (no registry lookup needed).
    public var calculatorType: (any Calculator.Type)? {
        get { calculatorTypeBox?.type }
        set { calculatorTypeBox = newValue.map(CalculatorTypeBox.init) }
    }
    /// `calculatorType`, stored in a `Sendable` box.
    package var calculatorTypeBox: CalculatorTypeBox?
    /// `option_value: "node_field:graph_field"`: fields of the node's options taken from the
    /// enclosing subgraph's graph options (field paths joined by `/`).
    public var optionValues: [OptionValue] = []
    /// For a node that came from a subgraph: where the subgraph was used, innermost first.
    public var usedAt: [SourceLocation] = []

    /// A node running the calculator registered as `calculator`, with no ports yet.
    public init(calculator: String, name: String? = nil) {
        self.calculator = calculator
        self.name = name
    }
}

/// `option_value: "node_field:graph_field"` of a node inside a subgraph.
public struct OptionValue: Sendable {
    /// The field path in the node's options.
    public var nodeField: String
    /// The field path in the subgraph's graph options.
    public var graphField: String
    /// Where the `option_value` is written.
    public var location: SourceLocation?
}

/// A calculator type carried in a config. Metatypes are immutable, so sharing is safe.
package struct CalculatorTypeBox: @unchecked Sendable {
    package let type: any Calculator.Type
    package init(_ type: any Calculator.Type) { self.type = type }
}

/// A whole graph: its input and output streams, side packets, nodes and scheduling
/// settings. Read from MediaPipe's text format (`GraphConfig(parsing:)`) or built with the
/// Swift DSL (`GraphConfig { … }`).
public struct GraphConfig: Sendable {
    /// The graph's input streams, fed with `Graph.send`.
    public var inputStreams: [StreamRef] = []
    /// The graph's output streams.
    public var outputStreams: [StreamRef] = []
    /// Side packets the caller gives to `Graph.start(sidePackets:)`.
    public var inputSidePackets: [StreamRef] = []
    /// Side packets the graph's nodes produce, read with `Graph.outputSidePacket(_:)`.
    public var outputSidePackets: [StreamRef] = []
    /// The nodes, in the order written.
    public var nodes: [NodeConfig] = []
    /// Default queue size of every input (`max_queue_size`); `nil` means 100.
    public var maxQueueSize: Int?
    /// Default queue policy (FrameFlow extension `queue_policy`); `nil` means `.block`.
    public var queuePolicy: QueuePolicy?
    /// Worker threads (`num_threads`); `nil` means one per core.
    public var numThreads: Int?
    /// Default input policy of nodes.
    public var inputPolicy: InputPolicy?
    /// FrameFlow extension: at most this many frames inside the graph; `send` drops more.
    public var maxFramesInFlight: Int?
    /// The file the config was read from.
    public var file: String?
    /// The subgraph name this graph registers (`type:`), if any.
    public var type: String?
    /// The options type and defaults nodes can read through `option_value` (`graph_options`).
    public var graphOptions: NodeOptions?
    /// Where `type:` is written.
    public var typeLocation: SourceLocation?

    /// An empty graph, to fill in code.
    public init() {}

    /// Reads a graph file: MediaPipe's text format (`.pbtxt`), or a serialized
    /// `CalculatorGraphConfig` (`.binarypb`, or any file that cannot be text), which decodes to
    /// the same config as its text form. Binary options are decoded with `registry.schemas`
    /// (`ProtoSchemaRegistry.mediaPipe` without a registry); `limits` bound the nesting.
    public init(contentsOfFile path: String, registry: CalculatorRegistry? = nil, limits: ResourceLimits = ResourceLimits()) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GraphError(.syntax, "cannot read graph file", location: SourceLocation(file: path, line: 0, column: 0))
        }
        let bytes = [UInt8](data)
        if path.hasSuffix(".binarypb") {
            try self.init(binary: bytes, file: path, registry: registry, limits: limits)
        } else if BinaryGraph.looksBinary(bytes) {
            do {
                try self.init(binary: bytes, file: path, registry: registry, limits: limits)
            } catch let e as GraphError where e.kind == .syntax {
                // Neither: a text file with a stray byte is reported as text at that byte (or as
                // neither, when it is not even UTF-8), not as a broken binary only.
                if String(validating: bytes, as: UTF8.self) == nil {
                    throw GraphError(
                        .syntax, "graph file is neither UTF-8 text nor a binary CalculatorGraphConfig (read as binary: \(e.message))",
                        location: e.location)
                }
                guard let (line, column, byte) = Self.firstControlByte(bytes) else { throw e }
                throw GraphError(
                    .syntax, String(format: "control character 0x%02X in graph text (nor is the file a binary graph: ", byte) + e.message + ")",
                    location: SourceLocation(file: path, line: line, column: column))
            }
        } else {
            try self.init(parsing: String(decoding: bytes, as: UTF8.self), file: path, limits: limits)
        }
    }

    /// The line, column and value of the first byte below 32 other than tab, CR and LF (or 127).
    static func firstControlByte(_ bytes: [UInt8]) -> (Int, Int, UInt8)? {
        var line = 1
        var column = 1
        for b in bytes {
            if b == 10 {
                line += 1
                column = 1
                continue
            }
            if (b < 32 && b != 9 && b != 13) || b == 127 { return (line, column, b) }
            if b & 0xC0 != 0x80 { column += 1 }  // columns count characters, not UTF-8 continuation bytes
        }
        return nil
    }

    /// Decodes a serialized `CalculatorGraphConfig` (MediaPipe's `.binarypb`): the same config
    /// as the graph's text form. Options, `node_options` and `graph_options` are decoded with
    /// `registry.schemas` (`ProtoSchemaRegistry.mediaPipe` without a registry); a type
    /// without a schema, and corrupt or truncated bytes, are errors naming `file` and the byte.
    public init(
        binary bytes: [UInt8], file: String? = nil, registry: CalculatorRegistry? = nil, limits: ResourceLimits = ResourceLimits()
    ) throws {
        let schemas = registry?.schemas ?? .mediaPipe
        try self.init(message: try BinaryGraph.decode(bytes, file: file, schemas: schemas, limits: limits))
        self.file = file
    }

    /// Parses a graph from MediaPipe's `CalculatorGraphConfig` text format; messages nest at
    /// most `limits.maxNestingDepth` deep.
    public init(parsing text: String, file: String? = nil, limits: ResourceLimits = ResourceLimits()) throws {
        let message = try TextFormatParser.parse(text, file: file, limits: limits)
        try self.init(message: message)
        self.file = file
    }

    /// Builds a config from a parsed text-format message.
    public init(message: TextMessage) throws {
        for f in message.fields {
            switch f.name {
            case "input_stream": inputStreams.append(try f.streamRef())
            case "output_stream": outputStreams.append(try f.streamRef())
            case "input_side_packet": inputSidePackets.append(try f.streamRef())
            case "output_side_packet": outputSidePackets.append(try f.streamRef())
            case "node": nodes.append(try NodeConfig(field: f))
            case "max_queue_size": maxQueueSize = try f.int()
            case "num_threads": numThreads = try f.int()
            case "queue_policy": queuePolicy = try f.enumValue(QueuePolicy.self)
            case "max_frames_in_flight": maxFramesInFlight = try f.int()
            case "input_stream_handler": inputPolicy = try f.inputPolicy()
            case "type":
                type = try f.string()
                typeLocation = f.location
            case "graph_options":
                try f.forEachExtension(notExtension: { _ in "'graph_options' holds extensions written as [type.name] { … }" }) { e, body in
                    graphOptions = .text(typeName: NodeConfig.optionsTypeName(e.name), body)
                }
            case "package", "profiler_config", "executor", "report_deadlock":
                _ = f  // accepted and ignored: they do not change how FrameFlow runs the graph
            default:
                throw f.unknown(in: "CalculatorGraphConfig")
            }
        }
    }
}

extension NodeConfig {
    init(field: TextField) throws {
        guard case .message(let m) = field.value.kind else {
            throw GraphError(.syntax, "'node' must be a message { … }", location: field.value.location)
        }
        self.init(calculator: "")
        location = field.location
        var sawCalculator = false
        for f in m.fields {
            switch f.name {
            case "calculator":
                calculator = try f.string()
                sawCalculator = true
            case "name": name = try f.string()
            case "input_stream": inputStreams.append(try f.streamRef())
            case "output_stream": outputStreams.append(try f.streamRef())
            case "input_side_packet": inputSidePackets.append(try f.streamRef())
            case "output_side_packet": outputSidePackets.append(try f.streamRef())
            case "options", "node_options":
                let notExtension = { (e: TextField) in "'\(f.name)' holds extensions written as [type.name] { … }, not field '\(e.name)'" }
                try f.forEachExtension(notExtension: notExtension) { ext, body in
                    guard options == nil else {
                        throw GraphError(.syntax, "a node takes one options message", location: ext.location)
                    }
                    options = .text(typeName: Self.optionsTypeName(ext.name), body)
                }
            case "option_value":
                let text = try f.string()
                let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw GraphError(.syntax, "option_value must be \"node_field:graph_field\", not \"\(text)\"", location: f.value.location)
                }
                optionValues.append(OptionValue(nodeField: parts[0], graphField: parts[1], location: f.value.location))
            case "input_stream_handler": inputPolicy = try f.inputPolicy()
            case "input_stream_info":
                guard case .message(let im) = f.value.kind else {
                    throw GraphError(.syntax, "'input_stream_info' must be a message { … }", location: f.value.location)
                }
                var info = InputStreamInfo(tagIndex: "")
                info.location = f.location
                for g in im.fields {
                    switch g.name {
                    case "tag_index": info.tagIndex = try g.string()
                    case "back_edge": info.backEdge = try g.bool()
                    case "queue_policy": info.queuePolicy = try g.enumValue(QueuePolicy.self)
                    case "max_queue_size": info.maxQueueSize = try g.int()
                    default: throw g.unknown(in: "InputStreamInfo")
                    }
                }
                inputStreamInfo.append(info)
            case "max_queue_size": maxQueueSize = try f.int()
            case "queue_policy": queuePolicy = try f.enumValue(QueuePolicy.self)
            case "concurrency": concurrency = try f.int()
            case "executor", "output_stream_handler", "source_layer", "buffer_size_hint", "max_in_flight",
                "profiler_config", "external_input":
                _ = f  // accepted for compatibility; FrameFlow schedules without them
            default:
                throw f.unknown(in: "node")
            }
        }
        guard sawCalculator, !calculator.isEmpty else {
            throw GraphError(.syntax, "node has no 'calculator' field", location: field.location)
        }
    }

    /// `mediapipe.XOptions.ext` and `type.googleapis.com/mediapipe.XOptions` both name
    /// `mediapipe.XOptions`.
    static func optionsTypeName(_ raw: String) -> String {
        var s = Substring(raw)
        if let slash = s.lastIndex(of: "/") { s = s[s.index(after: slash)...] }
        if s.hasSuffix(".ext") { s = s.dropLast(4) }
        return String(s)
    }

    /// The name errors and traces use: `name`, or the calculator's.
    public var displayName: String { name ?? calculator }
}

extension TextField {
    /// Calls `body` with each `[type.name] { … }` entry of this message field (`options`,
    /// `node_options`, `graph_options`, handler options); any other entry is the error `notExtension(entry)`.
    func forEachExtension(notExtension: (TextField) -> String, _ body: (TextField, TextMessage) throws -> Void) throws {
        guard case .message(let m) = value.kind else {
            throw GraphError(.syntax, "'\(name)' must be a message { … }", location: value.location)
        }
        for ext in m.fields {
            guard ext.isExtension, case .message(let message) = ext.value.kind else {
                throw GraphError(.syntax, notExtension(ext), location: ext.location)
            }
            try body(ext, message)
        }
    }

    func unknown(in message: String) -> GraphError {
        GraphError(.unknownField, "unknown field '\(name)' in \(message)", location: location)
    }

    func string() throws -> String {
        guard case .string(let s) = value.kind else {
            throw GraphError(.syntax, "field '\(name)' needs a quoted string", location: value.location)
        }
        return s
    }

    func streamRef() throws -> StreamRef {
        try StreamRef(parsing: try string(), location: value.location)
    }

    func int() throws -> Int {
        guard case .number(let n) = value.kind, let d = TextFormatParser.numberValue(n), d == d.rounded(),
            abs(d) < 9.0e15
        else {
            throw GraphError(.syntax, "field '\(name)' needs an integer", location: value.location)
        }
        return Int(d)
    }

    func bool() throws -> Bool {
        switch value.kind {
        case .identifier("true"), .number("1"): return true
        case .identifier("false"), .number("0"): return false
        default: throw GraphError(.syntax, "field '\(name)' needs true or false", location: value.location)
        }
    }

    func enumValue<E: RawRepresentable>(_: E.Type) throws -> E where E.RawValue == String, E: CaseIterable {
        if case .identifier(let s) = value.kind, let e = E(rawValue: s) { return e }
        if case .string(let s) = value.kind, let e = E(rawValue: s) { return e }
        let names = E.allCases.map(\.rawValue).joined(separator: ", ")
        throw GraphError(.syntax, "field '\(name)' must be one of \(names)", location: value.location)
    }

    /// `input_stream_handler { input_stream_handler: "…" options { [mediapipe.…Options.ext] { … } } }`.
    func inputPolicy() throws -> InputPolicy {
        guard case .message(let m) = value.kind else {
            throw GraphError(.syntax, "'input_stream_handler' must be a message { … }", location: value.location)
        }
        var name = "DefaultInputStreamHandler"
        var nameField: TextField?
        var options: TextMessage?
        for f in m.fields {
            switch f.name {
            case "input_stream_handler":
                name = try f.string()
                nameField = f
            case "options":
                try f.forEachExtension(notExtension: { _ in "handler options are extensions written as [type.name] { … }" }) { _, body in
                    options = body
                }
            default: throw f.unknown(in: "InputStreamHandlerConfig")
            }
        }
        switch name {
        case "DefaultInputStreamHandler": return .default
        case "ImmediateInputStreamHandler": return .immediate
        case "SyncSetInputStreamHandler":
            var sets: [[String]] = []
            for f in options?.fields ?? [] {
                guard f.name == "sync_set", case .message(let set) = f.value.kind else { throw f.unknown(in: "SyncSetInputStreamHandlerOptions") }
                var tags: [String] = []
                for t in set.fields {
                    guard t.name == "tag_index" else { throw t.unknown(in: "SyncSet") }
                    tags.append(try t.string())
                }
                guard !tags.isEmpty else { throw GraphError(.syntax, "a sync_set needs at least one tag_index", location: f.location) }
                sets.append(tags)
            }
            return .syncSets(sets)
        case "FixedSizeInputStreamHandler":
            var trigger = 2, target = 1, fixedMin = false
            for f in options?.fields ?? [] {
                switch f.name {
                case "trigger_queue_size": trigger = try f.int()
                case "target_queue_size": target = try f.int()
                case "fixed_min_size": fixedMin = try f.bool()
                default: throw f.unknown(in: "FixedSizeInputStreamHandlerOptions")
                }
            }
            guard target >= 1, trigger > target else {
                throw GraphError(
                    .invalidOption, "FixedSizeInputStreamHandler needs target_queue_size ≥ 1 and trigger_queue_size above it (\(trigger), \(target))",
                    location: options?.location ?? value.location)
            }
            return .fixedSize(triggerQueueSize: trigger, targetQueueSize: target, fixedMinSize: fixedMin)
        default:
            throw GraphError(
                .unknownField,
                "unknown input stream handler '\(name)' (FrameFlow knows DefaultInputStreamHandler, ImmediateInputStreamHandler, SyncSetInputStreamHandler, FixedSizeInputStreamHandler)",
                location: nameField?.value.location ?? value.location)
        }
    }
}
