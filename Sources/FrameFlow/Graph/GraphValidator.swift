/// A node after validation: its calculator type, decoded options and unique name.
/// `@unchecked Sendable`: immutable after validation; metatypes are safe to share.
struct ResolvedNode: @unchecked Sendable {
    var config: NodeConfig
    var name: String
    var type: any Calculator.Type
    var options: any CalculatorOptions
    var contract: CalculatorContract
    /// Input positions that are back edges.
    var backEdges: Set<Int>
    /// Per input position: (policy, capacity) overrides.
    var queueOverrides: [Int: (QueuePolicy?, Int?)]
}

/// The graph checked and resolved: what the runtime needs to run it.
struct ResolvedGraph: @unchecked Sendable {  // immutable after validation
    var config: GraphConfig
    var nodes: [ResolvedNode]
    /// Node indexes in topological order (back edges ignored).
    var order: [Int]
    /// For each stream name: the producing (node, output position), or nil for graph inputs.
    var producers: [String: (node: Int, port: Int)?]
}

/// Checks a `GraphConfig` before it runs: every calculator known, options valid, ports
/// matching contracts, each stream produced exactly once, types agreeing, no cycle
/// without a back edge. All problems are reported together.
enum GraphValidator {
    static func resolve(_ config: GraphConfig, registry: CalculatorRegistry) throws -> ResolvedGraph {
        var errors: [GraphError] = []
        var nodes: [ResolvedNode?] = []
        var usedNames: [String: Int] = [:]
        var explicitNames = Set<String>()

        for node in config.nodes {
            if let n = node.name {
                if explicitNames.contains(n) {
                    errors.append(GraphError(.duplicateNodeName, "two nodes are named '\(n)'", node: n, location: node.location))
                }
                explicitNames.insert(n)
            }
        }

        for var node in config.nodes {
            node.numberUntaggedPorts()
            var name = node.displayName
            if node.name == nil {
                let k = usedNames[name, default: 0]
                usedNames[name] = k + 1
                if k > 0 || explicitNames.contains(name) { name = "\(name)_\(k + 1)" }
            }
            let type = node.calculatorType ?? registry.calculator(named: node.calculator)
            guard let type else {
                let hint = registry.suggestion(for: node.calculator).map { " (did you mean '\($0)'?)" } ?? ""
                errors.append(
                    GraphError(
                        .unknownCalculator, "unknown calculator '\(node.calculator)'\(hint)", node: name,
                        location: node.location))
                nodes.append(nil)
                continue
            }
            do {
                let options = try decodeOptions(type, node: node, name: name)
                var written: TextMessage?
                if case .text(_, let m)? = node.options { written = m }
                try options.validate(node: name, message: written, fallback: node.location)
                let contract = type.contract
                var resolved = ResolvedNode(
                    config: node, name: name, type: type, options: options, contract: contract, backEdges: [],
                    queueOverrides: [:])
                errors += checkPorts(&resolved)
                nodes.append(resolved)
            } catch let e as GraphError {
                errors.append(e)
                nodes.append(nil)
            } catch let e as GraphErrors {
                errors += e.errors
                nodes.append(nil)
            }
        }

        // Streams: who produces each, who consumes each.
        var producers: [String: (node: Int, port: Int)?] = [:]
        var producerLocation: [String: SourceLocation?] = [:]
        var producerType: [String: (PayloadType, String)] = [:]
        for s in config.inputStreams {
            if producers[s.name] != nil {
                errors.append(GraphError(.multipleProducers, "graph input stream declared twice", stream: s.name, location: s.location))
            }
            producers[s.name] = .some(nil)
            producerLocation[s.name] = s.location
        }
        for (i, n) in nodes.enumerated() {
            guard let n else { continue }
            for (p, ref) in n.config.outputStreams.enumerated() {
                if let existing = producers[ref.name] {
                    let first = existing.map { nodes[$0.node]?.name ?? "?" }.map { "node '\($0)'" } ?? "the graph's input"
                    errors.append(
                        GraphError(
                            .multipleProducers, "stream has two producers: \(first) and this node", node: n.name,
                            stream: ref.name, location: ref.location ?? n.config.location))
                    continue
                }
                producers[ref.name] = .some((i, p))
                producerLocation[ref.name] = ref.location
                producerType[ref.name] = (portType(n.contract.outputs, ref), n.name)
            }
        }
        for (_, n) in nodes.enumerated() {
            guard let n else { continue }
            for ref in n.config.inputStreams {
                guard producers[ref.name] != nil else {
                    errors.append(
                        GraphError(
                            .noProducer, "no node or graph input produces this stream", node: n.name, stream: ref.name,
                            location: ref.location ?? n.config.location))
                    continue
                }
                if let (t, producer) = producerType[ref.name] {
                    let want = portType(n.contract.inputs, ref)
                    if !t.isCompatible(with: want) {
                        errors.append(
                            GraphError(
                                .typeMismatch,
                                "node '\(producer)' produces \(t) but this node's input \(ref.port) expects \(want)",
                                node: n.name, stream: ref.name, location: ref.location ?? n.config.location))
                    }
                }
            }
        }
        for s in config.outputStreams where producers[s.name] == nil {
            errors.append(GraphError(.noProducer, "graph output stream has no producer", stream: s.name, location: s.location))
        }

        if !errors.isEmpty { throw GraphErrors(errors) }
        let resolvedNodes = nodes.map { $0! }

        // Cycles (back edges excluded): Kahn's algorithm, then name a cycle among the rest.
        var successors = Array(repeating: [Int](), count: resolvedNodes.count)
        var indegree = Array(repeating: 0, count: resolvedNodes.count)
        for (i, n) in resolvedNodes.enumerated() {
            for (p, ref) in n.config.inputStreams.enumerated() where !n.backEdges.contains(p) {
                if case .some(.some(let prod)) = producers[ref.name] {
                    successors[prod.node].append(i)
                    indegree[i] += 1
                }
            }
        }
        var order: [Int] = []
        var queue = (0..<resolvedNodes.count).filter { indegree[$0] == 0 }
        while let i = queue.first {
            queue.removeFirst()
            order.append(i)
            for s in successors[i] {
                indegree[s] -= 1
                if indegree[s] == 0 { queue.append(s) }
            }
        }
        if order.count < resolvedNodes.count {
            let cycle = findCycle(successors: successors, among: Set(0..<resolvedNodes.count).subtracting(order))
            let names = cycle.map { resolvedNodes[$0].name }
            let start = resolvedNodes[cycle[0]]
            throw GraphErrors([
                GraphError(
                    .cycle,
                    "cycle without a back edge: \((names + [names[0]]).joined(separator: " → ")); mark the input that closes the loop with input_stream_info { tag_index: \"…\" back_edge: true }",
                    node: start.name, location: start.config.location)
            ])
        }
        return ResolvedGraph(config: config, nodes: resolvedNodes, order: order, producers: producers)
    }

