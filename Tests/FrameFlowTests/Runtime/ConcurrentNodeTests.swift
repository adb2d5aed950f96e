import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Foundation
import Synchronization
import Testing

/// What an `OverlapProbeCalculator` saw: how many `process` calls ran at once, and whether
/// an options change or `close` ever overlapped one.
final class ProbeRecord: Sendable {
    let active = Atomic<Int>(0)
    let maxActive = Atomic<Int>(0)
    let calls = Atomic<Int>(0)
    let overlappedUpdate = Atomic<Bool>(false)
    let overlappedClose = Atomic<Bool>(false)
    let closes = Atomic<Int>(0)

    static let all = Mutex<[String: ProbeRecord]>([:])
    static func named(_ key: String) -> ProbeRecord {
        all.withLock { d in
            if let r = d[key] { return r }
            let r = ProbeRecord()
            d[key] = r
            return r
        }
    }
}

/// Sleeps for its input's value in microseconds (so earlier frames can finish later), emits
/// the value, and records overlaps in the `ProbeRecord` its options name. Fails on
/// `failAt`. Declares that concurrent `process` calls are safe.
final class OverlapProbeCalculator: Calculator {
    struct Options: CalculatorOptions { var key = ""; var failAt = -1; var generation = 0; init() {} }
    static let contract = CalculatorContract(inputs: [PortSpec("", Int.self)], outputs: [PortSpec("", Int.self)], concurrentProcess: true)
    let record: ProbeRecord
    let failAt: Mutex<Int>
    init(options: Options) {
        record = ProbeRecord.named(options.key)
        failAt = Mutex(options.failAt)
    }
    func update(options: Options) throws {
        // Shorter than a step of optionsChangeOnlyBetweenSteps (2 ms), so a step started beside
        // this update is still running when it looks (without the wait, the window is a few
        // microseconds wide and an overlap showed once in ~80 runs).
        usleep(700)
        if record.active.load(ordering: .acquiring) != 0 { record.overlappedUpdate.store(true, ordering: .releasing) }
        failAt.withLock { $0 = options.failAt }
    }
    func process(_ cc: CalculatorContext) throws {
        let n = record.active.add(1, ordering: .acquiringAndReleasing).newValue
        defer { record.active.subtract(1, ordering: .acquiringAndReleasing) }
        _ = record.maxActive.max(n, ordering: .acquiringAndReleasing)
        record.calls.add(1, ordering: .relaxed)
        let v = try cc.input(as: Int.self)
        usleep(UInt32(v / 100))  // the value is delay·100 + frame number
        if v == failAt.withLock({ $0 }) { throw Boom() }
        try cc.emit(v)
    }
    func close(_ cc: CalculatorContext) throws {
        if record.active.load(ordering: .acquiring) != 0 { record.overlappedClose.store(true, ordering: .releasing) }
        record.closes.add(1, ordering: .relaxed)
    }
}

@Suite struct ConcurrentNodeTests {
    func graph(_ key: String, concurrency: Int?, threads: Int = 2, failAt: Int = -1) throws -> Graph {
        var o = OverlapProbeCalculator.Options()
        o.key = key
        o.failAt = failAt
        return try Graph {
            Settings(numThreads: threads)
            Input("in")
            Output("out")
            Node(OverlapProbeCalculator.self, name: "probe", in: ["in"], out: ["mid"], options: o, concurrency: concurrency)
            Node(AddCalculator.self, in: "mid", out: "out")
        }
    }

    /// Earlier frames sleep longer than later ones, so with two steps at once the later frame
    /// finishes first: the outputs must still leave in timestamp order, every frame once.
    @Test func outputsLeaveInTimestampOrderWhileStepsOverlap() throws {
        let key = "order-\(UUID())"
        let g = try graph(key, concurrency: 2)
        let out = try PacketCollector(g, "out")
        try g.start()
        let delays = (0..<24).map { 20_000 - ($0 % 4) * 5_000 }  // 20, 15, 10, 5 ms, repeated
        for (k, d) in delays.enumerated() { try g.send(d * 100 + k, to: "in", at: Timestamp(Int64(k))) }
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        let r = ProbeRecord.named(key)
        #expect(out.timestamps == (0..<24).map { Timestamp(Int64($0)) })
        #expect(try ints(out) == delays.enumerated().map { $0.element * 100 + $0.offset + 1 })
        #expect(r.calls.load(ordering: .relaxed) == 24)
        // Two workers and 24 queued frames of ≥ 5 ms: the second step starts beside the first.
        #expect(r.maxActive.load(ordering: .relaxed) == 2)
        #expect(r.closes.load(ordering: .relaxed) == 1)
        #expect(r.overlappedClose.load(ordering: .relaxed) == false)
    }

