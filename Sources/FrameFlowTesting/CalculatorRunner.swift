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
public final class CalculatorRunner {
    private var node: NodeConfig
    private var inputs: [(ref: StreamRef, packets: [Packet])]
    private let outputRefs: [StreamRef]
    private var sidePackets: [String: any Sendable] = [:]
    private let collected = PacketStore()

    /// A runner for `type` with ports written as in graph files (`"IMAGE:frame"`).
    public init<C: Calculator>(
        _ type: C.Type, options: C.Options? = nil, inputs: [String] = [], outputs: [String] = [],
        sideInputs: [String] = [], backEdges: [String] = []
    ) throws {
        node = NodeConfig(calculator: C.name, name: C.name)
        node.calculatorType = CalculatorTypeBox(type)
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
        if let t = registry.calculator(named: node.calculator) { node.calculatorType = CalculatorTypeBox(t) }
        inputs = node.inputStreams.map { ($0, []) }
        outputRefs = node.outputStreams
    }

    /// Queues `value` on input `tag:index` at `timestamp`.
    public func add(_ value: any Sendable, tag: String = "", index: Int = 0, at timestamp: Timestamp) {
        guard let i = inputs.firstIndex(where: { $0.ref.tag == tag && $0.ref.index == index })
                ?? (tag.isEmpty ? inputs.indices.filter({ inputs[$0].ref.tag.isEmpty }).dropFirst(index).first : nil)
        else { preconditionFailure("CalculatorRunner: no input \(tag):\(index)") }
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
        collected.removeAll()
        var config = GraphConfig()
        config.numThreads = 1
        config.maxQueueSize = 0  // unbounded: the runner feeds everything up front
        config.inputStreams = uniqueNames(inputs.map(\.ref))
        config.inputSidePackets = node.inputSidePackets
        config.nodes = [node]
        let graph = try Graph(config)
        for ref in outputRefs {
            let name = ref.name
            try graph.observe(name) { [collected] p in collected.append(p, to: name) }
        }
        try graph.start(sidePackets: sidePackets)
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

    private func uniqueNames(_ refs: [StreamRef]) -> [StreamRef] {
        var seen = Set<String>()
        return refs.compactMap { seen.insert($0.name).inserted ? StreamRef(name: $0.name) : nil }
    }

    /// The packets output `tag:index` produced in the last `run`.
    public func outputs(_ tag: String = "", _ index: Int = 0) -> [Packet] {
        guard let ref = outputRefs.first(where: { $0.tag == tag && $0.index == index })
                ?? (tag.isEmpty ? outputRefs.filter({ $0.tag.isEmpty }).dropFirst(index).first : nil)
        else { return [] }
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
}
