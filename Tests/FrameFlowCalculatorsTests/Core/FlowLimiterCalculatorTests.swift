import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Synchronization
import Testing

@Suite struct FlowLimiterCalculatorTests {
    static let graphText = """
        input_stream: "in"
        output_stream: "out"
        node {
          calculator: "FlowLimiterCalculator"
          input_stream: "in"
          input_stream: "FINISHED:out"
          input_stream_info: { tag_index: "FINISHED" back_edge: true }
          output_stream: "throttled"
          options { [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: 1 max_in_queue: 0 } }
        }
        node { calculator: "SleepCalculator" input_stream: "throttled" output_stream: "out" }
        """

    @Test func dropsFramesWhileOneIsInFlightAndNeverStalls() throws {
        let registry = CalculatorRegistry.standard.adding([SleepCalculator.self])
        let graph = try Graph(GraphConfig(parsing: Self.graphText), registry: registry)
        let out = try PacketCollector(graph, "out")
        try graph.start()
        for i in 0..<200 {
            try graph.send(i, to: "in", at: Timestamp(Int64(i)))
            if i % 20 == 19 { try graph.waitUntilIdle() }  // the slow node catches up now and then
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let got = try out.packets.map { try $0.get(Int.self) }
        #expect(got.first == 0)
        #expect(got.count < 200, "a slow node behind the limiter must see fewer frames")
        #expect(got.count >= 10, "after each catch-up the next frame must pass: \(got)")
        #expect(got == got.sorted())
        // Every frame the limiter kept back is counted, so no frame goes missing silently.
        let limiter = try #require(graph.statistics.nodes.first { $0.name == "FlowLimiterCalculator" })
        #expect(limiter.dropped == 200 - got.count, "\(limiter.dropped) dropped, \(got.count) of 200 passed")
        #expect(graph.statistics.droppedInQueues >= 200 - got.count)
    }

    @Test func passesEverythingWhenTheGuardedPartKeepsUp() throws {
        // Sending waits for each output, so exactly one frame is ever in flight.
        let registry = CalculatorRegistry.standard.adding([SleepCalculator.self])
        var config = try GraphConfig(parsing: Self.graphText)
        config.nodes[1].options = .value(SleepCalculator.Options(microseconds: 0))
        let graph = try Graph(config, registry: registry)
        let out = try PacketCollector(graph, "out")
        try graph.start()
        for i in 0..<50 {
            try graph.send(i, to: "in", at: Timestamp(Int64(i)))
            try graph.waitUntilIdle()
        }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(try out.packets.map { try $0.get(Int.self) } == Array(0..<50))
    }

    @Test func queuesUpToMaxInQueueAndDropsTheOldest() throws {
        // Without FINISHED nothing ever finishes: frame 0 passes, then the queue of 2
        // keeps the newest frames and drops older ones; nothing else passes.
        let runner = try CalculatorRunner(
            FlowLimiterCalculator.self, options: .init(maxInFlight: 1, maxInQueue: 2), inputs: ["in"], outputs: ["out"])
        for i in 0..<6 { runner.add(i, at: Timestamp(Int64(i))) }
        try runner.run()
        #expect(try runner.outputs().map { try $0.get(Int.self) } == [0])
    }

    @Test func rejectsInvalidOptions() throws {
        let text = """
            input_stream: "in"
            node {
              calculator: "FlowLimiterCalculator"
              input_stream: "in"
              output_stream: "out"
              options { [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: 0 } }
            }
            """
        // Refused when the graph is built (so `frameflow validate` agrees with the run).
        let errors = #expect(throws: GraphErrors.self) { try Graph(GraphConfig(parsing: text), registry: .standard) }
        let error = errors?.errors.first
        #expect(error?.kind == .invalidOption && error?.node == "FlowLimiterCalculator")
        #expect(error?.description.contains("max_in_flight") == true)
    }
}
