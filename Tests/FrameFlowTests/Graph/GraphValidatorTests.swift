import FrameFlow
import FrameFlowTesting
import Testing

/// Validation before start: every error names the node, the stream, and the line and column.
@Suite struct GraphValidatorTests {
    func errors(_ text: String) -> [GraphError] { GraphBuildErrors.of(text, file: "g.pbtxt", registry: testRegistry) }

    @Test func unknownCalculatorSuggestsNearestName() {
        let e = errors("input_stream: \"a\"\nnode {\n  calculator: \"AddCalculatr\"\n  input_stream: \"a\"\n  output_stream: \"b\"\n}")
        #expect(e.count == 1)
        #expect(e.first?.kind == .unknownCalculator)
        #expect(e.first?.description == "g.pbtxt:2:1: node 'AddCalculatr': unknown calculator 'AddCalculatr' (did you mean 'AddCalculator'?)")
    }

    @Test func streamWithoutProducer() {
        let e = errors("node {\n  calculator: \"AddCalculator\"\n  input_stream: \"nowhere\"\n  output_stream: \"b\"\n}")
        #expect(e.first?.kind == .noProducer)
        #expect(e.first?.stream == "nowhere" && e.first?.node == "AddCalculator")
        #expect(e.first?.location?.line == 3 && e.first?.location?.column == 17)
    }

    @Test func twoNodesWithOneName() {
        let e = errors(
            """
            input_stream: "a"
            node { name: "add" calculator: "AddCalculator" input_stream: "a" output_stream: "b" }
            node { name: "add" calculator: "AddCalculator" input_stream: "b" output_stream: "c" }
            """)
        #expect(e.contains { $0.kind == .duplicateNodeName && $0.description.contains("two nodes are named 'add'") }, "\(e)")
    }

    @Test func streamWithTwoProducers() {
        let e = errors(
            """
            input_stream: "a"
            node { calculator: "AddCalculator" input_stream: "a" output_stream: "b" }
            node { calculator: "AddCalculator" input_stream: "a" output_stream: "b" }
            """)
        #expect(e.first?.kind == .multipleProducers)
        #expect(e.first?.stream == "b" && e.first?.node == "AddCalculator_2")
        #expect(e.first?.description.contains("node 'AddCalculator' and this node") == true)
        #expect(e.first?.location?.line == 3)
    }

    @Test func portTypeMismatch() {
        let e = errors(
            """
            input_stream: "a"
            node { calculator: "ToStringCalculator" input_stream: "a" output_stream: "s" }
            node { calculator: "AddCalculator" input_stream: "s" output_stream: "b" }
            """)
        #expect(e.first?.kind == .typeMismatch)
        #expect(e.first?.description.contains("produces String") == true)
        #expect(e.first?.description.contains("expects Int") == true)
        #expect(e.first?.stream == "s" && e.first?.location?.line == 3)
    }

    @Test func cycleWithoutBackEdgeListsTheCycle() {
        let e = errors(
            """
            input_stream: "x"
            node { name: "a" calculator: "SumCalculator" input_stream: "A:x" input_stream: "B:c_out" output_stream: "SUM:a_out" }
            node { name: "b" calculator: "AddCalculator" input_stream: "a_out" output_stream: "b_out" }
            node { name: "c" calculator: "AddCalculator" input_stream: "b_out" output_stream: "c_out" }
            """)
        #expect(e.first?.kind == .cycle)
        #expect(e.first?.description.contains("a → b → c → a") == true, "\(e)")
        // With the back edge marked, the same graph is valid.
        let ok = errors(
            """
            input_stream: "x"
            node { name: "a" calculator: "SumCalculator" input_stream: "A:x" input_stream: "B:c_out"
                   input_stream_info { tag_index: "B" back_edge: true } output_stream: "SUM:a_out" }
            node { name: "b" calculator: "AddCalculator" input_stream: "a_out" output_stream: "b_out" }
            node { name: "c" calculator: "AddCalculator" input_stream: "b_out" output_stream: "c_out" }
            """)
        #expect(ok.isEmpty, "\(ok)")
    }

