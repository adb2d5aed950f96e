import Foundation

/// Building a run from a validated graph, and opening its nodes.
extension GraphRuntime {
    /// A stream's observers, as `Graph.observe` registered them.
    struct Observer {
        var onPacket: @Sendable (Packet) -> Void
        var onClose: (@Sendable () -> Void)?
    }

    /// Builds a run of `resolved`: a calculator and queues per node, streams wired to their
    /// producers and consumers, and a sink node per graph output and observed stream.
    ///
    /// - Parameter options: options given to `Graph.setOptions` before the start, by node.
    static func build(
        _ resolved: ResolvedGraph, config: GraphConfig, observers: [String: [Observer]],
        options: [String: any CalculatorOptions], maxFramesInFlight: Int, tracing: Bool, pool: WorkerPool? = nil,
        environment: GraphEnvironment = GraphEnvironment()
    ) throws -> GraphRuntime {
        let threads = config.numThreads.map { Swift.max(1, $0) } ?? ProcessInfo.processInfo.activeProcessorCount
        let rt = GraphRuntime(threads: threads, pool: pool)
        rt.maxFramesInFlight = maxFramesInFlight
        if tracing { rt.trace = TraceRecorder() }
        let defaultCapacity = config.maxQueueSize.map { $0 <= 0 ? Int.max : $0 } ?? 100
        let defaultPolicy = config.queuePolicy ?? .block

        func stream(_ name: String) -> Int {
            if let i = rt.streamIndex[name] { return i }
            rt.streams.append(StreamRuntime(name: name))
            rt.streamIndex[name] = rt.streams.count - 1
            return rt.streams.count - 1
        }
        for ref in config.inputStreams { rt.graphInputs.insert(stream(ref.name)) }
        rt.declaredSidePackets = config.inputSidePackets

        var rank = Array(repeating: 0, count: resolved.nodes.count)
        for (pos, i) in resolved.order.enumerated() { rank[i] = pos }
        for (i, n) in resolved.nodes.enumerated() {
            let calc = try instantiate(n.type, options: options[n.name] ?? n.options, environment: environment, node: n.name)
            let ctx = CalculatorContext(
                nodeName: n.name, inputs: n.config.inputStreams, outputs: n.config.outputStreams,
                sideInputs: n.config.inputSidePackets, sideOutputs: n.config.outputSidePackets, pool: .shared,
                environment: environment)
            ctx.runtime = rt
            let capacity = n.config.maxQueueSize.map { $0 <= 0 ? Int.max : $0 } ?? defaultCapacity
            let policy = n.config.queuePolicy ?? defaultPolicy
            var inputs: [InputQueue] = []
            for (p, ref) in n.config.inputStreams.enumerated() {
                let o = n.queueOverrides[p]
                var q = InputQueue(
                    capacity: o?.1.map { $0 <= 0 ? Int.max : $0 } ?? capacity, policy: o?.0 ?? policy,
                    isBackEdge: n.backEdges.contains(p), stream: stream(ref.name))
                if q.policy == .keepLatest { q.capacity = 1 }
                inputs.append(q)
            }
            let inputPolicy = n.config.inputPolicy ?? n.contract.inputPolicy ?? config.inputPolicy ?? .default
            let handler: any InputStreamHandler
            do {
                handler = try inputPolicy.handler(ports: n.config.inputStreams, processesTimestampBounds: n.contract.processesTimestampBounds)
            } catch var e as GraphError {
                (e.node, e.location) = (n.name, n.config.location)
                throw e
            }
            let concurrency = n.config.concurrency ?? 1
            if concurrency > 1 && !handler.allowsConcurrentSteps {
                throw GraphError(
                    .invalidOption, "concurrency \(concurrency) needs the default input policy (a step per synchronized timestamp)",
                    node: n.name, location: n.config.location)
            }
            let node = NodeRuntime(
                index: i, name: n.name, calculator: calc, context: ctx, contract: n.contract,
                handler: handler, rank: rank[i],
                location: n.config.location, inputs: inputs, outputStreams: n.config.outputStreams.map { stream($0.name) },
                concurrency: concurrency)
            rt.nodes.append(node)
        }
        // Observers and graph outputs end in sink nodes, ranked after every other node.
        var sinkStreams = config.outputStreams.map(\.name)
        for name in observers.keys.sorted() where !sinkStreams.contains(name) { sinkStreams.append(name) }
        for name in sinkStreams {
            let observers = observers[name] ?? []
            let sink = ObserverSink(
                callbacks: observers.map(\.onPacket), closers: observers.compactMap(\.onClose))
            let ref = StreamRef(name: name)
            let ctx = CalculatorContext(
                nodeName: "output '\(name)'", inputs: [ref], outputs: [], sideInputs: [], sideOutputs: [], pool: .shared,
                environment: environment)
            ctx.runtime = rt
            let q = InputQueue(capacity: defaultCapacity, policy: defaultPolicy, isBackEdge: false, stream: stream(name))
            let node = NodeRuntime(
                index: rt.nodes.count, name: "output '\(name)'", calculator: sink, context: ctx,
                contract: ObserverSink.contract, handler: DefaultInputStreamHandler(), rank: Int.max, location: nil, inputs: [q],
                outputStreams: [], isSink: true)
            rt.nodes.append(node)
            if config.outputStreams.contains(where: { $0.name == name }) { rt.frontierNodes.append(node) }
        }
        if rt.frontierNodes.isEmpty { rt.frontierNodes = rt.nodes }
        // Side-packet producers open before their consumers; sinks open last.
        rt.openOrder = resolved.order + Array(resolved.nodes.count..<rt.nodes.count)
        for node in rt.nodes {
            for (qi, q) in node.inputs.enumerated() { rt.streams[q.stream].consumers.append(Consumer(node: node, input: qi)) }
            for s in node.outputStreams { rt.streams[s].producer = node }
        }
        return rt
    }

