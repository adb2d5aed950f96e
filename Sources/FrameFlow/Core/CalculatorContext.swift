/// What a calculator sees during `open`, `process` and `close`: the input packets at
/// the current timestamp, the side packets, and where to send outputs.
///
/// One context belongs to one node and is reused for every call (no allocation per
/// frame). It is only valid during the call it was passed to.
///
/// Reading inputs, by tag and index as the contract declares them:
///
/// ```swift
/// let image = try cc.input("IMAGE", as: ImageFrame.self)   // throws naming the stream
/// if cc.hasInput("DETECTIONS") { … }
/// try cc.emit(result, tag: "IMAGE")                        // at cc.inputTimestamp
/// ```
public final class CalculatorContext {
    /// The node's name (for messages).
    public let nodeName: String
    /// The timestamp of the current `process` call (`.unstarted` in `open`, `.done` in
    /// `close`).
    @exclusivity(unchecked) public internal(set) var inputTimestamp: Timestamp = .unstarted
    /// Pool for output images; using it keeps a steady graph free of per-frame
    /// allocations.
    public let pool: ImagePool
    /// The graph's environment: resource roots, limits and services.
    public let environment: GraphEnvironment

    let inputRefs: [StreamRef]
    let outputRefs: [StreamRef]
    let inputIndex: [PortID: Int]
    let outputIndex: [PortID: Int]
    let sideInputIndex: [PortID: Int]
    let sideOutputIndex: [PortID: Int]
    let sideInputRefs: [StreamRef]
    let sideOutputRefs: [StreamRef]
    @exclusivity(unchecked) var inputPackets: [Packet]
    @exclusivity(unchecked) var sideInputs: [Packet?]
    /// Outputs emitted during the current call: (output port, packet).
    @exclusivity(unchecked) var emitted: [(Int, Packet)] = []
    @exclusivity(unchecked) var sideOutputs: [(Int, Packet)] = []
    @exclusivity(unchecked) var sourceFinished = false
    @exclusivity(unchecked) var droppedByCalculator = 0
    @exclusivity(unchecked) var boundUpdates: [(Int, Timestamp)] = []
    @exclusivity(unchecked) var inputBounds: [Timestamp]
    /// The run this context belongs to; the run owns the node that owns the context, so
    /// it outlives every use.
    unowned(unsafe) var runtime: GraphRuntime?

    init(
        nodeName: String, inputs: [StreamRef], outputs: [StreamRef], sideInputs: [StreamRef], sideOutputs: [StreamRef],
        pool: ImagePool, environment: GraphEnvironment
    ) {
        self.nodeName = nodeName
        self.pool = pool
        self.environment = environment
        self.inputRefs = inputs
        self.outputRefs = outputs
        self.sideInputRefs = sideInputs
        self.sideOutputRefs = sideOutputs
        func index(_ refs: [StreamRef]) -> [PortID: Int] {
            var d: [PortID: Int] = [:]
            for (i, r) in refs.enumerated() { d[r.port] = i }
            return d
        }
        inputIndex = index(inputs)
        outputIndex = index(outputs)
        sideInputIndex = index(sideInputs)
        sideOutputIndex = index(sideOutputs)
        inputPackets = Array(repeating: Packet(emptyAt: .unset), count: inputs.count)
        self.sideInputs = Array(repeating: nil, count: sideInputs.count)
        inputBounds = Array(repeating: .unstarted, count: inputs.count)
    }

    /// A context for the same node (ports, side packets, run) with empty per-step state:
    /// what a concurrent node's second step runs with.
    func sibling() -> CalculatorContext {
        let c = CalculatorContext(
            nodeName: nodeName, inputs: inputRefs, outputs: outputRefs, sideInputs: sideInputRefs, sideOutputs: sideOutputRefs,
            pool: pool, environment: environment)
        c.sideInputs = sideInputs
        c.runtime = runtime
        return c
    }

    // MARK: Inputs

    /// Number of input ports the node has.
    public var inputCount: Int { inputRefs.count }

    /// The packet on input `tag:index` at the current timestamp (empty when the stream
    /// had none, or the port is not connected).
    public func input(_ tag: String = "", _ index: Int = 0) -> Packet {
        guard let i = inputIndex[PortID(tag, index)] else { return Packet(emptyAt: inputTimestamp) }
        return inputPackets[i]
    }

    /// The packet on the `position`-th input port (in the order the node lists them).
    public func input(at position: Int) -> Packet { inputPackets[position] }

