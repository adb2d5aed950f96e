import FrameFlow
import FrameFlowTesting
import Testing

/// Subgraphs as MediaPipe expands them: private internal names, ports bound by `TAG:index`,
/// graph options forwarded through `option_value`, errors naming both places.
@Suite struct SubgraphExpansionTests {
    func registry(_ subgraphs: [String]) throws -> CalculatorRegistry {
        let r = testRegistry.adding([InputLogCalculator.self])
        for (i, text) in subgraphs.enumerated() { try r.registerSubgraph(GraphConfig(parsing: text, file: "sub\(i).pbtxt")) }
        return r
    }

    func run(_ graph: Graph, _ values: [Int]) throws -> [Int] {
        let out = try PacketCollector(graph, "y")
        try graph.start()
        for (t, v) in values.enumerated() { try graph.send(v, to: "x", at: Timestamp(Int64(t))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        return try out.packets.map { try $0.get(Int.self) }
    }

    static let addTwice = """
        type: "AddTwice"
        input_stream: "IN:in"
        output_stream: "OUT:out"
        node { calculator: "AddCalculator" input_stream: "in" output_stream: "mid" }
        node { calculator: "AddCalculator" input_stream: "mid" output_stream: "out" }
        """

    @Test func nestedSubgraphsWithCollidingInternalNames() throws {
        let addFour = """
            type: "AddFour"
            input_stream: "IN:in"
            output_stream: "OUT:out"
            node { calculator: "AddTwice" input_stream: "IN:in" output_stream: "OUT:mid" }
            node { calculator: "AddTwice" input_stream: "IN:mid" output_stream: "OUT:out" }
            """
        let r = try registry([Self.addTwice, addFour])
        let g = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "x"
                    output_stream: "y"
                    node { calculator: "AddFour" input_stream: "IN:x" output_stream: "OUT:mid" }
                    node { calculator: "AddCalculator" input_stream: "mid" output_stream: "y" }
                    """), registry: r)
        // Four inner "mid" streams and the outer one stay apart: 1 + 4 + 1.
        #expect(try run(g, [1, 10]) == [6, 15])
        #expect(g.nodeNames.contains("addfour__addtwice_2__AddCalculator_1"), "\(g.nodeNames)")
        let streams = Set(g.expandedConfig.nodes.flatMap { $0.outputStreams.map(\.name) })
        #expect(streams.isSuperset(of: ["addfour__addtwice_1__mid", "addfour__addtwice_2__mid", "addfour__mid", "mid", "y"]), "\(streams)")
    }

    @Test func anOptionForwardedThreeLevelsDown() throws {
        func level(_ name: String, _ inner: String) -> String {
            """
            type: "\(name)"
            input_stream: "IN:in"
            output_stream: "OUT:out"
            graph_options { [type.googleapis.com/test.AddOptions] { amount: 1 } }
            node {
              calculator: "\(inner)" input_stream: "\(inner == "AddCalculator" ? "" : "IN:")in" output_stream: "\(inner == "AddCalculator" ? "" : "OUT:")out"
              node_options { [type.googleapis.com/test.AddOptions] { amount: 100 } }
              option_value: "amount:options/amount"
            }
            """
        }
        let r = try registry([level("Level3", "AddCalculator"), level("Level2", "Level3"), level("Level1", "Level2")])
        let given = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "x"
                    output_stream: "y"
                    node { calculator: "Level1" input_stream: "IN:x" output_stream: "OUT:y"
                           node_options { [type.googleapis.com/test.AddOptions] { amount: 7 } } }
                    """), registry: r)
        #expect(try run(given, [1]) == [8], "the top node's amount reaches the calculator three levels down")
        let defaults = try Graph(
            GraphConfig(
                parsing: "input_stream: \"x\"\noutput_stream: \"y\"\nnode { calculator: \"Level1\" input_stream: \"IN:x\" output_stream: \"OUT:y\" }"),
            registry: r)
        #expect(try run(defaults, [1]) == [2], "without options, graph_options' default (1) reaches it")
        // "OPTIONS:options" hands the whole graph options to a node, as MediaPipe's top graphs do.
        try r.registerSubgraph(
            GraphConfig(
                parsing: """
                    type: "Whole"
                    input_stream: "IN:in"
                    output_stream: "OUT:out"
                    graph_options { [type.googleapis.com/test.AddOptions] { amount: 3 } }
                    node { calculator: "AddCalculator" input_stream: "in" output_stream: "out"
                           node_options { [type.googleapis.com/test.AddOptions] { amount: 100 label: "kept" } }
                           option_value: "OPTIONS:options" }
                    """))
        let whole = try Graph(
            GraphConfig(
                parsing: "input_stream: \"x\"\noutput_stream: \"y\"\nnode { calculator: \"Whole\" input_stream: \"IN:x\" output_stream: \"OUT:y\" }"),
            registry: r)
        #expect(try run(whole, [1]) == [4])
    }

