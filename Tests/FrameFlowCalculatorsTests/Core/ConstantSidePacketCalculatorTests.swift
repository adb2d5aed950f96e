import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe's ConstantSidePacketCalculator: each option packet becomes PACKET:i with its
/// type; broken options and ports refused; options from text and binary graphs.
@Suite struct ConstantSidePacketCalculatorTests {
    /// Starts a graph of one constant node with `packets` as option packets and `count` outputs.
    func sidePackets(_ packets: String, count: Int) throws -> Graph {
        let outputs = (0..<count).map { "output_side_packet: \"PACKET:\($0):p\($0)\"" }.joined(separator: "\n")
        let text = """
            node {
              calculator: "ConstantSidePacketCalculator"
              \(outputs)
              options { [mediapipe.ConstantSidePacketCalculatorOptions.ext] { \(packets) } }
            }
            """
        let graph = try Graph(GraphConfig(parsing: text), registry: .standard)
        try graph.start()
        try graph.waitUntilDone()
        return graph
    }

    @Test func everyValueFieldBecomesASidePacketOfItsType() throws {
        let g = try sidePackets(
            """
            packet { int_value: -7 }
            packet { float_value: 0.5 }
            packet { double_value: 2.25 }
            packet { bool_value: true }
            packet { string_value: "face" }
            packet { uint64_value: 18000000000 }
            packet { int64_value: -9000000000 }
            packet { string_vector_value { string_value: "a" string_value: "b" } }
            packet { string_vector_value { string_value: "only" } }
            """, count: 9)
        #expect(try g.outputSidePacket("p0")?.get(Int.self) == -7)
        #expect(try g.outputSidePacket("p1")?.get(Float.self) == 0.5)
        #expect(try g.outputSidePacket("p2")?.get(Double.self) == 2.25)
        #expect(try g.outputSidePacket("p3")?.get(Bool.self) == true)
        #expect(try g.outputSidePacket("p4")?.get(String.self) == "face")
        #expect(try g.outputSidePacket("p5")?.get(UInt64.self) == 18_000_000_000)
        #expect(try g.outputSidePacket("p6")?.get(Int64.self) == -9_000_000_000)
        #expect(try g.outputSidePacket("p7")?.get([String].self) == ["a", "b"])
        #expect(try g.outputSidePacket("p8")?.get([String].self) == ["only"])
    }

    @Test func feedsADownstreamNodesSidePacket() throws {
        // The constant reaches a consumer's side packet: a gate opened by ALLOW from options.
        let text = """
            input_stream: "x"
            node {
              calculator: "ConstantSidePacketCalculator"
              output_side_packet: "PACKET:allow"
              options { [mediapipe.ConstantSidePacketCalculatorOptions.ext] { packet { bool_value: true } } }
            }
            node { calculator: "GateCalculator" input_side_packet: "ALLOW:allow" input_stream: "x" output_stream: "y" }
            """
        let graph = try Graph(GraphConfig(parsing: text), registry: .standard)
        let y = try PacketCollector(graph, "y")
        try graph.start()
        try graph.send(5, to: "x", at: 1)
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try values(y.packets, as: Int.self).map(\.1) == [5])
    }

    /// The error of a graph whose constant node has `packets` and `count` outputs.
    func failure(_ packets: String, count: Int = 1) -> String? {
        thrownDescription { _ = try sidePackets(packets, count: count) }
    }

    @Test func refusesMessageValuedConstantsNamingTheField() {
        let e = failure("packet { classification_list_value { classification { index: 1 } } }")
        #expect(e?.contains("packet.classification_list_value") == true, "\(String(describing: e))")
    }

    @Test func refusesPacketsWithNoneOrTwoValues() {
        let none = failure("packet { }")
        #expect(none?.contains("one value field") == true, "\(String(describing: none))")
        let two = failure("packet { int_value: 1 bool_value: true }")
        #expect(two?.contains("int_value") == true && two?.contains("bool_value") == true, "\(String(describing: two))")
    }

    @Test func refusesWrongValueTypesAndRanges() {
        let text = failure("packet { int_value: \"one\" }")
        #expect(text?.contains("packet.int_value") == true, "\(String(describing: text))")
        let big = failure("packet { int_value: 3000000000 }")
        #expect(big?.contains("int32") == true, "\(String(describing: big))")
    }

    @Test func refusesACountMismatch() {
        let e = failure("packet { int_value: 1 } packet { int_value: 2 }", count: 1)
        #expect(e?.contains("one output side packet PACKET:i per option packet") == true, "\(String(describing: e))")
    }

    @Test func optionsReadFromABinaryGraph() throws {
        let bytes = ProtobufWire.graph(
            calculator: "ConstantSidePacketCalculator", sideOutputs: ["PACKET:0:a", "PACKET:1:b", "PACKET:2:c"], ext: 291214597
        ) { o in
            o.message(1) { p in p.int(1, 42) }
            o.message(1) { p in p.double(9, 1.5) }
            o.message(1) { p in
                p.message(13) { v in
                    v.string(1, "x"); v.string(1, "y")
                }
            }
        }
        let graph = try Graph(GraphConfig(binary: bytes, file: "constant.binarypb", registry: .standard), registry: .standard)
        let options = graph.options(ofNode: "node") as? ConstantSidePacketCalculator.Options
        #expect(options == .init(packet: [.init(.int(42)), .init(.double(1.5)), .init(.stringVector(["x", "y"]))]))
        try graph.start()
        try graph.waitUntilDone()
        #expect(try graph.outputSidePacket("c")?.get([String].self) == ["x", "y"])
    }

    @Test func binaryMessageValuedConstantIsRefusedNamingTheField() throws {
        let bytes = ProtobufWire.graph(calculator: "ConstantSidePacketCalculator", sideOutputs: ["PACKET:a"], ext: 291214597) { o in
            o.message(1) { p in p.message(7) { _ in } }
        }
        let e = thrownDescription {
            let graph = try Graph(GraphConfig(binary: bytes, file: "constant.binarypb", registry: .standard), registry: .standard)
            try graph.start()
        }
        #expect(e?.contains("landmark_list_value") == true, "\(String(describing: e))")
    }

    /// A NaN or infinite constant is refused when the graph is built, naming the packet.
    @Test(arguments: ["float_value: inf", "double_value: nan", "double_value: -inf"])
    func refusesNonFiniteConstants(value: String) {
        let e = nodeOptionError(
            """
            calculator: "ConstantSidePacketCalculator" output_side_packet: "PACKET:0:a" output_side_packet: "PACKET:1:b"
            options { [mediapipe.ConstantSidePacketCalculatorOptions.ext] { packet { int_value: 1 } packet { \(value) } } }
            """)
        expectInvalidOption(e, naming: "packet[1]", value)
    }
}
