/// Replaces nodes that name a registered subgraph by the subgraph's nodes, as MediaPipe's
/// `ExpandSubgraphs` does:
/// - every name inside the subgraph (streams, side packets, nodes) gets the prefix
///   `node_name__` (the subgraph node's name, lower-cased), so internal names never clash;
/// - the subgraph's declared inputs and outputs (`TAG:index`) become the streams the node
///   binds to those ports; declared inputs the node leaves unconnected are removed from the
///   inner nodes (they never carry a packet), and so are unconnected side packets;
/// - `graph_options` defaults merged with the node's options feed the inner nodes'
///   `option_value: "node_field:graph_field"`.
/// Subgraphs nest up to `ResourceLimits.maxNestingDepth`; one that includes itself is an error.
/// A `SwitchContainer` node expands as the subgraph `SwitchContainer.subgraph(for:)` makes.
enum SubgraphExpansion {
    static func expand(_ config: GraphConfig, registry: CalculatorRegistry, limits: ResourceLimits = ResourceLimits()) throws -> GraphConfig {
        var out = config
        var nodes = config.nodes
        // A graph with a `type:` run as a top-level graph forwards its own defaults.
        try forwardOptions(into: &nodes, graphOptions: config.graphOptions, given: nil)
        out.nodes = try expandNodes(nodes, registry: registry, limit: limits.maxNestingDepth, stack: [], usedAt: [])
        return out
    }

    private static func expandNodes(
        _ nodes: [NodeConfig], registry: CalculatorRegistry, limit: Int, stack: [(name: String, location: SourceLocation?)],
        usedAt: [SourceLocation]
    ) throws -> [NodeConfig] {
        var result: [NodeConfig] = []
        for (id, node) in nodes.enumerated() {
            guard node.calculatorType == nil, registry.calculator(named: node.calculator) == nil,
                let subgraph = try registry.subgraph(named: node.calculator)
                    ?? (node.calculator == SwitchContainer.calculatorName ? SwitchContainer.subgraph(for: node) : nil)
            else {
                result.append(node)
                continue
            }
            if subgraph.type != SwitchContainer.calculatorName, let outer = stack.first(where: { $0.name == node.calculator }) {
                var e = GraphError(
                    .cycle, "subgraph '\(node.calculator)' includes itself (its type: is at \(outer.location.map(\.description) ?? "?"))",
                    node: node.displayName, location: node.location)
                e.usedAt = usedAt
                throw e
            }
            guard stack.count < limit else {
                throw GraphError(
                    .invalidState, "subgraphs nest more than \(limit) deep (ResourceLimits.maxNestingDepth)", node: node.displayName,
                    location: node.location)
            }
            let here = node.location.map { [$0] + usedAt } ?? usedAt
            var inner = subgraph.nodes
            do {
                try forwardOptions(into: &inner, graphOptions: subgraph.graphOptions, given: node.options)
                try connect(&inner, of: subgraph, to: node, prefix: prefix(canonicalName(id, in: nodes)))
            } catch var e as GraphError {
                e.usedAt = e.usedAt.isEmpty ? here : e.usedAt
                throw e
            }
            for k in inner.indices { inner[k].usedAt = here }
            let expanded = try expandNodes(
                inner, registry: registry, limit: limit, stack: stack + [(node.calculator, subgraph.typeLocation ?? node.location)], usedAt: here)
            result += expanded
        }
        return result
    }

    /// MediaPipe's canonical node name: its name or calculator, with `_k` when several share it.
    private static func canonicalName(_ id: Int, in nodes: [NodeConfig]) -> String {
        let name = nodes[id].displayName
        let same = nodes.indices.filter { nodes[$0].displayName == name }
        guard same.count > 1 else { return name }
        return "\(name)_\(same.firstIndex(of: id)! + 1)"
    }

    private static func prefix(_ nodeName: String) -> String {
        String(nodeName.lowercased().map { $0 == "." || $0 == " " || $0 == ":" ? "_" : $0 }) + "__"
    }

