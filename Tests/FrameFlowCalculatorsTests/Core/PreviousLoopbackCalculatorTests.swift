import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe's PreviousLoopbackCalculator: each MAIN timestamp gets the LOOP packet of the
/// MAIN timestamp before it, or a bound; in a real loop; and the cases of
/// previous_loopback_calculator_test.cc.
@Suite struct PreviousLoopbackCalculatorTests {
    /// A runner with MAIN on "main" and LOOP on "loop" (a back edge), PREV_LOOP on "prev".
    func runner() throws -> CalculatorRunner {
        let r = try CalculatorRunner(
            PreviousLoopbackCalculator.self, inputs: ["MAIN:main", "LOOP:loop"], outputs: ["PREV_LOOP:prev"],
            backEdges: ["LOOP"])
        try r.start()
        return r
    }

    /// A graph with MAIN on "main", LOOP on "loop" (a back edge) and PREV_LOOP on "prev", and
    /// a PacketPresenceCalculator writing PREV_LOOP's presence to "present". "loop" is a graph
    /// input unless `loopNode` writes it.
    func presenceGraph(loopNode: String? = nil) throws -> Graph {
        let text = """
            input_stream: "main"
            \(loopNode == nil ? "input_stream: \"loop\"" : "")
            node {
              calculator: "PreviousLoopbackCalculator"
              input_stream: "MAIN:main"
              input_stream: "LOOP:loop"
              input_stream_info: { tag_index: "LOOP" back_edge: true }
              output_stream: "PREV_LOOP:prev"
            }
            node { calculator: "PacketPresenceCalculator" input_stream: "PACKET:prev" output_stream: "PRESENCE:present" }
            \(loopNode ?? "")
            """
        return try Graph(GraphConfig(parsing: text), registry: .standard)
    }

    @Test func eachMainGetsThePreviousLoopPacket() throws {
        let r = try runner()
        try r.push("m1", tag: "MAIN", at: 1)
        try r.runUntilIdle()
        #expect(r.takeOutputs("PREV_LOOP").isEmpty, "the first MAIN packet has no previous loop packet")
        try r.push(10, tag: "LOOP", at: 1)
        try r.push("m2", tag: "MAIN", at: 2)
        try r.runUntilIdle()
        #expect(try values(r.takeOutputs("PREV_LOOP"), as: Int.self).map { [$0.0, Int64($0.1)] } == [[2, 10]])
        try r.push(20, tag: "LOOP", at: 2)
        try r.push("m5", tag: "MAIN", at: 5)
        try r.runUntilIdle()
        // The LOOP packet of the previous MAIN timestamp (2), not the current one, at MAIN's timestamp.
        #expect(try values(r.takeOutputs("PREV_LOOP"), as: Int.self).map { [$0.0, Int64($0.1)] } == [[5, 20]])
        try r.push(50, tag: "LOOP", at: 5)
        #expect(try r.finish().isClean)
    }

    @Test func waitsForTheLoopToSettleThePreviousTimestamp() throws {
        let r = try runner()
        try r.push("m1", tag: "MAIN", at: 1)
        try r.push("m2", tag: "MAIN", at: 2)
        try r.runUntilIdle()
        #expect(r.takeOutputs("PREV_LOOP").isEmpty, "LOOP has not settled timestamp 1 yet")
        try r.push(10, tag: "LOOP", at: 1)
        try r.runUntilIdle()
        #expect(try values(r.takeOutputs("PREV_LOOP"), as: Int.self).map(\.0) == [2])
        try r.finish()
    }

    @Test func aLoopWithoutPacketAdvancesTheBound() throws {
        // MAIN 1, 2, 3; LOOP has 1, skips 2 (its bound passes it), has 3: PREV_LOOP carries
        // the packet of 1 at 2, nothing at 3, and the bound past 3 reaches a consumer at once.
        let graph = try presenceGraph()
        let prev = try PacketCollector(graph, "prev")
        let present = try PacketCollector(graph, "present")
        try graph.start()
        try graph.send("m1", to: "main", at: 1)
        try graph.waitUntilIdle()
        #expect(try values(present.packets, as: Bool.self).map(\.0) == [1], "the first MAIN must advance PREV_LOOP's bound")
        try graph.send(10, to: "loop", at: 1)
        try graph.send("m2", to: "main", at: 2)
        try graph.setTimestampBound(3, on: "loop")
        try graph.send("m3", to: "main", at: 3)
        try graph.waitUntilIdle()
        #expect(try values(prev.packets, as: Int.self).map { [$0.0, Int64($0.1)] } == [[2, 10]])
        #expect(try values(present.packets, as: Bool.self).map { "\($0.0):\($0.1)" } == ["1:false", "2:true", "3:false"])
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
    }