    /// Whether input `tag:index` has a non-empty packet now.
    public func hasInput(_ tag: String = "", _ index: Int = 0) -> Bool { !input(tag, index).isEmpty }

    /// Whether the node connects port `tag:index`.
    public func hasInputPort(_ tag: String = "", _ index: Int = 0) -> Bool { inputIndex[PortID(tag, index)] != nil }

    /// Whether the node connects output port `tag:index`.
    public func hasOutputPort(_ tag: String = "", _ index: Int = 0) -> Bool { outputIndex[PortID(tag, index)] != nil }

    /// The one of `tags` the node connects as an input, for calculators that take a value in
    /// one of several forms (`NORM_RECT`, `RECT`, …).
    /// - Throws: `GraphError(.invalidPort)` naming the tags when it connects none or several.
    public func connectedInputTag(oneOf tags: [String]) throws -> String {
        try Self.onlyOne(of: tags, tags.filter { hasInputPort($0) }, "takes", nodeName)
    }

    /// The one of `tags` the node connects as an output (see `connectedInputTag(oneOf:)`).
    public func connectedOutputTag(oneOf tags: [String]) throws -> String {
        try Self.onlyOne(of: tags, tags.filter { hasOutputPort($0) }, "gives", nodeName)
    }

    private static func onlyOne(of tags: [String], _ connected: [String], _ verb: String, _ node: String) throws -> String {
        guard connected.count == 1 else {
            let list = tags.count > 1 ? tags.dropLast().joined(separator: ", ") + " and " + tags.last! : tags.joined()
            let given = connected.isEmpty ? "none" : connected.joined(separator: ", ")
            throw GraphError(.invalidPort, "\(node) \(verb) exactly one of \(list) (connected: \(given))", node: node)
        }
        return connected[0]
    }

    /// The indexes the node connects for input tag `tag`, ascending.
    public func inputIndexes(tag: String) -> [Int] {
        inputIndex.keys.filter { $0.tag == tag }.map(\.index).sorted()
    }

    /// The payload of input `tag:index` as `T`.
    /// - Throws: `PacketError` naming the stream (and both types on a mismatch).
    public func input<T>(_ tag: String = "", _ index: Int = 0, as type: T.Type) throws -> T {
        let port = PortID(tag, index)
        guard let i = inputIndex[port] else {
            throw GraphError(.invalidPort, "no input port \(port)", node: nodeName)
        }
        return try inputPackets[i].get(T.self, stream: inputRefs[i].name)
    }

    /// The stream name bound to input `tag:index`.
    public func inputStreamName(_ tag: String = "", _ index: Int = 0) -> String? {
        inputIndex[PortID(tag, index)].map { inputRefs[$0].name }
    }

    /// The stream name bound to the `position`-th input port (in the order the node lists
    /// them): what error messages name for calculators that take any number of untagged inputs.
    public func inputStreamName(atPosition position: Int) -> String { inputRefs[position].name }

    // MARK: Side packets

    /// Input side packet `tag:index`, if the node has it and it was given.
    public func sidePacket(_ tag: String = "", _ index: Int = 0) -> Packet? {
        guard let i = sideInputIndex[PortID(tag, index)] else { return nil }
        return sideInputs[i]
    }

    /// Input side packet `tag:index` as `T`.
    /// - Throws: `GraphError` (`.missingSidePacket`, or `.typeMismatch` naming the side packet
    ///   and both types).
    public func sidePacket<T>(_ tag: String = "", _ index: Int = 0, as type: T.Type) throws -> T {
        guard let i = sideInputIndex[PortID(tag, index)] else {
            throw GraphError(.missingSidePacket, "input side packet \(PortID(tag, index)) is not connected", node: nodeName)
        }
        guard let p = sideInputs[i] else {
            let name = sideInputRefs[i].name
            throw GraphError(.missingSidePacket, "input side packet '\(name)' (\(PortID(tag, index))) was not given", node: nodeName, stream: name)
        }
        let name = sideInputRefs[i].name
        guard let payload = p.payload else {
            throw GraphError(.missingSidePacket, "input side packet '\(name)' is empty")
        }
        guard let value = payload as? T else {
            // No node here: the graph names the node when it reports what open or process threw.
            throw GraphError(
                .typeMismatch, "input side packet '\(name)': expected \(T.self), got \(Swift.type(of: payload))")
        }
        return value
    }