    private static func findCycle(successors: [[Int]], among remaining: Set<Int>) -> [Int] {
        // Walk successors inside the remaining set until a node repeats.
        var path: [Int] = []
        var seen: [Int: Int] = [:]
        var cur = remaining.min()!
        while seen[cur] == nil {
            seen[cur] = path.count
            path.append(cur)
            guard let next = successors[cur].first(where: { remaining.contains($0) }) else { break }
            cur = next
        }
        let startIdx = seen[cur] ?? 0
        return Array(path[startIdx...])
    }

    private static func portType(_ specs: [PortSpec], _ ref: StreamRef) -> PayloadType {
        specs.first { $0.tag == ref.tag }?.type ?? .any
    }

    private static func decodeOptions(_ type: any Calculator.Type, node: NodeConfig, name: String) throws -> any CalculatorOptions {
        func open<C: Calculator>(_ t: C.Type) throws -> any CalculatorOptions {
            switch node.options {
            case nil: return C.Options()
            case .value(let v)?:
                guard let o = v as? C.Options else {
                    throw GraphError(
                        .invalidOption, "options of type \(Swift.type(of: v)) given, \(C.name) takes \(C.Options.self)",
                        node: name, location: node.location)
                }
                return o
            case .text(let typeName, let message)?:
                if let expected = C.Options.typeName, expected != typeName,
                    expected.split(separator: ".").last != typeName.split(separator: ".").last
                {
                    throw GraphError(
                        .invalidOption, "options [\(typeName)] given, \(C.name) takes [\(expected)]", node: name,
                        location: message.location)
                }
                return try OptionsDecoding.decode(C.Options.self, from: message, node: name)
            }
        }
        return try open(type)
    }