    /// Without `concurrency` the same node never overlaps itself.
    @Test func serialByDefault() throws {
        let key = "serial-\(UUID())"
        let g = try graph(key, concurrency: nil)
        let out = try PacketCollector(g, "out")
        try g.start()
        for k in 0..<12 { try g.send(2_000_000 + 2_000 + k, to: "in", at: Timestamp(Int64(k))) }
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(out.packets.count == 12)
        #expect(ProbeRecord.named(key).maxActive.load(ordering: .relaxed) == 1)
    }

    /// A failing step fails the run with its timestamp named; steps in flight finish, the
    /// node closes once, after them; nothing hangs.
    @Test func aFailingStepStopsTheRun() throws {
        let key = "fail-\(UUID())"
        let failing = 3_000 * 100 + 5  // frame 5's value
        let g = try graph(key, concurrency: 2, failAt: failing)
        _ = try PacketCollector(g, "out")
        try g.start()
        for k in 0..<16 { _ = try? g.send(3_000 * 100 + k, to: "in", at: Timestamp(Int64(k))) }
        try? g.closeAllInputStreams()
        #expect(throws: GraphError.self) { try g.waitUntilDone() }
        do { try g.waitUntilDone() } catch let e as GraphError {
            #expect(e.node == "probe")
            #expect("\(e)".contains("process at 5"))
        } catch { Issue.record("unexpected \(error)") }
        let r = ProbeRecord.named(key)
        #expect(r.closes.load(ordering: .relaxed) == 1)
        #expect(r.overlappedClose.load(ordering: .relaxed) == false)
    }

    /// Options changed while frames flow reach the calculator between steps, never during one.
    @Test func optionsChangeOnlyBetweenSteps() throws {
        let key = "options-\(UUID())"
        let g = try graph(key, concurrency: 2)
        let out = try PacketCollector(g, "out")
        try g.start()
        for k in 0..<30 {
            try g.send(2_000 * 100 + k, to: "in", at: Timestamp(Int64(k)))
            if k % 5 == 4 {
                var o = OverlapProbeCalculator.Options()
                o.key = key
                o.generation = k
                try g.setOptions(o, forNode: "probe")
            }
        }
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(out.packets.count == 30)
        #expect(ProbeRecord.named(key).overlappedUpdate.load(ordering: .relaxed) == false)
    }

    /// maxFramesInFlight counts a frame as in flight until its last step is applied: with a
    /// limit of 2 and two concurrent steps nothing deadlocks and the accepted frames all arrive.
    @Test func framesInFlightLimitWithConcurrentSteps() throws {
        let key = "inflight-\(UUID())"
        let g = try graph(key, concurrency: 2)
        g.maxFramesInFlight = 2
        let out = try PacketCollector(g, "out")
        try g.start()
        var accepted = 0
        for k in 0..<40 {
            if try g.send(1_000 * 100 + k, to: "in", at: Timestamp(Int64(k))) { accepted += 1 }
            usleep(300)
        }
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(out.packets.count == accepted && accepted >= 2)
        #expect(out.timestamps == out.timestamps.sorted())
    }

    @Test func invalidConcurrencyIsNamed() throws {
        // A calculator that does not allow it.
        #expect {
            _ = try Graph(registry: testRegistry) {
                Input("x")
                Node(AddCalculator.self, name: "adder", in: ["x"], out: ["y"], concurrency: 2)
            }
        } throws: { e in "\(e)".contains("adder") && "\(e)".contains("concurrent") }
        // Zero.
        #expect {
            _ = try Graph(
                GraphConfig(
                    parsing: """
                        input_stream: "x"
                        node { calculator: "SleepCalculator" input_stream: "x" output_stream: "y" concurrency: 0 }
                        """), registry: testRegistry)
        } throws: { e in "\(e)".contains("at least 1") }
        // Not a number.
        #expect(throws: GraphError.self) {
            _ = try GraphConfig(parsing: #"node { calculator: "SleepCalculator" concurrency: "two" }"#)
        }
    }

    /// The graph-file field reaches the runtime: SleepCalculator (which allows it) overlaps.
    @Test func graphFileField() throws {
        let config = try GraphConfig(
            parsing: """
                input_stream: "x"
                output_stream: "y"
                num_threads: 2
                node { calculator: "SleepCalculator" input_stream: "x" output_stream: "y" concurrency: 2
                       options { [SleepCalculator.Options] { microseconds: 3000 } } }
                """)
        #expect(config.nodes[0].concurrency == 2)
        let g = try Graph(config, registry: testRegistry)
        let out = try PacketCollector(g, "y")
        try g.start()
        for k in 0..<10 { try g.send(k, to: "x", at: Timestamp(Int64(k))) }
        try g.closeAllInputStreams()
        try g.waitUntilDone()
        #expect(try ints(out) == Array(0..<10))
    }
}
