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
}
