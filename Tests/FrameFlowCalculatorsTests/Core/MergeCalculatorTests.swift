import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// MediaPipe's MergeCalculator: the first input with a packet wins at each timestamp.
@Suite struct MergeCalculatorTests {
    @Test func firstInputWithAPacketWinsAtEachTimestamp() throws {
        let r = try CalculatorRunner(
            node: "calculator: \"MergeCalculator\" input_stream: \"a\" input_stream: \"b\" input_stream: \"c\" output_stream: \"out\"",
            registry: .standard)
        r.add("a1", index: 0, at: 1)
        r.add(2, index: 1, at: 1)
        r.add(2, index: 1, at: 2)
        r.add(3.5, index: 2, at: 2)
        r.add(3.5, index: 2, at: 3)
        r.add("a4", index: 0, at: 4)
        r.add(3.5, index: 2, at: 4)
        try r.run()
        let got = r.outputs().map { "\($0.timestamp.microseconds):\($0.payload!)" }
        #expect(got == ["1:a1", "2:2", "3:3.5", "4:a4"])
    }

    @Test func waitsForEveryInputBeforeChoosing() throws {
        // Default policy: a later input's packet must not go out before an earlier input has
        // settled the timestamp (else the choice could be wrong).
        let text = """
            input_stream: "a"
            input_stream: "b"
            node { calculator: "MergeCalculator" input_stream: "a" input_stream: "b" output_stream: "out" }
            """
        let graph = try Graph(GraphConfig(parsing: text), registry: .standard)
        let out = try PacketCollector(graph, "out")
        try graph.start()
        try graph.send("b1", to: "b", at: 1)
        try graph.waitUntilIdle()
        #expect(out.packets.isEmpty)
        try graph.send("a1", to: "a", at: 1)
        try graph.waitUntilIdle()
        #expect(try out.packets.map { try $0.get(String.self) } == ["a1"])
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
    }

    @Test func refusesTaggedInputs() throws {
        let r = try CalculatorRunner(
            node: "calculator: \"MergeCalculator\" input_stream: \"A:a\" input_stream: \"b\" output_stream: \"out\"",
            registry: .standard)
        let e = #expect(throws: GraphError.self) { try r.run() }
        #expect(e?.description.contains("untagged") == true, "\(String(describing: e))")
    }
}