    private static func instantiate(
        _ type: any Calculator.Type, options: any CalculatorOptions, environment: GraphEnvironment, node: String
    ) throws -> any Calculator {
        func make<C: Calculator>(_ t: C.Type) throws -> any Calculator {
            guard let o = options as? C.Options else {
                throw GraphError(.invalidOption, "options of type \(Swift.type(of: options)) given, \(C.name) takes \(C.Options.self)", node: node)
            }
            do {
                return try C(options: o, environment: environment)
            } catch let e as GraphError {
                var e = e
                if e.node == nil { e.node = node }
                throw e
            } catch {
                throw GraphError(.invalidOption, "\(error)", node: node)
            }
        }
        return try make(type)
    }

    /// Opens every node (side-packet producers first, given `sidePackets` included) and
    /// schedules the sources. On failure every opened node is closed again.
    func start(sidePackets given: [String: any Sendable]) throws {
        try open(
            sidePackets: given, order: openOrder, sideInputs: nodes.map { $0.context.sideInputRefs },
            sideOutputs: nodes.map { $0.context.sideOutputRefs })
    }

    /// "input side packet 'use_prev_landmarks' was not given to start() (node 'GateCalculator'
    /// reads it as ALLOW); the graph's input side packets: …", at the graph's own declaration
    /// of it when it has one.
    private func missingSidePacket(_ ref: StreamRef, node: String) -> GraphError {
        let declared = declaredSidePackets.first { $0.name == ref.name }
        let port = ref.tag.isEmpty ? "#\(ref.index)" : (ref.index == 0 ? ref.tag : "\(ref.tag):\(ref.index)")
        let known = Set(declaredSidePackets.map(\.name)).sorted()
        let list = known.isEmpty ? "" : "; the graph's input side packets: \(known.joined(separator: ", "))"
        return GraphError(
            .missingSidePacket, "input side packet '\(ref.name)' was not given to start() (the node reads it as \(port))\(list)",
            node: node, location: declared?.location ?? ref.location)
    }

    private func open(sidePackets given: [String: any Sendable], order: [Int], sideInputs: [[StreamRef]], sideOutputs: [[StreamRef]]) throws {
        for (k, v) in given { sidePackets[k] = Packet(v, at: .unset) }
        var remaining = order
        var progressed = true
        while !remaining.isEmpty && progressed {
            progressed = false
            var next: [Int] = []
            for i in remaining {
                let node = nodes[i]
                let needs = sideInputs[i]
                let producedLater = needs.contains { ref in
                    sidePackets[ref.name] == nil && remaining.contains { j in j != i && sideOutputs[j].contains { $0.name == ref.name } }
                }
                if producedLater {
                    next.append(i)
                    continue
                }
                for (k, ref) in needs.enumerated() {
                    guard let p = sidePackets[ref.name] else {
                        let optional = node.contract.inputSidePackets.first { $0.tag == ref.tag }?.isOptional ?? false
                        if optional { continue }
                        closeOpened()
                        throw missingSidePacket(ref, node: node.name)
                    }
                    node.context.sideInputs[k] = p
                }
                do {
                    node.context.inputTimestamp = .unstarted
                    try node.calculator.open(node.context)
                } catch let e as GraphError where e.kind == .missingSidePacket && e.stream != nil {
                    closeOpened()  // a connected side packet the calculator needs after all
                    throw missingSidePacket(needs.first { $0.name == e.stream } ?? StreamRef(tag: "", index: 0, name: e.stream!), node: node.name)
                } catch {
                    closeOpened()
                    throw GraphError(.calculatorFailed, "open failed: \(error)", node: node.name, location: node.location, underlying: error)
                }
                node.opened = true
                for (pos, value) in node.context.sideOutputs {
                    sidePackets[sideOutputs[i][pos].name] = value
                }
                node.context.sideOutputs.removeAll()
                progressed = true
            }
            remaining = next
        }
        if !remaining.isEmpty {
            closeOpened()
            let n = nodes[remaining[0]]
            throw GraphError(.missingSidePacket, "input side packets form a cycle or are never produced", node: n.name)
        }
        lock.withLock {
            // The workers already run and read the sources under the lock (ThreadSanitizer
            // caught an unlocked store).
            pool.attachLocked(self)
            for n in nodes { markDirty(n) }
            drainDirty()
            wakeWorkers()
        }
    }

    private func closeOpened() {
        for n in nodes where n.opened {
            n.context.inputTimestamp = .done
            try? n.calculator.close(n.context)
            n.opened = false
        }
        lock.withLock { releasePoolLocked() }
    }
}