    /// Prefixes the subgraph's internal names and binds its declared ports to the node's streams.
    private static func connect(_ inner: inout [NodeConfig], of subgraph: GraphConfig, to node: NodeConfig, prefix: String) throws {
        var streams: [String: String] = [:]
        var sidePackets: [String: String] = [:]
        var ignoredStreams = Set<String>(), ignoredSidePackets = Set<String>(), unused = Set<String>()
        func bind(_ declared: [StreamRef], _ bound: [StreamRef], _ what: String, into map: inout [String: String], ignored: inout Set<String>) throws
        {
            let declaredPorts = numbered(declared), boundPorts = numbered(bound)
            for (port, ref) in boundPorts {
                guard let d = declaredPorts.first(where: { $0.port == port }) else {
                    let tags = declared.map { $0.tag.isEmpty ? "(untagged)" : $0.tag }
                    throw GraphError(
                        .invalidPort,
                        "subgraph '\(node.calculator)' declares no \(what) \(port.tag.isEmpty ? "#\(port.index)" : port.description) (it declares: \(tags.isEmpty ? "none" : tags.joined(separator: ", ")); see \(subgraph.file ?? "its file"))",
                        node: node.displayName, stream: ref.name, location: ref.location ?? node.location)
                }
                map[prefix + d.ref.name] = ref.name
            }
            for (port, ref) in declaredPorts where !boundPorts.contains(where: { $0.port == port }) {
                ignored.insert(prefix + ref.name)
            }
        }
        try bind(subgraph.inputStreams, node.inputStreams, "input stream", into: &streams, ignored: &ignoredStreams)
        try bind(subgraph.outputStreams, node.outputStreams, "output stream", into: &streams, ignored: &unused)
        try bind(subgraph.inputSidePackets, node.inputSidePackets, "input side packet", into: &sidePackets, ignored: &ignoredSidePackets)
        try bind(subgraph.outputSidePackets, node.outputSidePackets, "output side packet", into: &sidePackets, ignored: &unused)
        func rename(_ refs: [StreamRef], _ map: [String: String]) -> [StreamRef] {
            refs.map { r in
                var r = r
                r.name = map[prefix + r.name] ?? prefix + r.name
                return r
            }
        }
        let names = inner.indices.map { canonicalName($0, in: inner) }
        for k in inner.indices {
            inner[k].name = prefix + names[k]
            inner[k].inputStreams = rename(inner[k].inputStreams, streams).filter { !ignoredStreams.contains($0.name) }
            inner[k].outputStreams = rename(inner[k].outputStreams, streams)
            inner[k].inputSidePackets = rename(inner[k].inputSidePackets, sidePackets).filter { !ignoredSidePackets.contains($0.name) }
            inner[k].outputSidePackets = rename(inner[k].outputSidePackets, sidePackets)
        }
    }

    /// Ports with untagged ones numbered in order, as MediaPipe's tag maps number them.
    private static func numbered(_ refs: [StreamRef]) -> [(port: PortID, ref: StreamRef)] {
        var untagged = 0
        return refs.map { r in
            if r.tag.isEmpty {
                defer { untagged += 1 }
                return (PortID("", untagged), r)
            }
            return (r.port, r)
        }
    }

    // MARK: Graph options

    /// Copies fields of the graph options (defaults from `graph_options`, overridden by the
    /// subgraph node's options of the same type) into the inner nodes' options named by
    /// their `option_value`s; then clears those.
    static func forwardOptions(into nodes: inout [NodeConfig], graphOptions: NodeOptions?, given: NodeOptions?) throws {
        guard nodes.contains(where: { !$0.optionValues.isEmpty }) else { return }
        var source: TextMessage?
        if case .text(let type, let defaults)? = graphOptions {
            source = defaults
            if case .text(let givenType, let message)? = given, shortName(givenType) == shortName(type) {
                source = merged(defaults, message)
            }
        }
        for k in nodes.indices where !nodes[k].optionValues.isEmpty {
            defer { nodes[k].optionValues = [] }
            guard let source, case .text(let type, var message)? = nodes[k].options else { continue }
            for ov in nodes[k].optionValues {
                let graphPath = try path(ov.graphField, ov), nodePath = try path(ov.nodeField, ov)
                if graphPath.isEmpty || nodePath.isEmpty {
                    // "OPTIONS:options": the whole graph options merged into the node's.
                    guard graphPath.isEmpty && nodePath.isEmpty else {
                        throw badPath(ov.graphField, ov, "a whole message can only go to a whole message")
                    }
                    message = merged(message, source)
                    continue
                }
                let values = try fields(at: graphPath, in: source, ov)
                guard !values.isEmpty else { continue }
                try set(values, at: nodePath, in: &message, ov)
            }
            nodes[k].options = .text(typeName: type, message)
        }
    }

    /// The message name without its package (names are already without `.ext` and type URL:
    /// `NodeConfig.optionsTypeName`), compared as the validator compares options types.
    private static func shortName(_ type: String) -> Substring {
        type.split(separator: ".").last ?? Substring(type)
    }

