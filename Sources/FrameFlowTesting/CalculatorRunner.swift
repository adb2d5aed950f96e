import FrameFlow
import Synchronization

/// Drives one calculator in isolation, as MediaPipe's `CalculatorRunner`: add timestamped
/// packets per input port, run, read what each output port produced.
///
/// ```swift
/// let runner = try CalculatorRunner(SobelEdgesCalculator.self, inputs: ["in"], outputs: ["out"])
/// runner.add(image, at: 0)
/// try runner.run()
/// let edges = try runner.outputs()[0].get(ImageFrame.self)
/// ```
///
/// The node runs inside a real one-node graph (one worker thread), so scheduling,
/// readiness and timestamp checks are those of production.
///
/// Step mode, as swift-nio's `EmbeddedChannel`: push packets at a timestamp, run until the
/// node is idle, read what came out, and `finish()` to close the inputs and learn which
/// outputs nobody read:
///
/// ```swift
/// try runner.start()
/// try runner.push(image, at: 0)
/// try runner.runUntilIdle()
/// let first = runner.takeOutputs()        // what timestamp 0 produced
/// try runner.push(image, at: 1)
/// #expect(try runner.finish().isClean)    // every output packet was read
/// ```
public final class CalculatorRunner {
    private var node: NodeConfig
    private var inputs: [(ref: StreamRef, packets: [Packet])]
    private let outputRefs: [StreamRef]
    private var sidePackets: [String: any Sendable] = [:]
    private let collected = PacketStore()
    /// The running graph in step mode.
    private var stepGraph: Graph?
    /// The environment the node's graph runs with (resource roots, limits).
    public var environment = GraphEnvironment()

    /// A runner for `type` with ports written as in graph files (`"IMAGE:frame"`).
    public init<C: Calculator>(
        _ type: C.Type, options: C.Options? = nil, inputs: [String] = [], outputs: [String] = [],
        sideInputs: [String] = [], backEdges: [String] = []
    ) throws {
        node = NodeConfig(calculator: C.name, name: C.name)
        node.calculatorType = type
        if let options { node.options = .value(options) }
        node.inputStreams = try inputs.map { try StreamRef(parsing: $0) }
        node.outputStreams = try outputs.map { try StreamRef(parsing: $0) }
        node.inputSidePackets = try sideInputs.map { try StreamRef(parsing: $0) }
        for b in backEdges { node.inputStreamInfo.append(InputStreamInfo(tagIndex: b, backEdge: true)) }
        self.inputs = node.inputStreams.map { ($0, []) }
        outputRefs = node.outputStreams
    }

    /// A runner for a node written in graph-file text: `node { calculator: … }` or just
    /// its body.
    public init(node text: String, registry: CalculatorRegistry) throws {
        let body = text.contains("node") && text.contains("{") ? text : "node { \(text) }"
        let config = try GraphConfig(parsing: body)
        guard config.nodes.count == 1 else { throw GraphError(.syntax, "expected exactly one node") }
        node = config.nodes[0]
        if let t = registry.calculator(named: node.calculator) { node.calculatorType = t }
        inputs = node.inputStreams.map { ($0, []) }
        outputRefs = node.outputStreams
    }

    /// Queues `value` on input `tag:index` at `timestamp`.
    public func add(_ value: any Sendable, tag: String = "", index: Int = 0, at timestamp: Timestamp) {
        let ref = inputRef(tag, index)
        let i = inputs.firstIndex { $0.ref == ref }!
        inputs[i].packets.append(Packet(value, at: timestamp))
    }

    /// Sets input side packet `name` (as bound in the node).
    public func setSidePacket(_ value: any Sendable, tag: String = "", index: Int = 0) {
        guard let ref = node.inputSidePackets.first(where: { $0.tag == tag && $0.index == index }) else {
            preconditionFailure("CalculatorRunner: no side packet \(tag):\(index)")
        }
        sidePackets[ref.name] = value
    }

    /// Runs the node over every queued packet (in timestamp order), closes its inputs and
    /// waits for it to finish. Throws the calculator's error.
    public func run() throws {
        let graph = try makeGraph()
        var all: [(String, Packet)] = []
        var seen = Set<String>()
        for (ref, packets) in inputs where !seen.contains(ref.name) {
            seen.insert(ref.name)
            all += packets.map { (ref.name, $0) }
        }
        all.sort { $0.1.timestamp < $1.1.timestamp }
        do {
            for (name, p) in all { try graph.send(p, to: name) }
            try graph.closeAllInputStreams()
        } catch {
            if let e = graph.error { throw e }
            throw error
        }
        try graph.waitUntilDone()
    }

    /// A one-node graph around the node, its outputs collected, started.
    private func makeGraph() throws -> Graph {
        collected.removeAll()
        var config = GraphConfig()
        config.numThreads = 1
        config.maxQueueSize = 0  // unbounded: the runner feeds everything up front
        config.inputStreams = uniqueNames(inputs.map(\.ref))
        config.inputSidePackets = node.inputSidePackets
        config.nodes = [node]
        let graph = try Graph(config, environment: environment)
        for ref in outputRefs {
            let name = ref.name
            try graph.observe(name) { [collected] p in collected.append(p, to: name) }
        }
        try graph.start(sidePackets: sidePackets)
        return graph
    }

    // MARK: Step mode