    /// Sets output side packet `tag:index` (in `open`).
    public func setSidePacket(_ value: any Sendable, tag: String = "", index: Int = 0) throws {
        guard let i = sideOutputIndex[PortID(tag, index)] else {
            throw GraphError(.invalidPort, "no output side packet \(PortID(tag, index))", node: nodeName)
        }
        sideOutputs.append((i, Packet(value, at: .unset)))
    }

    // MARK: Outputs

    /// Sends `value` on output `tag:index` at `timestamp` (default: the input
    /// timestamp). Timestamps on an output must strictly increase; a violation makes the
    /// graph fail with an error naming the stream and both timestamps.
    public func emit(_ value: any Sendable, tag: String = "", index: Int = 0, at timestamp: Timestamp? = nil) throws {
        guard let i = outputIndex[PortID(tag, index)] else {
            // An optional output the node does not connect: nothing to do.
            return
        }
        emitted.append((i, Packet(value, at: timestamp ?? inputTimestamp)))
    }

    /// Sends `packet` as it is on the `position`-th output port.
    public func emit(packet: Packet, atPosition position: Int) {
        emitted.append((position, packet))
    }

    /// Promises that output `tag:index` will carry nothing below `bound`, so consumers
    /// can go on without waiting (e.g. after dropping a frame).
    public func setNextTimestampBound(_ bound: Timestamp, tag: String = "", index: Int = 0) {
        guard let i = outputIndex[PortID(tag, index)] else { return }
        boundUpdates.append((i, bound))
    }

    /// The bound of input `tag:index` when this call started: no packet below it will reach
    /// the node any more (the earliest packet still queued for a later call, else the
    /// stream's bound). Immediate-policy nodes are also called when only a bound moved
    /// (then every input is empty and `inputTimestamp` is `.unset`).
    public func inputBound(_ tag: String = "", _ index: Int = 0) -> Timestamp {
        guard let i = inputIndex[PortID(tag, index)] else { return .done }
        return inputBounds[i]
    }

    /// The bound of the `position`-th input port when this call started.
    public func inputBound(atPosition position: Int) -> Timestamp { inputBounds[position] }

    /// `setNextTimestampBound` for the `position`-th output port.
    public func setNextTimestampBound(_ bound: Timestamp, atPosition position: Int) {
        boundUpdates.append((position, bound))
    }

    /// Number of output ports.
    public var outputCount: Int { outputRefs.count }

    // MARK: Ports by position

    /// The node's input ports in the order it lists them, untagged ones numbered 0, 1, … in
    /// order as MediaPipe's tag maps number them (for calculators that take any ports).
    public var inputPorts: [PortID] { Self.numbered(inputRefs) }
    /// The node's output ports, numbered as `inputPorts`.
    public var outputPorts: [PortID] { Self.numbered(outputRefs) }
    /// The node's input side packets, numbered as `inputPorts`.
    public var sidePacketPorts: [PortID] { Self.numbered(sideInputRefs) }
    /// The node's output side packets, numbered as `inputPorts`.
    public var outputSidePacketPorts: [PortID] { Self.numbered(sideOutputRefs) }

    /// The `position`-th input side packet, if it was given.
    public func sidePacket(at position: Int) -> Packet? { sideInputs[position] }

    /// Sets the `position`-th output side packet (in `open`).
    public func setSidePacket(_ packet: Packet, atPosition position: Int) {
        sideOutputs.append((position, packet))
    }

    static func numbered(_ refs: [StreamRef]) -> [PortID] {
        var untagged = 0
        return refs.map { r in
            guard r.tag.isEmpty else { return r.port }
            defer { untagged += 1 }
            return PortID("", untagged)
        }
    }

    /// Counts `count` packets the calculator dropped on purpose (a flow limiter's late frames),
    /// so the graph's statistics and `frameflow run`'s summary report them with the queues' drops.
    public func countDropped(_ count: Int = 1) { droppedByCalculator += count }

    /// Ends a source calculator (one without inputs): no further `process` calls.
    public func finishSource() { sourceFinished = true }

    // MARK: Parallel work

    /// Runs `body` over `0..<count` split into chunks of at least `grain`, on the
    /// graph's workers and the calling thread; returns when every chunk is done.
    ///
    /// `body` must only write memory its range owns (e.g. its rows of an output image).
    public func parallelFor(_ count: Int, grain: Int = 1, _ body: @escaping (Range<Int>) -> Void) {
        if let runtime { runtime.pool.parallelFor(count, grain: grain, body) } else { body(0..<count) }
    }

    /// Threads `parallelFor` can use (1 outside a running graph).
    public var parallelThreads: Int { runtime?.pool.threadCount ?? 1 }
}
