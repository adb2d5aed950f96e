import Foundation
import FrameFlowTestSupport
import FrameFlowTesting
import Synchronization
import Testing

@testable import FrameFlow

/// Records whether its `parallelFor` chunks ran on the workers of `pool`, and the threads
/// `parallelFor` offers, then passes its input on.
final class PoolProbeCalculator: Calculator {
    static let contract = CalculatorContract(inputs: [PortSpec("", Int.self)], outputs: [PortSpec("", Int.self)])
    /// The pool the chunks should run on.
    static let pool = Locked<WorkerPool?>(nil)
    /// Chunks on `pool`'s workers and elsewhere, and `parallelThreads` values seen.
    static let seen = Locked<(onPool: Int, elsewhere: Int, threads: Set<Int>)>((0, 0, []))
    init(options: NoOptions) {}
    func process(_ cc: CalculatorContext) throws {
        let pool = Self.pool.withLock { $0 }
        let onPool = Atomic<Int>(0), elsewhere = Atomic<Int>(0)
        cc.parallelFor(8, grain: 1) { _ in
            if pool?.callerIsWorker == true { onPool.add(1, ordering: .relaxed) } else { elsewhere.add(1, ordering: .relaxed) }
        }
        Self.seen.withLock {
            $0.onPool += onPool.load(ordering: .relaxed)
            $0.elsewhere += elsewhere.load(ordering: .relaxed)
            $0.threads.insert(cc.parallelThreads)
        }
        try cc.emit(try cc.input(as: Int.self))
    }
}

/// Graphs sharing one `WorkerPool` (a fleet of cameras in one process).
@Suite(.serialized) struct SharedWorkerPoolTests {
    static let registry = CalculatorRegistry([
        AddCalculator.self, EvenFilterCalculator.self, SumCalculator.self, SleepCalculator.self, FailingCalculator.self,
        PoolProbeCalculator.self,
    ])

    /// x → add → sleep → SUM.A; x → even → SUM.B; x → probe: a diamond whose outputs depend
    /// on the scheduler waiting for both branches, plus a node that splits work.
    static func diamond() throws -> Graph {
        try Graph(registry: registry) {
            Input("x")
            Output("s")
            Output("p")
            Node(AddCalculator.self, in: "x", out: "plus")
            Node(SleepCalculator.self, in: ["plus"], out: ["slow_plus"], options: SleepCalculator.Options(microseconds: 100))
            Node(EvenFilterCalculator.self, in: "x", out: "even")
            Node(SumCalculator.self, in: ["A:slow_plus", "B:even"], out: ["SUM:s"])
            Node(PoolProbeCalculator.self, in: "x", out: "p")
        }
    }

