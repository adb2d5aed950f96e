import Foundation
import Synchronization

/// A runnable calculator graph: the central object of FrameFlow.
///
/// The lifecycle mirrors MediaPipe's `CalculatorGraph` and the iOS `MPPGraph`:
///
/// ```swift
/// let graph = try Graph(GraphConfig(contentsOfFile: "Graphs/edge_detection_mobile_gpu.pbtxt"),
///                       registry: .standard)
/// graph.maxFramesInFlight = 2                      // drop instead of queueing
/// try graph.observe("output_video") { packet in … } // callbacks on a worker thread
/// try graph.start()                                // before the source starts
/// for (i, frame) in frames.enumerated() {
///     _ = try graph.send(frame, to: "input_video", at: Timestamp(Int64(i) * 33_333))
/// }
/// try graph.closeAllInputStreams()
/// try graph.waitUntilDone()                         // throws the first error, naming the node
/// ```
///
/// Threading: every method may be called from any thread. Output callbacks run on the
/// graph's workers, one call at a time per stream, in timestamp order.
public final class Graph: Sendable {
    /// The configuration the graph was built from.
    public let config: GraphConfig
    /// `config` with every subgraph node replaced by the subgraph's nodes.
    public let expandedConfig: GraphConfig
    /// Where the graph's calculators find their files, and the limits they check.
    public let environment: GraphEnvironment
    let resolved: ResolvedGraph

    private struct State: @unchecked Sendable {  // runtime is itself thread-safe
        var runtime: GraphRuntime?
        var observers: [String: [GraphRuntime.Observer]] = [:]
        var maxFramesInFlight: Int
        var pendingOptions: [String: any CalculatorOptions] = [:]
        var tracing = false
        var lastRun: GraphRuntime?
    }
    private let state: Locked<State>

    /// Validates `config` and prepares the graph.
    ///
    /// - Parameters:
    ///   - config: the graph to run.
    ///   - registry: where calculators named in the config are looked up (nodes built in
    ///     Swift carry their type and need no registry).
    ///   - environment: resource roots, limits and services for this graph's calculators.
    /// - Throws: `GraphErrors` listing every problem, each naming the node, the stream,
    ///   and for graph files the line and column.
    public init(
        _ config: GraphConfig, registry: CalculatorRegistry = CalculatorRegistry(), environment: GraphEnvironment = GraphEnvironment()
    ) throws {
        self.config = config
        self.environment = environment
        self.expandedConfig = try SubgraphExpansion.expand(config, registry: registry, limits: environment.limits)
        self.resolved = try GraphValidator.resolve(expandedConfig, registry: registry)
        state = Locked(State(maxFramesInFlight: config.maxFramesInFlight ?? 0))
    }

    /// Convenience: parse a graph file and validate it.
    public convenience init(
        contentsOfFile path: String, registry: CalculatorRegistry = CalculatorRegistry(), environment: GraphEnvironment = GraphEnvironment()
    ) throws {
        try self.init(
            try GraphConfig(contentsOfFile: path, registry: registry, limits: environment.limits), registry: registry,
            environment: environment)
    }

    deinit {
        state.withLock { $0.runtime?.cancel() }
    }

    /// Node names, in the order of the config.
    public var nodeNames: [String] { resolved.nodes.map(\.name) }

    /// At most this many frames may be inside the graph at once; `send` rejects more
    /// (returns false) instead of queueing them, like `MPPGraph.maxFramesInFlight`.
    /// A frame sent at T leaves when every graph output stream has moved past T.
    /// 0 (the default) means no limit. Set it before `start`.
    public var maxFramesInFlight: Int {
        get { state.withLock { $0.maxFramesInFlight } }
        set { state.withLock { $0.maxFramesInFlight = newValue } }
    }

    /// Records a trace of every calculator call for `chromeTrace()`. Set before `start`.
    public var isTracing: Bool {
        get { state.withLock { $0.tracing } }
        set { state.withLock { $0.tracing = newValue } }
    }

    // MARK: Observing outputs

    /// Calls `callback` with every packet of `stream` (any stream of the graph), on a
    /// worker thread, in timestamp order. Register before `start`.
    public func observe(
        _ stream: String, onClose: (@Sendable () -> Void)? = nil, _ callback: @escaping @Sendable (Packet) -> Void
    ) throws {
        guard resolved.producers[stream] != nil else {
            throw GraphError(.unknownStream, "no such stream (streams: \(resolved.producers.keys.sorted().joined(separator: ", ")))", stream: stream)
        }
        try state.withLock { s in
            guard s.runtime == nil else { throw GraphError(.alreadyStarted, "observe before start()", stream: stream) }
            s.observers[stream, default: []].append(GraphRuntime.Observer(onPacket: callback, onClose: onClose))
        }
    }

    /// The packets of `stream` as an async sequence that ends when the stream closes.
    /// At most `bufferSize` packets wait for the consumer; beyond that the graph waits too
    /// (back-pressure), so no packet is lost and memory stays bounded. Register before `start`.
    public func packets(_ stream: String, bufferSize: Int = 16) throws -> PacketStream {
        let sequence = PacketStream(capacity: bufferSize)
        let buffer = sequence.buffer
        try observe(stream, onClose: { buffer.finish() }) { buffer.push($0) }
        return sequence
    }