    /// Checks the node's ports against its contract; fills back edges and queue overrides.
    private static func checkPorts(_ n: inout ResolvedNode) -> [GraphError] {
        var errors: [GraphError] = []
        let c = n.contract
        func check(_ refs: [StreamRef], _ specs: [PortSpec], _ what: String) {
            var seen = Set<PortID>()
            for r in refs {
                if seen.contains(r.port) {
                    errors.append(GraphError(.invalidPort, "\(what) \(r.port) is bound twice", node: n.name, stream: r.name, location: r.location))
                }
                seen.insert(r.port)
                if c.acceptsAnyPorts { continue }
                guard let spec = specs.first(where: { $0.tag == r.tag }) else {
                    let allowed = specs.map { $0.tag.isEmpty ? "(untagged)" : $0.tag }.joined(separator: ", ")
                    errors.append(
                        GraphError(
                            .invalidPort, "\(n.type.name) has no \(what) tagged '\(r.tag)' (it has: \(allowed.isEmpty ? "none" : allowed))",
                            node: n.name, stream: r.name, location: r.location))
                    continue
                }
                if r.index > 0 && !spec.isRepeated {
                    errors.append(
                        GraphError(
                            .invalidPort, "\(what) \(r.tag) takes no index > 0", node: n.name, stream: r.name, location: r.location))
                }
            }
            if !c.acceptsAnyPorts {
                for spec in specs where !spec.isOptional && !refs.contains(where: { $0.tag == spec.tag }) {
                    errors.append(
                        GraphError(
                            .invalidPort, "\(what) \(spec.tag.isEmpty ? "(untagged)" : spec.tag) of \(n.type.name) is not connected",
                            node: n.name, location: n.config.location))
                }
            }
        }
        check(n.config.inputStreams, c.inputs, "input")
        check(n.config.outputStreams, c.outputs, "output")
        check(n.config.inputSidePackets, c.inputSidePackets, "input side packet")
        check(n.config.outputSidePackets, c.outputSidePackets, "output side packet")
        for info in n.config.inputStreamInfo {
            let pos = inputPosition(info.tagIndex, in: n.config.inputStreams)
            guard let pos else {
                errors.append(
                    GraphError(
                        .invalidPort, "input_stream_info names '\(info.tagIndex)', which is not one of this node's inputs",
                        node: n.name, location: info.location))
                continue
            }
            if info.backEdge { n.backEdges.insert(pos) }
            if info.queuePolicy != nil || info.maxQueueSize != nil { n.queueOverrides[pos] = (info.queuePolicy, info.maxQueueSize) }
        }
        if let k = n.config.concurrency {
            func refuse(_ why: String) {
                errors.append(GraphError(.invalidOption, "concurrency \(k): \(why)", node: n.name, location: n.config.location))
            }
            if k < 1 {
                refuse("must be at least 1")
            } else if k > 1 {
                if !c.concurrentProcess {
                    refuse("\(n.type.name) does not allow concurrent process calls (its contract's concurrentProcess)")
                } else if n.config.inputStreams.isEmpty {
                    refuse("a source node runs one step at a time")
                } else if !n.backEdges.isEmpty {
                    refuse("a node with a back edge depends on its previous output, so it runs one timestamp at a time")
                }
            }
        }
        return errors
    }

    /// `TAG`, `TAG:index`, or a bare index (for untagged ports) → input position.
    static func inputPosition(_ tagIndex: String, in refs: [StreamRef]) -> Int? {
        let parts = tagIndex.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var port: PortID
        if parts.count == 2, let i = Int(parts[1]) {
            port = PortID(parts[0], i)
        } else if parts.count == 1, let i = Int(parts[0]) {
            port = PortID("", i)
        } else if parts.count == 1 {
            port = PortID(parts[0], 0)
        } else {
            return nil
        }
        if let p = refs.firstIndex(where: { $0.port == port }) { return p }
        if port.tag.isEmpty {  // untagged ports are numbered by position among untagged ones
            let untagged = refs.indices.filter { refs[$0].tag.isEmpty }
            return port.index < untagged.count ? untagged[port.index] : nil
        }
        return nil
    }
}

extension NodeConfig {
    /// Untagged ports are numbered by their order, as in MediaPipe (`a`, `b` → `:0`, `:1`).
    mutating func numberUntaggedPorts() {
        func number(_ refs: inout [StreamRef]) {
            var k = 0
            for i in refs.indices where refs[i].tag.isEmpty {
                refs[i].index = k
                k += 1
            }
        }
        number(&inputStreams)
        number(&outputStreams)
        number(&inputSidePackets)
        number(&outputSidePackets)
    }
}
