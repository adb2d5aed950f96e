/// A piece of a graph written in Swift: an input, an output, a node, a setting.
public protocol GraphComponent {
    /// Adds the piece to `config`.
    func apply(to config: inout GraphConfig) throws
}

/// Builds graphs in Swift code, the same `GraphConfig` a graph file gives:
///
/// ```swift
/// let graph = try Graph {
///     Input("input_video")
///     Output("output_video")
///     Node(LuminanceCalculator.self, in: "input_video", out: "luma_video")
///     Node(SobelEdgesCalculator.self, in: "luma_video", out: "output_video")
/// }
/// ```
@resultBuilder
public enum GraphBuilder {
    /// One component.
    public static func buildExpression(_ c: any GraphComponent) -> [any GraphComponent] { [c] }
    /// The components of a block, in order.
    public static func buildBlock(_ parts: [any GraphComponent]...) -> [any GraphComponent] { parts.flatMap { $0 } }
    /// The components of an `if` without `else`, when taken.
    public static func buildOptional(_ part: [any GraphComponent]?) -> [any GraphComponent] { part ?? [] }
    /// The components of an `if`'s first branch.
    public static func buildEither(first: [any GraphComponent]) -> [any GraphComponent] { first }
    /// The components of an `if`'s `else` branch.
    public static func buildEither(second: [any GraphComponent]) -> [any GraphComponent] { second }
    /// The components of a `for` loop, in order.
    public static func buildArray(_ parts: [[any GraphComponent]]) -> [any GraphComponent] { parts.flatMap { $0 } }
}

extension GraphConfig {
    /// A config built from DSL components.
    public init(@GraphBuilder _ content: () -> [any GraphComponent]) throws {
        self.init()
        for c in content() { try c.apply(to: &self) }
    }
}

extension Graph {
    /// Builds and validates a graph from DSL components.
    public convenience init(
        registry: CalculatorRegistry = CalculatorRegistry(), @GraphBuilder _ content: () -> [any GraphComponent]
    ) throws {
        try self.init(try GraphConfig(content), registry: registry)
    }
}

/// A graph input stream (`input_stream: "name"`).
public struct Input: GraphComponent {
    let name: String
    /// The stream or side packet `name` (`TAG:index:name`, `TAG:name` or `name`).
    public init(_ name: String) { self.name = name }
    /// Adds it to `config`.
    public func apply(to config: inout GraphConfig) throws {
        config.inputStreams.append(try StreamRef(parsing: name))
    }
}

/// A graph output stream (`output_stream: "name"`).
public struct Output: GraphComponent {
    let name: String
    /// The stream or side packet `name` (`TAG:index:name`, `TAG:name` or `name`).
    public init(_ name: String) { self.name = name }
    /// Adds it to `config`.
    public func apply(to config: inout GraphConfig) throws {
        config.outputStreams.append(try StreamRef(parsing: name))
    }
}

/// A graph input side packet (`input_side_packet: "name"`).
public struct SidePacket: GraphComponent {
    let name: String
    /// The stream or side packet `name` (`TAG:index:name`, `TAG:name` or `name`).
    public init(_ name: String) { self.name = name }
    /// Adds it to `config`.
    public func apply(to config: inout GraphConfig) throws {
        config.inputSidePackets.append(try StreamRef(parsing: name))
    }
}

/// Graph-wide scheduling settings.
public struct Settings: GraphComponent {
    var maxQueueSize: Int?
    var queuePolicy: QueuePolicy?
    var numThreads: Int?
    var maxFramesInFlight: Int?
    /// Settings; those left `nil` keep the graph's (see `GraphConfig`).
    public init(maxQueueSize: Int? = nil, queuePolicy: QueuePolicy? = nil, numThreads: Int? = nil, maxFramesInFlight: Int? = nil) {
        self.maxQueueSize = maxQueueSize
        self.queuePolicy = queuePolicy
        self.numThreads = numThreads
        self.maxFramesInFlight = maxFramesInFlight
    }
    /// Adds it to `config`.
    public func apply(to config: inout GraphConfig) throws {
        if let maxQueueSize { config.maxQueueSize = maxQueueSize }
        if let queuePolicy { config.queuePolicy = queuePolicy }
        if let numThreads { config.numThreads = numThreads }
        if let maxFramesInFlight { config.maxFramesInFlight = maxFramesInFlight }
    }
}

/// A node running calculator `C`, with its ports written as in graph files
/// (`"TAG:index:name"`, `"TAG:name"` or `"name"`).
///
/// ```swift
/// Node(FlowLimiterCalculator.self, name: "limiter",
///      in: ["input_video", "FINISHED:output_video"], out: ["throttled_video"],
///      options: .init(maxInFlight: 1), backEdges: ["FINISHED"])
/// ```
///
/// `concurrency: 2` lets the node process two timestamps at once (graph files:
/// `concurrency: 2`), for calculators whose contract allows it (`concurrentProcess`), such as
/// `InferenceCalculator`; outputs still leave in timestamp order (`NodeConfig.concurrency`).
public struct Node<C: Calculator>: GraphComponent {
    var config: NodeConfig
    var refs: (ins: [String], outs: [String], sideIns: [String], sideOuts: [String])
    var backEdges: [String]

    /// A node of calculator `type`, its ports as graph files write them; `backEdges` lists the tags of inputs that close a loop.
    public init(
        _ type: C.Type, name: String? = nil, in inputs: [String] = [], out outputs: [String] = [],
        sideIn: [String] = [], sideOut: [String] = [], options: C.Options? = nil, backEdges: [String] = [],
        inputPolicy: InputPolicy? = nil, queuePolicy: QueuePolicy? = nil, maxQueueSize: Int? = nil, concurrency: Int? = nil
    ) {
        config = NodeConfig(calculator: C.name, name: name)
        config.calculatorType = type
        if let options { config.options = .value(options) }
        config.inputPolicy = inputPolicy
        config.queuePolicy = queuePolicy
        config.maxQueueSize = maxQueueSize
        config.concurrency = concurrency
        refs = (inputs, outputs, sideIn, sideOut)
        self.backEdges = backEdges
    }

    /// A node with one input and one output stream.
    public init(_ type: C.Type, name: String? = nil, in input: String, out output: String, options: C.Options? = nil) {
        self.init(type, name: name, in: [input], out: [output], options: options)
    }

    /// Sets one input edge's queue (e.g. keep only the newest frame for a slow detector).
    public func queue(_ tagIndex: String, policy: QueuePolicy, size: Int? = nil) -> Node {
        var n = self
        var info = InputStreamInfo(tagIndex: tagIndex, queuePolicy: policy, maxQueueSize: size)
        info.location = nil
        n.config.inputStreamInfo.append(info)
        return n
    }

    /// Adds the node to `graph`.
    public func apply(to graph: inout GraphConfig) throws {
        var c = config
        c.inputStreams = try refs.ins.map { try StreamRef(parsing: $0) }
        c.outputStreams = try refs.outs.map { try StreamRef(parsing: $0) }
        c.inputSidePackets = try refs.sideIns.map { try StreamRef(parsing: $0) }
        c.outputSidePackets = try refs.sideOuts.map { try StreamRef(parsing: $0) }
        for b in backEdges { c.inputStreamInfo.append(InputStreamInfo(tagIndex: b, backEdge: true)) }
        graph.nodes.append(c)
    }
}