    // MARK: Running

    /// Opens every node and starts the workers. Call before the source starts sending.
    ///
    /// - Parameter sidePackets: values for the graph's input side packets, by name.
    public func start(sidePackets: [String: any Sendable] = [:]) throws {
        try start(sidePackets: sidePackets, pool: nil)
    }

    /// Opens every node and runs the graph on `pool`, a worker pool that other graphs may
    /// share (a fleet of cameras in one process): the pool serves its graphs in rotation, so
    /// none starves while another is busy, and `parallelFor` and model inference split work
    /// across its workers. The graph's `num_threads` is not used. When the run ends (done,
    /// failed or cancelled) it leaves the pool, which keeps running: its owner shuts it down
    /// once every graph on it has ended.
    ///
    /// ```swift
    /// let pool = WorkerPool(threads: 2)
    /// try cameraA.start(on: pool)
    /// try cameraB.start(on: pool)
    /// ```
    ///
    /// - Parameters:
    ///   - sidePackets: values for the graph's input side packets, by name.
    ///   - pool: the workers that run the graph's nodes.
    public func start(sidePackets: [String: any Sendable] = [:], on pool: WorkerPool) throws {
        try start(sidePackets: sidePackets, pool: Optional(pool))
    }

    private func start(sidePackets: [String: any Sendable], pool: WorkerPool?) throws {
        let rt = try state.withLock { s in
            if let r = s.runtime, !r.isDone {
                throw GraphError(.alreadyStarted, "the graph is already running")
            }
            let rt = try GraphRuntime.build(
                resolved, config: config, observers: s.observers, options: s.pendingOptions,
                maxFramesInFlight: s.maxFramesInFlight, tracing: s.tracing, pool: pool, environment: environment)
            s.runtime = rt
            s.lastRun = rt
            return rt
        }
        do {
            try rt.start(sidePackets: sidePackets)
        } catch {
            state.withLock { $0.runtime = nil }
            throw error
        }
    }

    private func runtime(_ what: String) throws -> GraphRuntime {
        guard let rt = state.withLock({ $0.runtime }) else {
            throw GraphError(.notStarted, "\(what) needs a started graph; call start() first")
        }
        return rt
    }

    private func inputStream(_ rt: GraphRuntime, _ name: String) throws -> Int {
        guard let s = rt.inputStream(named: name) else {
            let inputs = config.inputStreams.map(\.name).joined(separator: ", ")
            throw GraphError(.unknownStream, "not an input stream of the graph (inputs: \(inputs.isEmpty ? "none" : inputs))", stream: name)
        }
        return s
    }

    /// Sends `packet` into graph input stream `stream`.
    ///
    /// While no worker is running a step and every ready step is measured short (under 20 µs),
    /// the calling thread runs them itself (a few per node at most), so calculators and
    /// observers may run on it; long or unmeasured steps always go to the workers. A graph
    /// started on a shared pool (`start(on:)`) never does: its nodes run on the pool's threads.
    ///
    /// - Returns: false when the frame was dropped because `maxFramesInFlight` frames are
    ///   already inside the graph; true when it was accepted.
    /// - Throws: when the graph is not running, the stream is unknown or closed, or the
    ///   timestamp does not increase (the error gives both timestamps).
    @discardableResult
    public func send(_ packet: Packet, to stream: String) throws -> Bool {
        let rt = try runtime("send")
        return try rt.send(packet, stream: try inputStream(rt, stream))
    }

    /// Sends `value` at `timestamp` into graph input stream `stream`.
    @discardableResult
    public func send(_ value: any Sendable, to stream: String, at timestamp: Timestamp) throws -> Bool {
        try send(Packet(value, at: timestamp), to: stream)
    }

    /// Tells the graph that input `stream` will send nothing below `timestamp`, so nodes
    /// waiting on it can proceed.
    public func setTimestampBound(_ timestamp: Timestamp, on stream: String) throws {
        let rt = try runtime("setTimestampBound")
        rt.setBound(try inputStream(rt, stream), to: timestamp)
    }

    /// Closes one graph input stream.
    public func closeInputStream(_ stream: String) throws {
        let rt = try runtime("closeInputStream")
        rt.closeInput(try inputStream(rt, stream))
    }

    /// Closes every graph input stream; nodes close as their inputs drain.
    public func closeAllInputStreams() throws {
        let rt = try runtime("closeAllInputStreams")
        for s in rt.inputStreams { rt.closeInput(s) }
    }

    /// Waits until no node is running or ready to run. Throws the run's error, if any.
    public func waitUntilIdle() throws {
        try runtime("waitUntilIdle").waitUntilIdle()
    }

    /// Waits until every node has closed (after `closeAllInputStreams`, an error, or
    /// `cancel`). Throws the first error, naming the node, or `.cancelled`.
    public func waitUntilDone() throws {
        try runtime("waitUntilDone").waitUntilDone()
    }

