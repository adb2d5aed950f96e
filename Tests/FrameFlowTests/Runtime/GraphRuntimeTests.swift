import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Foundation
import Synchronization
import Testing

func ints(_ c: PacketCollector) throws -> [Int] { try c.packets.map { try $0.get(Int.self) } }

@Suite struct GraphRuntimeTests {
    @Test func edgeDetectionGraphRunsEndToEnd() throws {
        let graph = try Graph(contentsOfFile: RepositoryFiles.path("Graphs/edge_detection_mobile_gpu.pbtxt"), registry: .standard)
        let out = try PacketCollector(graph, "output_video")
        try graph.start()
        var inputs: [ImageFrame] = []
        for i in 0..<5 {
            let img = try TestImages.random(width: 40 + i, height: 30, format: .rgba8, seed: UInt64(i))
            inputs.append(img)
            try graph.send(img, to: "input_video", at: Timestamp(Int64(i) * 33_333))
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(out.timestamps == (0..<5).map { Timestamp(Int64($0) * 33_333) })
        #expect(out.isClosed)
        for (p, input) in zip(out.packets, inputs) {
            let expected = try SobelEdgesCalculator.edges(try LuminanceCalculator.luminance(input))
            #expect(TestImages.maxDifference(try p.get(ImageFrame.self), expected) == 0)
        }
    }

    @Test func dslBuildsTheSameGraph() throws {
        let config = try GraphConfig {
            Input("input_video")
            Output("output_video")
            Node(LuminanceCalculator.self, in: "input_video", out: "luma_video")
            Node(SobelEdgesCalculator.self, in: "luma_video", out: "output_video")
        }
        let file = try GraphConfig(contentsOfFile: RepositoryFiles.path("Graphs/edge_detection_mobile_gpu.pbtxt"))
        #expect(config.inputStreams == file.inputStreams && config.outputStreams == file.outputStreams)
        #expect(config.nodes.map(\.calculator) == file.nodes.map(\.calculator))
        #expect(config.nodes.map(\.inputStreams) == file.nodes.map(\.inputStreams))
        #expect(config.nodes.map(\.outputStreams) == file.nodes.map(\.outputStreams))
        // Nodes built in Swift need no registry.
        let graph = try Graph(config)
        let out = try PacketCollector(graph, "output_video")
        try graph.start()
        try graph.send(try TestImages.random(width: 8, height: 8, format: .rgba8), to: "input_video", at: 0)
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(out.packets.count == 1)
    }

    /// a → (add, evenFilter) → sum: outputs in timestamp order; where the filter emits
    /// nothing, SUM still runs (B empty) instead of stalling.
    @Test func diamondOrdersByTimestampAndNeverStalls() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("s")
            Node(AddCalculator.self, in: "x", out: "plus")
            Node(SleepCalculator.self, in: ["plus"], out: ["slow_plus"], options: SleepCalculator.Options(microseconds: 200))
            Node(EvenFilterCalculator.self, in: "x", out: "even")
            Node(SumCalculator.self, in: ["A:slow_plus", "B:even"], out: ["SUM:s"])
        }
        let out = try PacketCollector(graph, "s")
        try graph.start()
        try graph.send(1, to: "x", at: 1)
        try graph.waitUntilIdle()
        // No later packet was sent: the odd frame went through on the bound alone.
        #expect(try ints(out) == [2 + 1000])
        for i in 2..<50 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(out.timestamps == (1..<50).map { Timestamp(Int64($0)) })
        #expect(try ints(out) == (1..<50).map { $0 % 2 == 0 ? ($0 + 1) + $0 : ($0 + 1) + 1000 })
    }

    @Test func chainWithSilentNodeDoesNotStall() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(EvenFilterCalculator.self, in: "x", out: "e")
            Node(AddCalculator.self, in: "e", out: "y")
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        for i in 0..<100 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.waitUntilIdle()
        #expect(try ints(out) == stride(from: 0, to: 100, by: 2).map { $0 + 1 })
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
    }

    /// A slow node behind a drop-oldest edge: 10 000 frames, live images stay bounded,
    /// and every frame is either processed or counted as dropped.
    ///
    /// The observer of "out" is a sink node with its own queue (the graph's max queue size,
    /// block policy), so the bound counts it: 1 image held by the sender, 4 in the
    /// drop-oldest queue, 1 in the slow node, 4 + 1 in the sink's queue (block is a soft
    /// bound: a throttled producer may finish one call past it) and 1 in the callback = 12.
    @Test func dropOldestKeepsMemoryFlat() throws {
        let pool = ImagePool(maxFreeBlocksPerSize: 8)
        let graph = try Graph(registry: testRegistry) {
            Settings(maxQueueSize: 4)
            Input("frames")
            Output("out")
            Node(SleepCalculator.self, in: ["frames"], out: ["out"], options: SleepCalculator.Options(microseconds: 20))
                .queue("0", policy: .dropOldest, size: 4)
        }
        let processed = Atomic<Int>(0)
        try graph.observe("out") { _ in processed.add(1, ordering: .relaxed) }
        try graph.start()
        var peak = 0
        for i in 0..<10_000 {
            var m = try pool.makeImage(width: 16, height: 16, format: .rgba8)
            m.fill(UInt8(i & 255))
            try graph.send(m.freeze(), to: "frames", at: Timestamp(Int64(i)))
            if i % 100 == 0 { peak = max(peak, pool.liveBuffers) }
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let stats = graph.statistics
        let dropped = stats.droppedInQueues
        #expect(processed.load(ordering: .relaxed) + dropped == 10_000)
        #expect(dropped > 0, "the sender is faster than a 20µs node")
        #expect(peak <= 12, "live images must stay bounded by the queues (4 + 4) plus those being worked on, saw \(peak)")
        #expect(pool.liveBuffers == 0, "every image must be released after the run")
        #expect(pool.statistics.allocations <= 32, "pixel memory must be recycled: \(pool.statistics)")
    }

    @Test func keepLatestDeliversTheNewestFrame() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(SleepCalculator.self, in: ["x"], out: ["y"], options: SleepCalculator.Options(microseconds: 2000))
                .queue("0", policy: .keepLatest)
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        for i in 0..<50 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let got = try ints(out)
        #expect(got.last == 49, "the newest frame must survive")
        #expect(got.count + graph.statistics.droppedInQueues == 50)
        #expect(got.count < 50)
    }

    @Test func blockPolicyLosesNothing() throws {
        let graph = try Graph(registry: testRegistry) {
            Settings(maxQueueSize: 2, queuePolicy: .block)
            Input("x")
            Output("y")
            Node(SleepCalculator.self, in: ["x"], out: ["s"], options: SleepCalculator.Options(microseconds: 100))
            Node(AddCalculator.self, in: "s", out: "y")
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        for i in 0..<300 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try ints(out) == (1...300).map { $0 })
        #expect(graph.statistics.nodes.allSatisfy { $0.maxQueueDepth <= 3 }, "\(graph.statistics.nodes.map(\.maxQueueDepth))")
    }

    @Test func maxFramesInFlightRejectsAndRecovers() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(SleepCalculator.self, in: ["x"], out: ["y"], options: SleepCalculator.Options(microseconds: 20_000))
        }
        graph.maxFramesInFlight = 2
        let out = try PacketCollector(graph, "y")
        try graph.start()
        var accepted: [Bool] = []
        for i in 0..<6 { accepted.append(try graph.send(i, to: "x", at: Timestamp(Int64(i)))) }
        #expect(accepted == [true, true, false, false, false, false])
        try graph.waitUntilIdle()
        #expect(try graph.send(10, to: "x", at: 10), "frames must be accepted again once the graph drained")
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try ints(out) == [0, 1, 10])
        #expect(graph.statistics.framesRejected == 4)
    }

    @Test func processErrorSurfacesWithNodeName() throws {
        let before = FailingCalculator.closes.load(ordering: .relaxed)
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(FailingCalculator.self, name: "detector", in: "x", out: "y")
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        for i in 0..<20 { _ = try? graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        _ = try? graph.closeAllInputStreams()
        let e = #expect(throws: GraphError.self) { try graph.waitUntilDone() }
        #expect(e?.kind == .calculatorFailed && e?.node == "detector")
        #expect(e?.description.contains("process at 5µs failed: boom at the bad frame") == true, "\(String(describing: e))")
        #expect(e?.underlying is Boom)
        #expect(try ints(out) == [0, 1, 2, 3, 4])
        #expect(FailingCalculator.closes.load(ordering: .relaxed) >= before + 1, "close must run after a failure")
        #expect(throws: GraphError.self) { try graph.send(99, to: "x", at: 99) }
    }

    @Test func statisticsCountProcessCallsNotTheClose() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(AddCalculator.self, in: ["x"], out: ["y"])
        }
        try graph.start()
        for i in 0..<90 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let node = try #require(graph.statistics.nodes.first { !$0.isOutput })
        #expect(node.calls == 90, "90 packets, \(node.calls) calls")
    }

    @Test func cancelReturnsPromptly() throws {
        let graph = try Graph(registry: testRegistry) {
            Settings(maxQueueSize: 0)
            Input("x")
            Output("y")
            Node(SleepCalculator.self, in: ["x"], out: ["y"], options: SleepCalculator.Options(microseconds: 5000))
        }
        try graph.start()
        for i in 0..<1000 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        usleep(20_000)
        let t0 = Date()
        graph.cancel()
        let e = #expect(throws: GraphError.self) { try graph.waitUntilDone() }
        #expect(e?.kind == .cancelled)
        #expect(Date().timeIntervalSince(t0) < 1.0)
        #expect(graph.statistics.nodes[0].calls < 100)
    }

    @Test func timestampGoingBackwardsIsRejectedWithBothValues() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Node(AddCalculator.self, in: "x", out: "y")
        }
        try graph.start()
        try graph.send(1, to: "x", at: 100)
        let e = #expect(throws: GraphError.self) { try graph.send(2, to: "x", at: 50) }
        #expect(e?.kind == .timestampOrder && e?.stream == "x")
        #expect(e?.description.contains("50µs") == true && e?.description.contains("100µs") == true)
        #expect(throws: GraphError.self) { try graph.send(2, to: "x", at: 100) }  // equal is not increasing
        #expect(throws: GraphError.self) { try graph.send(2, to: "nope", at: 200) }
        graph.cancel()
    }

    @Test func outputTimestampViolationNamesNodeAndStream() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Node(BadTimestampCalculator.self, name: "bad", in: "x", out: "y")
        }
        try graph.start()
        try graph.send(1, to: "x", at: 1)
        _ = try? graph.send(2, to: "x", at: 2)
        _ = try? graph.closeAllInputStreams()
        let e = #expect(throws: GraphError.self) { try graph.waitUntilDone() }
        #expect(e?.kind == .timestampOrder && e?.node == "bad" && e?.stream == "y")
        #expect(e?.description.contains("100µs after 100µs") == true, "\(String(describing: e))")
    }

    @Test func sidePacketsInAndOut() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            SidePacket("offset")
            Node(SideCalculator.self, in: ["x"], out: ["y"], sideIn: ["OFFSET:offset"], sideOut: ["DOUBLED:doubled"])
        }
        let out = try PacketCollector(graph, "y")
        #expect(throws: GraphError.self) { try graph.start() }  // missing side packet
        try graph.start(sidePackets: ["offset": 7])
        try graph.send(1, to: "x", at: 0)
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try ints(out) == [8])
        #expect(try graph.outputSidePacket("doubled")?.get(Int.self) == 14)
    }

    @Test func optionsChangeBetweenTimestamps() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(AddCalculator.self, name: "add", in: "x", out: "y")
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        for i in 0..<5 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.waitUntilIdle()
        var o = AddCalculator.Options()
        o.amount = 100
        try graph.setOptions(o, forNode: "add")
        for i in 5..<10 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try ints(out) == [1, 2, 3, 4, 5, 105, 106, 107, 108, 109])
        #expect(throws: GraphError.self) { try graph.setOptions(NoOptions(), forNode: "add") }
        let unknown = #expect(throws: GraphError.self) { try graph.setOptions(o, forNode: "nope") }
        #expect(unknown?.kind == .unknownNode)
    }

    @Test func asyncPollerEndsWhenTheStreamCloses() async throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(AddCalculator.self, in: "x", out: "y")
        }
        let stream = try graph.packets("y")
        try graph.start()
        for i in 0..<10 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        var got: [Int] = []
        for await p in stream { got.append(try p.get(Int.self)) }
        #expect(got == Array(1...10))
        try graph.waitUntilDone()
    }

    @Test func asyncPollerHoldsBackASlowConsumer() async throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(AddCalculator.self, in: "x", out: "y")
        }
        let stream = try graph.packets("y", bufferSize: 4)
        try graph.start()
        let sender = Thread {
            for i in 0..<200 { _ = try? graph.send(i, to: "x", at: Timestamp(Int64(i))) }
            try? graph.closeAllInputStreams()
        }
        sender.start()
        try await Task.sleep(for: .milliseconds(300))
        // Nobody reads yet: the graph waits once the buffer (and the queues before it) are full.
        let calls = graph.statistics.nodes.filter { !$0.isOutput }.map(\.calls).reduce(0, +)
        try await Task.sleep(for: .milliseconds(200))
        let later = graph.statistics.nodes.filter { !$0.isOutput }.map(\.calls).reduce(0, +)
        #expect(calls < 200 && later == calls, "\(calls), then \(later) packets went through with nobody reading")
        var got: [Int] = []
        for await p in stream { got.append(try p.get(Int.self)) }
        #expect(got == Array(1...200))
        try graph.waitUntilDone()
    }

    @Test func sourceCalculatorRunsToCompletion() throws {
        let graph = try Graph(registry: testRegistry) {
            Output("y")
            Node(
                CounterSourceCalculator.self, in: [], out: ["n"],
                options: {
                    var o = CounterSourceCalculator.Options(); o.count = 500; return o
                }())
            Node(AddCalculator.self, in: "n", out: "y")
        }
        let out = try PacketCollector(graph, "y")
        try graph.start()
        try graph.waitUntilDone()
        #expect(try ints(out) == Array(1...500))
    }

    @Test func lifecycleErrors() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Node(AddCalculator.self, in: "x", out: "y")
        }
        #expect(throws: GraphError.self) { try graph.send(1, to: "x", at: 0) }
        #expect(throws: GraphError.self) { try graph.observe("missing") { _ in } }
        try graph.start()
        #expect(throws: GraphError.self) { try graph.start() }
        #expect(throws: GraphError.self) { try graph.observe("y") { _ in } }
        try graph.closeAllInputStreams()
        #expect(throws: GraphError.self) { try graph.send(1, to: "x", at: 5) }
        try graph.waitUntilDone()
        // A finished graph can run again.
        try graph.start()
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
    }

    @Test func traceHasOneTrackPerNode() throws {
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(AddCalculator.self, name: "first", in: "x", out: "m")
            Node(AddCalculator.self, name: "second", in: "m", out: "y")
        }
        graph.isTracing = true
        try graph.start()
        for i in 0..<3 { try graph.send(i, to: "x", at: Timestamp(Int64(i))) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let json = try JSONSerialization.jsonObject(with: graph.chromeTrace()) as? [String: Any]
        let events = try #require(json?["traceEvents"] as? [[String: Any]])
        let names = Set(events.filter { $0["ph"] as? String == "X" }.compactMap { $0["name"] as? String })
        #expect(names.isSuperset(of: ["first", "second"]))
        #expect(events.filter { $0["ph"] as? String == "X" && $0["name"] as? String == "first" }.count == 4)  // 3 + close
    }
}
