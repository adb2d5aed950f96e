import FrameFlow
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Chained steps (`GraphRuntime.runStepsLocked`): a packet handed straight from one node's
/// step to its idle consumer must look to calculators and applications exactly as one that
/// went through the consumer's queue — values, order, statistics, options, failures.
@Suite struct ChainedStepTests {
    /// A counter source's options for `n` packets.
    static func counting(_ n: Int) -> CounterSourceCalculator.Options {
        var o = CounterSourceCalculator.Options()
        o.count = n
        return o
    }

    /// A source and six serial nodes, long enough that every node is measured short and
    /// chained: each packet arrives once, in order, with one call per packet per node.
    @Test(arguments: [1, 2]) func chainKeepsEveryPacketInOrder(threads: Int) throws {
        let n = 3000
        let graph = try Graph(registry: testRegistry) {
            Settings(numThreads: threads)
            Output("y")
            Node(
                CounterSourceCalculator.self, in: [], out: ["s0"],
                options: Self.counting(n))
            for k in 0..<6 { Node(AddCalculator.self, name: "add\(k)", in: "s\(k)", out: k == 5 ? "y" : "s\(k + 1)") }
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        try graph.waitUntilDone()
        #expect(try ints(out) == (0..<n).map { $0 + 6 })
        #expect(out.timestamps == (0..<n).map { Timestamp(Int64($0)) })
        let adds = graph.statistics.nodes.filter { $0.name.hasPrefix("add") }
        #expect(adds.count == 6)
        #expect(adds.allSatisfy { $0.calls == n && $0.dropped == 0 }, "\(adds.map(\.calls))")
        // Every queue held a packet at some point: a hand-off counts as a depth of one.
        #expect(adds.allSatisfy { $0.maxQueueDepth >= 1 }, "\(adds.map(\.maxQueueDepth))")
    }

    /// Options set while the nodes chain apply from the next timestamp on: a node with
    /// options pending is never handed a packet past them.
    @Test func optionsReachAChainedNode() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(AddCalculator.self, name: "a1", in: "x", out: "s1")
            Node(AddCalculator.self, name: "a2", in: "s1", out: "s2")
            Node(AddCalculator.self, name: "a3", in: "s2", out: "y")
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        for i in 0..<50 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.waitUntilIdle()
        var o = AddCalculator.Options()
        o.amount = 100
        try graph.setOptions(o, forNode: "a2")
        for i in 50..<100 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try ints(out) == (0..<100).map { $0 < 50 ? $0 + 3 : $0 + 102 })
    }

    /// A failure inside a chain stops the run with the node's name, and the output keeps
    /// everything the failing node passed on before it.
    @Test(arguments: [1, 2]) func failureInsideAChainStopsTheRun(threads: Int) throws {
        let graph = try Graph(registry: testRegistry) {
            Settings(numThreads: threads)
            Output("y")
            Node(
                CounterSourceCalculator.self, in: [], out: ["s0"],
                options: Self.counting(1000))
            Node(AddCalculator.self, in: "s0", out: "s1")
            Node(AddCalculator.self, in: "s1", out: "s2")
            Node(
                FailingCalculator.self, name: "f", in: "s2", out: "y",
                options: {
                    var o = FailingCalculator.Options(); o.failAt = 300; return o
                }())
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        let e = #expect(throws: GraphError.self) { try graph.waitUntilDone() }
        #expect(e?.kind == .calculatorFailed && e?.node == "f", "\(String(describing: e))")
        #expect(try ints(out) == Array(2..<300))
    }
}