    /// Like `waitUntilDone()` but gives up after `seconds`; returns whether the graph is
    /// done. Does not throw the run's error: see `error`.
    public func waitUntilDone(timeout seconds: Double) throws -> Bool {
        try runtime("waitUntilDone").waitUntilDone(seconds: seconds)
    }

    /// The first error of the current or last run.
    public var error: GraphError? {
        state.withLock { $0.lastRun }?.error
    }

    /// Stops the run as soon as possible: queued packets are dropped, nodes are closed,
    /// running calls finish. Returns without waiting; `waitUntilDone` then throws
    /// `.cancelled`.
    public func cancel() {
        state.withLock { $0.runtime }?.cancel()
    }

    /// Changes the options of node `node` while the graph runs (or before it starts).
    /// The running calculator's `update(options:)` receives them between two timestamps,
    /// never in the middle of a frame.
    public func setOptions(_ options: any CalculatorOptions, forNode node: String) throws {
        guard let i = resolved.nodes.firstIndex(where: { $0.name == node }) else {
            throw GraphError(.unknownNode, "no node named '\(node)' (nodes: \(nodeNames.joined(separator: ", ")))", node: node)
        }
        let n = resolved.nodes[i]
        func check<C: Calculator>(_ t: C.Type) throws {
            guard options is C.Options else {
                throw GraphError(.invalidOption, "options of type \(type(of: options)) given, \(C.name) takes \(C.Options.self)", node: node)
            }
        }
        try check(n.type)
        try options.validate(node: node, location: nil)
        let rt = state.withLock { s -> GraphRuntime? in
            s.pendingOptions[node] = options
            return s.runtime
        }
        rt?.setPendingOptions(options, node: i)
    }

    /// The payload types the nodes reading input side packet `name` declare for it (for
    /// converting a value given as text, such as `frameflow run --side NAME=VALUE`).
    public func inputSidePacketTypes(named name: String) -> [PayloadType] {
        resolved.nodes.flatMap { n in
            n.config.inputSidePackets.filter { $0.name == name }.compactMap { ref in
                n.contract.inputSidePackets.first { $0.tag == ref.tag }?.type
            }
        }
    }

    /// The options node `node` runs with: decoded from the graph file, or the latest
    /// given to `setOptions`.
    public func options(ofNode node: String) -> (any CalculatorOptions)? {
        if let o = state.withLock({ $0.pendingOptions[node] }) { return o }
        return resolved.nodes.first { $0.name == node }?.options
    }

    /// An output side packet of the current or last run, by name.
    public func outputSidePacket(_ name: String) -> Packet? {
        state.withLock { $0.lastRun }?.sidePacket(named: name)
    }

    /// Counters of the current or last run.
    public var statistics: GraphStatistics {
        state.withLock { $0.lastRun }?.statistics() ?? GraphStatistics(nodes: [], framesRejected: 0, packetsSent: 0)
    }

    /// The recorded trace as Chrome trace JSON (set `isTracing` before `start`).
    public func chromeTrace() -> Data {
        state.withLock { $0.lastRun }?.chromeTrace() ?? Data()
    }
}

/// Per-node counters.
public struct NodeStatistics: Sendable {
    /// The node's name.
    public var name: String
    /// How many times `process` ran.
    public var calls: Int
    /// Seconds spent in `process`, summed over calls.
    public var busySeconds: Double
    /// Packets dropped from this node's input queues by drop-oldest / keep-latest.
    public var dropped: Int
    /// The most packets that waited in one of the node's input queues.
    public var maxQueueDepth: Int
    /// Whether this is the sink of a graph output or observer.
    public var isOutput: Bool
    /// Every process call's duration, for a node whose calculator runs a model
    /// (`CalculatorContract.runsModel`); nil for the others. Its `count` equals `calls`.
    public var latency: LatencyHistogram? = nil
}

/// Counters of a run.
public struct GraphStatistics: Sendable {
    /// Every node's counters.
    public var nodes: [NodeStatistics]
    /// Frames `send` refused because of `maxFramesInFlight`.
    public var framesRejected: Int
    /// Packets accepted by `send`.
    public var packetsSent: Int
    /// All packets dropped inside the graph: by queue policies and by calculators that drop
    /// on purpose (`CalculatorContext.countDropped`).
    public var droppedInQueues: Int { nodes.reduce(0) { $0 + $1.dropped } }
}

/// The node behind each observed stream: calls the observers in timestamp order.
final class ObserverSink: Calculator {
    static let contract = CalculatorContract(inputs: [PortSpec("")], timestampOffset: nil)
    let callbacks: [@Sendable (Packet) -> Void]
    let closers: [@Sendable () -> Void]

    init(callbacks: [@Sendable (Packet) -> Void], closers: [@Sendable () -> Void]) {
        self.callbacks = callbacks
        self.closers = closers
    }
    init(options: NoOptions) {
        callbacks = []
        closers = []
    }
    func process(_ cc: CalculatorContext) throws {
        let p = cc.input(at: 0)
        guard !p.isEmpty else { return }
        for c in callbacks { c(p) }
    }
    func close(_ cc: CalculatorContext) throws {
        for c in closers { c() }
    }
}