    @Test func unknownOptionField() {
        let e = errors(
            """
            input_stream: "a"
            node {
              calculator: "AddCalculator" input_stream: "a" output_stream: "b"
              options { [test.AddOptions.ext] { amout: 3 } }
            }
            """)
        #expect(e.first?.kind == .unknownOption)
        #expect(e.first?.description.contains("unknown option 'amout' (did you mean 'amount'?)") == true, "\(e)")
        #expect(e.first?.location?.line == 4 && e.first?.location?.column == 37)
    }

    @Test(arguments: [
        ("amount: \"three\"", "amount"), ("amount: 1.5", "amount"), ("gain: TRUE_ISH", "gain"),
        ("mode: MULTIPLY", "mode"), ("range { low: \"x\" }", "range.low"), ("label: 5", "label"),
        ("amount: 1 amount: 2", "amount"),
    ])
    func wrongOptionType(field: String, name: String) {
        let e = errors(
            """
            input_stream: "a"
            node {
              calculator: "AddCalculator" input_stream: "a" output_stream: "b"
              node_options { [type.googleapis.com/test.AddOptions] { \(field) } }
            }
            """)
        #expect(e.first?.kind == .invalidOption, "\(e)")
        #expect(e.first?.description.contains("'\(name)'") == true, "\(e)")
        #expect(e.first?.location?.line == 4, "\(e)")
    }

    @Test func optionsDecodeWithDefaults() throws {
        let graph = try Graph(
            GraphConfig(
                parsing: """
                    input_stream: "a"
                    output_stream: "b"
                    node {
                      calculator: "AddCalculator" input_stream: "a" output_stream: "b"
                      options { [test.AddOptions.ext] { amount: 5 mode: SUBTRACT range { high: 7 } extra: 1 extra: 2 note: "hi" } }
                    }
                    """), registry: testRegistry)
        let out = try PacketCollector(graph, "b")
        try graph.start()
        try graph.send(10, to: "a", at: 0)
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try out.packets.map { try $0.get(Int.self) } == [5])
        // The decoded options themselves:
        let o = try decodedAddOptions("amount: 5 mode: SUBTRACT range { high: 7 } extra: 1 extra: 2 note: \"hi\" gain: 2")
        #expect(o.amount == 5 && o.mode == .subtract && o.range == .init(low: 0, high: 7) && o.extra == [1, 2])
        #expect(o.note == "hi" && o.gain == 2.0 && o.label == "")
    }

    @Test func wrongOptionsTypeName() {
        let e = errors(
            """
            input_stream: "a"
            node { calculator: "AddCalculator" input_stream: "a" output_stream: "b"
                   options { [mediapipe.OtherOptions.ext] { amount: 1 } } }
            """)
        #expect(e.first?.kind == .invalidOption)
        #expect(e.first?.description.contains("takes [test.AddOptions]") == true)
    }

    @Test func portsAgainstContract() {
        let e = errors(
            """
            input_stream: "a"
            node { calculator: "SumCalculator" input_stream: "C:a" output_stream: "SUM:s" }
            """)
        #expect(e.contains { $0.kind == .invalidPort && $0.description.contains("no input tagged 'C'") })
        #expect(e.contains { $0.kind == .invalidPort && $0.description.contains("input A of SumCalculator is not connected") })
    }

    @Test func severalErrorsReportedTogether() {
        let e = errors(
            """
            node { calculator: "Nope" }
            node { calculator: "AddCalculator" input_stream: "missing" output_stream: "b" }
            """)
        #expect(e.count == 2)
    }
}

/// Reads AddCalculator.Options from option text through a real graph build.
func decodedAddOptions(_ body: String) throws -> AddCalculator.Options {
    let graph = try Graph(
        GraphConfig(
            parsing: """
                input_stream: "a"
                node { name: "n" calculator: "AddCalculator" input_stream: "a" output_stream: "b"
                       options { [test.AddOptions.ext] { \(body) } } }
                """), registry: testRegistry)
    return try #require(graph.options(ofNode: "n") as? AddCalculator.Options)
}
