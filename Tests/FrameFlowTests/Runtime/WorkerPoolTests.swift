import FrameFlow
import Foundation
import Synchronization
import Testing

@Suite struct WorkerPoolTests {
    /// A caller from outside the pool takes chunks beside the workers: with one worker, two
    /// chunks run at the same time (each waits, up to 5 s, until both have started). A pool
    /// that counted only its workers ran both on the caller, one after the other, and this
    /// timed out.
    @Test func anOutsideCallerIsOneMoreThread() {
        let pool = WorkerPool(threads: 1, name: "test.pool")
        defer { pool.shutdown() }
        let started = Atomic<Int>(0)
        let together = Atomic<Int>(0)
        pool.parallelFor(2, grain: 1) { _ in
            started.add(1, ordering: .acquiringAndReleasing)
            let deadline = Date().addingTimeInterval(5)
            while started.load(ordering: .acquiring) < 2 && Date() < deadline { sched_yield() }
            if started.load(ordering: .acquiring) == 2 { together.add(1, ordering: .relaxed) }
        }
        #expect(together.load(ordering: .relaxed) == 2)
    }

    /// Graphs run one after another on pools of their own (a fleet camera reconnecting): every
    /// pool's threads end. A worker that was spinning when `shutdown` broadcast used to sleep
    /// forever: about one thread leaked per 20 runs (75 of 1500 here).
    @Test func shortRunsLeaveNoThreadsBehind() throws {
        func threads() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0 }
        let before = threads()
        for i in 0..<1500 {
            let graph = try Graph(registry: testRegistry) {
                Input("x")
                Output("y")
                Node(AddCalculator.self, in: "x", out: "y")
            }
            try graph.start()
            _ = try graph.send(i, to: "x", at: Timestamp(0))
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
        }
        var after = threads()
        let deadline = Date().addingTimeInterval(5)
        while after > before + 4 && Date() < deadline {
            usleep(10_000)
            after = threads()
        }
        #expect(after <= before + 4, "threads before: \(before), after 1500 runs: \(after)")
    }
}