    /// A field path: names (and indices of repeated fields) joined by `/`; a leading `options`
    /// (or `OPTIONS`) names the options themselves, and alone the whole message (empty path).
    private enum Step { case field(String), index(Int) }

    private static func path(_ text: String, _ ov: OptionValue) throws -> [Step] {
        var parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.first == "options" || parts.first == "OPTIONS" { parts.removeFirst() }
        if parts.isEmpty { return [] }
        guard parts.allSatisfy({ !$0.isEmpty }), let first = parts.first, Int(first) == nil else {
            throw badPath(text, ov, "expected field names joined by '/'")
        }
        return try parts.map { p in
            if let i = Int(p) {
                guard i >= 0 else { throw badPath(text, ov, "index \(i) is negative") }
                return .index(i)
            }
            guard p.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw badPath(text, ov, "'\(p)' is not a field name (extensions in paths are not supported)")
            }
            return .field(p)
        }
    }

    private static func badPath(_ text: String, _ ov: OptionValue, _ why: String) -> GraphError {
        GraphError(.invalidOption, "option_value \"\(ov.nodeField):\(ov.graphField)\": bad field path '\(text)': \(why)", location: ov.location)
    }

    /// The fields the path ends at (all occurrences of a repeated field, or the indexed one).
    private static func fields(at path: [Step], in message: TextMessage, _ ov: OptionValue) throws -> [TextField] {
        var current = message
        var i = 0
        while i < path.count {
            guard case .field(let name) = path[i] else { throw badPath(ov.graphField, ov, "an index must follow a field name") }
            var matches = current.fields(named: name)
            if i + 1 < path.count, case .index(let k) = path[i + 1] {
                guard k < matches.count else { return [] }
                matches = [matches[k]]
                i += 1
            }
            if i == path.count - 1 { return matches }
            guard let next = matches.last else { return [] }
            guard case .message(let m) = next.value.kind else {
                throw badPath(ov.graphField, ov, "'\(name)' is not a message, so it has no field '\(path[i + 1])'")
            }
            current = m
            i += 1
        }
        return []
    }

    /// Replaces the field the path ends at by `values` (renamed to the path's last name).
    private static func set(_ values: [TextField], at path: [Step], in message: inout TextMessage, _ ov: OptionValue) throws {
        guard case .field(let name) = path[0] else { throw badPath(ov.nodeField, ov, "an index must follow a field name") }
        if path.count == 1 {
            let renamed = values.map { v in
                var v = v
                v.name = name
                v.isExtension = false
                return v
            }
            if let at = message.fields.firstIndex(where: { $0.name == name }) {
                message.fields.removeAll { $0.name == name }
                message.fields.insert(contentsOf: renamed, at: Swift.min(at, message.fields.count))
            } else {
                message.fields += renamed
            }
            return
        }
        var rest = Array(path.dropFirst())
        var k = 0
        if case .index(let i) = rest[0] {
            k = i
            rest.removeFirst()
            guard !rest.isEmpty else { throw badPath(ov.nodeField, ov, "an index cannot end the path") }
        }
        let positions = message.fields.indices.filter { message.fields[$0].name == name }
        if k < positions.count {
            guard case .message(var inner) = message.fields[positions[k]].value.kind else {
                throw badPath(ov.nodeField, ov, "'\(name)' is not a message")
            }
            try set(values, at: rest, in: &inner, ov)
            message.fields[positions[k]].value.kind = .message(inner)
        } else {
            var inner = TextMessage(location: ov.location ?? message.location)
            try set(values, at: rest, in: &inner, ov)
            message.fields.append(
                TextField(name: name, isExtension: false, value: TextValue(.message(inner), at: inner.location), location: inner.location))
        }
    }

    /// `base` with `override`'s fields replacing the fields of the same name (nested
    /// messages merged field by field).
    static func merged(_ base: TextMessage, _ override: TextMessage) -> TextMessage {
        var out = base
        for name in Set(override.fields.map(\.name)) {
            let given = override.fields(named: name)
            let existing = out.fields(named: name)
            if given.count == 1, existing.count == 1, case .message(let a) = existing[0].value.kind, case .message(let b) = given[0].value.kind {
                let i = out.fields.firstIndex { $0.name == name }!
                out.fields[i].value.kind = .message(merged(a, b))
            } else {
                out.fields.removeAll { $0.name == name }
                out.fields += given
            }
        }
        return out
    }
}