    /// Waits, polling, until `condition` holds or `seconds` pass; returns whether it held.
    static func poll(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// Values graph `g` of the fleet is fed: different for each graph.
    static func inputs(_ g: Int) -> [Int] { (0..<150).map { $0 * 3 + g } }

    /// 8 graphs on one pool of 2 threads, fed at once from 8 threads, give what each gives
    /// run alone on a pool of its own; the fleet's nodes and their `parallelFor` chunks run
    /// on the shared pool's threads, and every graph leaves the pool when it ends.
    @Test func eightGraphsOnTwoThreadsMatchTheirSoloRuns() throws {
        var solo: [[Int]] = []
        for g in 0..<8 {
            let graph = try Self.diamond()
            let out = try PacketCollector(graph, "s")
            try graph.start()
            for (i, v) in Self.inputs(g).enumerated() { try graph.send(v, to: "x", at: Timestamp(Int64(i))) }
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            solo.append(try ints(out))
        }
        // The solo runs against the diamond's formula (even: x + 1 + x; odd: x + 1 + 1000).
        for g in 0..<8 { #expect(solo[g] == Self.inputs(g).map { $0 % 2 == 0 ? 2 * $0 + 1 : $0 + 1 + 1000 }) }

        let pool = WorkerPool(threads: 2, name: "test.fleet")
        defer { pool.shutdown() }
        PoolProbeCalculator.seen.withLock { $0 = (0, 0, []) }
        PoolProbeCalculator.pool.withLock { $0 = pool }
        let graphs = try (0..<8).map { _ in try Self.diamond() }
        let outs = try graphs.map { try PacketCollector($0, "s") }
        for graph in graphs { try graph.start(on: pool) }
        #expect(pool.sourceCount == 8)
        let errors = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { g in
            do {
                for (i, v) in Self.inputs(g).enumerated() { try graphs[g].send(v, to: "x", at: Timestamp(Int64(i))) }
                try graphs[g].closeAllInputStreams()
                try graphs[g].waitUntilDone()
            } catch {
                errors.withLock { $0.append("graph \(g): \(error)") }
            }
        }
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0 })")
        for g in 0..<8 { #expect(try ints(outs[g]) == solo[g], "graph \(g)") }
        let seen = PoolProbeCalculator.seen.withLock { $0 }
        #expect(seen.threads == [2], "parallelThreads on the shared pool")
        #expect(seen.onPool == 8 * 150 * 8 && seen.elsewhere == 0, "chunks on the shared pool's workers: \(seen)")
        #expect(pool.sourceCount == 0, "every finished graph left the pool")
    }

    /// A graph with a long ready list of slow steps does not starve a light graph on the same
    /// pool: the light graph's 20 packets, each sent once the one before came out, all go
    /// through while the heavy graph still has most of its work left. A pool that always
    /// searched its graphs from the first served the heavy graph (started first) alone until
    /// its queues emptied.
    @Test func aHeavyGraphDoesNotStarveALightOne() throws {
        let pool = WorkerPool(threads: 2, name: "test.fair")
        defer { pool.shutdown() }
        let heavy = try Graph(registry: Self.registry) {
            Settings(maxQueueSize: 0)
            Input("x")
            for b in 0..<6 {
                Node(SleepCalculator.self, in: ["x"], out: ["h\(b)"], options: SleepCalculator.Options(microseconds: 2000))
            }
        }
        let heavySteps = Atomic<Int>(0)
        for b in 0..<6 { try heavy.observe("h\(b)") { _ in heavySteps.add(1, ordering: .relaxed) } }
        let light = try Graph(registry: Self.registry) {
            Input("x")
            Output("y")
            Node(AddCalculator.self, in: "x", out: "y")
        }
        let lightOut = try PacketCollector(light, "y")
        try heavy.start(on: pool)
        try light.start(on: pool)
        let heavyTotal = 6 * 100
        for i in 0..<100 { try heavy.send(i, to: "x", at: Timestamp(Int64(i))) }
        try heavy.closeAllInputStreams()
        for i in 0..<20 {
            try light.send(i, to: "x", at: Timestamp(Int64(i)))
            #expect(Self.poll { lightOut.packets.count == i + 1 }, "light packet \(i)")
        }
        let heavyDone = heavySteps.load(ordering: .relaxed)
        #expect(try ints(lightOut) == (1...20).map { $0 })
        // 20 round trips of the light graph took at most ~20 heavy steps each way.
        #expect(heavyDone < heavyTotal / 2, "heavy steps done when the light graph finished: \(heavyDone) of \(heavyTotal)")
        try light.closeAllInputStreams()
        try light.waitUntilDone()
        try heavy.waitUntilDone()
        #expect(heavySteps.load(ordering: .relaxed) == heavyTotal)
    }

    /// One graph failing ends that graph alone: the others keep being served (packets sent
    /// after the failure come out), the pool keeps running (a graph started afterwards runs),
    /// and the failed graph left the pool.
    @Test func oneGraphFailingLeavesTheOthersAndThePoolRunning() throws {
        let pool = WorkerPool(threads: 2, name: "test.fail")
        defer { pool.shutdown() }
        let failing = try Graph(registry: Self.registry) {
            Input("x")
            Output("y")
            Node(FailingCalculator.self, name: "detector", in: "x", out: "y")
        }
        let others = try (0..<2).map { _ in try Self.diamond() }
        let outs = try others.map { try PacketCollector($0, "s") }
        try failing.start(on: pool)
        for g in others { try g.start(on: pool) }
        for i in 0..<10 { _ = try? failing.send(i, to: "x", at: Timestamp(Int64(i))) }
        let e = #expect(throws: GraphError.self) { try failing.waitUntilDone() }
        #expect(e?.node == "detector")
        #expect(Self.poll { pool.sourceCount == 2 }, "the failed graph left the pool")
        for (k, g) in others.enumerated() {
            for (i, v) in Self.inputs(k).enumerated() { try g.send(v, to: "x", at: Timestamp(Int64(i))) }
            try g.closeAllInputStreams()
            try g.waitUntilDone()
            #expect(try ints(outs[k]) == Self.inputs(k).map { $0 % 2 == 0 ? 2 * $0 + 1 : $0 + 1 + 1000 })
        }
        let late = try Self.diamond()
        let lateOut = try PacketCollector(late, "s")
        try late.start(on: pool)
        for i in 0..<10 { try late.send(i, to: "x", at: Timestamp(Int64(i))) }
        try late.closeAllInputStreams()
        try late.waitUntilDone()
        #expect(try ints(lateOut) == (0..<10).map { $0 % 2 == 0 ? 2 * $0 + 1 : $0 + 1 + 1000 })
        #expect(pool.sourceCount == 0)
    }

    /// A graph whose start fails (a missing side packet) never joins the pool.
    @Test func aGraphThatFailsToStartNeverJoinsThePool() throws {
        let pool = WorkerPool(threads: 1, name: "test.start")
        defer { pool.shutdown() }
        let graph = try Graph(registry: testRegistry) {
            Input("x")
            Output("y")
            Node(SideCalculator.self, in: ["x"], out: ["y"], sideIn: ["OFFSET:offset"])
        }
        #expect(throws: GraphError.self) { try graph.start(on: pool) }
        #expect(pool.sourceCount == 0)
    }
}