    @Test func anUnconnectedInputIsRemovedFromInnerNodes() throws {
        let r = try registry([
            """
            type: "Logger"
            input_stream: "A:a"
            input_stream: "B:b"
            node { calculator: "InputLogCalculator" input_stream: "A:a" input_stream: "B:b"
                   node_options { [type.googleapis.com/x] { key: "unconnected" } } }
            """
        ])
        let g = try Graph(GraphConfig(parsing: "input_stream: \"x\"\nnode { calculator: \"Logger\" input_stream: \"A:x\" }"), registry: r)
        #expect(g.expandedConfig.nodes[0].inputStreams.map(\.tag) == ["A"])
        try g.start()
        try g.send(1, to: "x", at: 3)
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(InputLogCalculator.entries("unconnected") == ["3:A"], "B never carries a packet, and nothing waits for it")
    }

    @Test func brokenSubgraphsAreClearErrors() throws {
        let r = try registry([
            Self.addTwice,
            "type: \"Loop\"\ninput_stream: \"IN:in\"\noutput_stream: \"OUT:out\"\nnode { calculator: \"Loop\" input_stream: \"IN:in\" output_stream: \"OUT:out\" }",
            """
            type: "BadPath"
            input_stream: "IN:in"
            output_stream: "OUT:out"
            graph_options { [type.googleapis.com/test.AddOptions] { amount: 1 } }
            node { calculator: "AddCalculator" input_stream: "in" output_stream: "out"
                   node_options { [type.googleapis.com/test.AddOptions] { } }
                   option_value: "amount:options/amount/0/x" }
            """,
        ])
        func errors(_ text: String) -> String {
            do {
                _ = try Graph(GraphConfig(parsing: text, file: "top.pbtxt"), registry: r)
                return ""
            } catch { return "\(error)" }
        }
        let unknown = errors("input_stream: \"x\"\nnode { calculator: \"AddTwize\" input_stream: \"IN:x\" output_stream: \"OUT:y\" }")
        #expect(unknown.contains("top.pbtxt:2:1") && unknown.contains("did you mean 'AddTwice'?"), "\(unknown)")
        let loop = errors("input_stream: \"x\"\nnode { calculator: \"Loop\" input_stream: \"IN:x\" output_stream: \"OUT:y\" }")
        #expect(loop.contains("sub1.pbtxt:4:1") && loop.contains("subgraph 'Loop' includes itself") && loop.contains("top.pbtxt:2:1"), "\(loop)")
        let tag = errors("input_stream: \"x\"\nnode { calculator: \"AddTwice\" input_stream: \"IMAGE:x\" output_stream: \"OUT:y\" }")
        #expect(tag.contains("top.pbtxt:2:") && tag.contains("declares no input stream IMAGE") && tag.contains("sub0.pbtxt"), "\(tag)")
        let path = errors("input_stream: \"x\"\nnode { calculator: \"BadPath\" input_stream: \"IN:x\" output_stream: \"OUT:y\" }")
        #expect(path.contains("sub2.pbtxt:7:") && path.contains("bad field path") && path.contains("top.pbtxt:2:1"), "\(path)")
    }
}
