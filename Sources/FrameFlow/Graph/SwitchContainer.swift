/// MediaPipe's `SwitchContainer`: a node that runs one of its `contained_node`s, the channel
/// chosen by `select` (an index) or `enable` (channel 1 when true, else 0), given as options,
/// as an input side packet `SELECT` / `ENABLE`, or as an input stream `SELECT` / `ENABLE`
/// (the choice then holds from that packet's timestamp on).
///
/// It expands like a subgraph: a `SwitchDemuxCalculator` sends the container's inputs and side
/// packets to channel `c`'s streams (`C<c>__TAG`), each contained node takes the container's
/// ports on its channel, and a `SwitchMuxCalculator` passes the chosen channel's outputs and
/// output side packets on under the container's names.
enum SwitchContainer {
    static let calculatorName = "SwitchContainer"
    static let optionsType = "mediapipe.SwitchContainerOptions"
    static let controlTags: Set<String> = ["SELECT", "ENABLE"]

    /// The subgraph `node` stands for, its ports named as the node names them.
    static func subgraph(for node: NodeConfig) throws -> GraphConfig {
        func fail(_ why: String) -> GraphError {
            GraphError(.invalidOption, "SwitchContainer: \(why)", node: node.displayName, location: node.location)
        }
        guard case .text(let type, let message)? = node.options, type.split(separator: ".").last == "SwitchContainerOptions" else {
            throw fail("needs options { [mediapipe.SwitchContainerOptions.ext] { contained_node { … } … } }")
        }
        var contained: [NodeConfig] = []
        var rest = message
        rest.fields.removeAll { $0.name == "contained_node" }
        for f in message.fields(named: "contained_node") {
            let n = try NodeConfig(field: f)
            guard n.inputStreams.isEmpty, n.outputStreams.isEmpty, n.inputSidePackets.isEmpty, n.outputSidePackets.isEmpty else {
                throw GraphError(
                    .invalidPort, "SwitchContainer: a contained_node takes the container's ports and lists none of its own",
                    node: node.displayName, location: f.location)
            }
            contained.append(n)
        }
        guard !contained.isEmpty else { throw fail("no contained_node") }
        if !message.fields(named: "select").isEmpty && !message.fields(named: "enable").isEmpty {
            throw fail("options 'select' and 'enable' exclude each other")
        }
        for (refs, what) in [(node.inputStreams, "input streams"), (node.inputSidePackets, "input side packets")] {
            let control = refs.filter { controlTags.contains($0.tag) }
            if control.count > 1 {
                throw GraphError(
                    .invalidPort, "SwitchContainer: \(what) SELECT and ENABLE exclude each other", node: node.displayName,
                    location: control[1].location ?? node.location)
            }
        }

        let options = NodeOptions.text(typeName: optionsType, rest)
        let inputs = numbered(node.inputStreams.filter { !controlTags.contains($0.tag) })
        let outputs = numbered(node.outputStreams)
        let sideInputs = numbered(node.inputSidePackets.filter { !controlTags.contains($0.tag) })
        let sideOutputs = numbered(node.outputSidePackets)
        let selectStream = node.inputStreams.filter { controlTags.contains($0.tag) }
        let selectSide = node.inputSidePackets.filter { controlTags.contains($0.tag) }
        let channels = contained.indices

        func onChannel(_ c: Int, _ ports: [(PortID, String)], channelTag: Bool) -> [StreamRef] {
            ports.map { port, name in
                StreamRef(tag: channelTag ? "C\(c)__\(port.tag)" : port.tag, index: port.index, name: "c\(c)__\(name)")
            }
        }
        func plain(_ ports: [(PortID, String)]) -> [StreamRef] {
            ports.map { StreamRef(tag: $0.0.tag, index: $0.0.index, name: $0.1) }
        }

        var demux = NodeConfig(calculator: "SwitchDemuxCalculator")
        demux.location = node.location
        demux.options = options
        demux.inputStreams = plain(inputs) + selectStream
        demux.outputStreams = channels.flatMap { onChannel($0, inputs, channelTag: true) }
        demux.inputSidePackets = plain(sideInputs) + selectSide
        demux.outputSidePackets = channels.flatMap { onChannel($0, sideInputs, channelTag: true) }

        var mux = NodeConfig(calculator: "SwitchMuxCalculator")
        mux.location = node.location
        mux.options = options
        mux.inputStreams = channels.flatMap { onChannel($0, outputs, channelTag: true) } + selectStream
        mux.outputStreams = plain(outputs)
        mux.inputSidePackets = channels.flatMap { onChannel($0, sideOutputs, channelTag: true) } + selectSide
        mux.outputSidePackets = plain(sideOutputs)

        var config = GraphConfig()
        config.type = calculatorName
        config.file = node.location?.file
        config.typeLocation = node.location
        config.inputStreams = plain(inputs) + selectStream
        config.outputStreams = plain(outputs)
        config.inputSidePackets = plain(sideInputs) + selectSide
        config.outputSidePackets = plain(sideOutputs)
        config.nodes = [demux]
        for c in channels {
            var n = contained[c]
            if n.name == nil { n.name = "c\(c)__\(n.calculator)" }
            n.inputStreams = onChannel(c, inputs, channelTag: false)
            n.outputStreams = onChannel(c, outputs, channelTag: false)
            n.inputSidePackets = onChannel(c, sideInputs, channelTag: false)
            n.outputSidePackets = onChannel(c, sideOutputs, channelTag: false)
            config.nodes.append(n)
        }
        config.nodes.append(mux)
        return config
    }

    /// Ports with untagged ones numbered in order, each with its stream's name.
    private static func numbered(_ refs: [StreamRef]) -> [(PortID, String)] {
        var untagged = 0
        return refs.map { r in
            guard r.tag.isEmpty else { return (r.port, r.name) }
            defer { untagged += 1 }
            return (PortID("", untagged), r.name)
        }
    }
}