    @Test func aMainBoundMovesThePrevLoopBound() throws {
        let graph = try presenceGraph()
        let present = try PacketCollector(graph, "present")
        try graph.start()
        try graph.send("m1", to: "main", at: 1)
        try graph.send(10, to: "loop", at: 1)
        try graph.setTimestampBound(5, on: "main")  // MAIN skips 2…4
        try graph.waitUntilIdle()
        #expect(present.timestamps.last == 4, "PREV_LOOP's bound must follow MAIN's: \(present.timestamps)")
        try graph.send("m5", to: "main", at: 5)
        try graph.waitUntilIdle()
        // 5 pairs with LOOP at 1, the MAIN packet before it.
        #expect(try values(present.packets, as: Bool.self).last.map { "\($0.0):\($0.1)" } == "5:true")
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
    }

    /// Adds MAIN to PREV_LOOP (0 when there is none): a running sum through the loop.
    private final class SumCalculator: Calculator {
        static let contract = CalculatorContract(
            inputs: [.init("MAIN", Int.self), .init("PREV", Int.self)], outputs: [.init("SUM", Int.self)])
        init(options: NoOptions) {}
        func process(_ cc: CalculatorContext) throws {
            let prev = cc.hasInput("PREV") ? try cc.input("PREV", as: Int.self) : 0
            try cc.emit(cc.input("MAIN", as: Int.self) + prev, tag: "SUM")
        }
    }

    /// x → running sum, the loop closed through PreviousLoopback; with `slowLoop` the sum comes
    /// back through a node that sleeps 20 ms, long after every x is in and MAIN has closed.
    func runningSums(slowLoop: Bool) throws -> PacketCollector {
        let loop = slowLoop ? "slow_sum" : "sum"
        let text = """
            input_stream: "x"
            output_stream: "sum"
            node {
              calculator: "PreviousLoopbackCalculator"
              input_stream: "MAIN:x"
              input_stream: "LOOP:\(loop)"
              input_stream_info: { tag_index: "LOOP" back_edge: true }
              output_stream: "PREV_LOOP:prev_sum"
            }
            node { calculator: "SumCalculator" input_stream: "MAIN:x" input_stream: "PREV:prev_sum" output_stream: "SUM:sum" }
            \(slowLoop ? "node { calculator: \"SleepCalculator\" input_stream: \"sum\" output_stream: \"slow_sum\" options { [SleepCalculator.Options] { microseconds: 20000 } } }" : "")
            """
        let registry = CalculatorRegistry.standard.adding([SumCalculator.self, SleepCalculator.self])
        let graph = try Graph(GraphConfig(parsing: text), registry: registry)
        let sum = try PacketCollector(graph, "sum")
        try graph.start()
        for (i, t) in [1, 2, 4, 7, 8].enumerated() { try graph.send(i + 1, to: "x", at: Timestamp(Int64(t))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        return sum
    }

    @Test func closesALoopInAGraph() throws {
        let sum = try runningSums(slowLoop: false)
        #expect(try values(sum.packets, as: Int.self).map(\.1) == [1, 3, 6, 10, 15])
        #expect(sum.timestamps == [1, 2, 4, 7, 8])
    }

    /// The node stays open for the answers it owes after MAIN closes (it used to close and
    /// drop them).
    @Test func aSlowLoopStillAnswersAfterMainCloses() throws {
        let sum = try runningSums(slowLoop: true)
        #expect(try values(sum.packets, as: Int.self).map(\.1) == [1, 3, 6, 10, 15])
    }

    @Test func anEmptyLoopForeverNeverBlocksTheConsumer() throws {
        // The loop's producer is a closed gate: LOOP only ever moves its bound. Each MAIN
        // timestamp must still reach the consumer (as an empty PREV_LOOP) at once.
        let graph = try presenceGraph(loopNode: #"node { calculator: "GateCalculator" input_stream: "main" output_stream: "loop" }"#)
        let present = try PacketCollector(graph, "present")
        try graph.start()
        for t: Int64 in [1, 2, 3, 5, 15] {
            try graph.send(Int(t), to: "main", at: Timestamp(t))
            try graph.waitUntilIdle()
            #expect(present.timestamps.last == Timestamp(t), "PREV_LOOP blocked at \(t): \(present.timestamps)")
        }
        #expect(try values(present.packets, as: Bool.self).allSatisfy { !$0.1 })
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
    }

    @Test func handlesTheFirstAndLastTimestamps() throws {
        // As MediaPipe's ProcessesMaxTimestampNonEmptyPrevious: MAIN at min then max.
        let r = try runner()
        try r.push("first", tag: "MAIN", at: .min)
        try r.push(1, tag: "LOOP", at: .min)
        try r.push("last", tag: "MAIN", at: .max)
        try r.runUntilIdle()
        let out = r.takeOutputs("PREV_LOOP")
        #expect(out.map(\.timestamp) == [.max])
        #expect(try out.first?.get(Int.self) == 1)
        #expect(try r.finish().isClean)
    }

    @Test func refusesAMissingLoopInput() throws {
        let text = """
            input_stream: "main"
            node { calculator: "PreviousLoopbackCalculator" input_stream: "MAIN:main" output_stream: "PREV_LOOP:prev" }
            """
        let error = thrownDescription { try Graph(GraphConfig(parsing: text), registry: .standard).start() }
        #expect(error?.contains("LOOP") == true, "\(String(describing: error))")
    }
}