    /// What `finish()` found: output packets produced but never taken.
    public struct LeftOvers: Sendable {
        /// Unread packets by output stream name.
        public var unread: [String: [Packet]]
        /// Whether every output packet was taken.
        public var isClean: Bool { unread.values.allSatisfy(\.isEmpty) }
    }

    /// Opens the node (side packets set before) for `push` / `runUntilIdle`.
    public func start() throws {
        precondition(stepGraph == nil, "CalculatorRunner: start() called twice")
        stepGraph = try makeGraph()
    }

    /// Sends `value` at `timestamp` into input `tag:index` of the running node.
    public func push(_ value: any Sendable, tag: String = "", index: Int = 0, at timestamp: Timestamp) throws {
        guard let graph = stepGraph else { preconditionFailure("CalculatorRunner: push before start()") }
        try graph.send(Packet(value, at: timestamp), to: inputRef(tag, index).name)
    }

    /// Tells the node that input `tag:index` will carry nothing below `timestamp`.
    public func setBound(_ timestamp: Timestamp, tag: String = "", index: Int = 0) throws {
        guard let graph = stepGraph else { preconditionFailure("CalculatorRunner: setBound before start()") }
        try graph.setTimestampBound(timestamp, on: inputRef(tag, index).name)
    }

    /// Closes one input stream of a started runner.
    public func close(_ tag: String = "", index: Int = 0) throws {
        guard let graph = stepGraph else { preconditionFailure("CalculatorRunner: close before start()") }
        try graph.closeInputStream(inputRef(tag, index).name)
    }

    /// Waits until the node has processed everything it can; throws its error.
    public func runUntilIdle() throws {
        guard let graph = stepGraph else { preconditionFailure("CalculatorRunner: runUntilIdle before start()") }
        try graph.waitUntilIdle()
    }

    /// The packets output `tag:index` produced since the last take, removed.
    public func takeOutputs(_ tag: String = "", _ index: Int = 0) -> [Packet] {
        guard let ref = outputRef(tag, index) else { return [] }
        return collected.take(ref.name)
    }

    /// Closes the inputs, waits for the node to close, and reports the output packets that
    /// were never taken (`isClean` when there are none). Throws the node's error.
    @discardableResult
    public func finish() throws -> LeftOvers {
        guard let graph = stepGraph else { preconditionFailure("CalculatorRunner: finish before start()") }
        stepGraph = nil
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        var unread: [String: [Packet]] = [:]
        for ref in outputRefs { unread[ref.name] = collected.take(ref.name) }
        return LeftOvers(unread: unread)
    }

    private func inputRef(_ tag: String, _ index: Int) -> StreamRef {
        guard
            let i = inputs.firstIndex(where: { $0.ref.tag == tag && $0.ref.index == index })
                ?? (tag.isEmpty ? inputs.indices.filter({ inputs[$0].ref.tag.isEmpty }).dropFirst(index).first : nil)
        else { preconditionFailure("CalculatorRunner: no input \(tag):\(index)") }
        return inputs[i].ref
    }

    private func outputRef(_ tag: String, _ index: Int) -> StreamRef? {
        outputRefs.first(where: { $0.tag == tag && $0.index == index })
            ?? (tag.isEmpty ? outputRefs.filter({ $0.tag.isEmpty }).dropFirst(index).first : nil)
    }

    private func uniqueNames(_ refs: [StreamRef]) -> [StreamRef] {
        var seen = Set<String>()
        return refs.compactMap { seen.insert($0.name).inserted ? StreamRef(name: $0.name) : nil }
    }

    /// The packets output `tag:index` produced in the last `run`.
    public func outputs(_ tag: String = "", _ index: Int = 0) -> [Packet] {
        guard let ref = outputRef(tag, index) else { return [] }
        return collected.packets(ref.name)
    }
}

/// Collects every packet of a stream of a running graph (MediaPipe's vector sink).
///
/// ```swift
/// let out = try PacketCollector(graph, "output_video")
/// try graph.start(); …; try graph.waitUntilDone()
/// print(out.packets.count)
/// ```
public final class PacketCollector: Sendable {
    private let store = Locked<[Packet]>([])
    private let closed = Locked<Bool>(false)

    /// Starts collecting `stream` of `graph` (call before `start`).
    public init(_ graph: Graph, _ stream: String) throws {
        try graph.observe(stream, onClose: { [self] in closed.withLock { $0 = true } }) { [self] p in
            store.withLock { $0.append(p) }
        }
    }

    /// The packets so far.
    public var packets: [Packet] { store.withLock { $0 } }
    /// Their timestamps.
    public var timestamps: [Timestamp] { packets.map(\.timestamp) }
    /// Whether the stream has closed.
    public var isClosed: Bool { closed.withLock { $0 } }
    /// Forgets the packets collected so far.
    public func clear() { store.withLock { $0.removeAll() } }
}

/// Packets by stream name, shared with observer callbacks.
final class PacketStore: Sendable {
    private let m = Locked<[String: [Packet]]>([:])
    func append(_ p: Packet, to name: String) { m.withLock { $0[name, default: []].append(p) } }
    func removeAll() { m.withLock { $0.removeAll() } }
    func packets(_ name: String) -> [Packet] { m.withLock { $0[name] ?? [] } }
    func take(_ name: String) -> [Packet] { m.withLock { $0.removeValue(forKey: name) ?? [] } }
}
