import Foundation
import Synchronization

/// A fixed set of worker threads that run scheduler jobs and parallel row bands.
///
/// Band jobs (`parallelFor`) come before scheduler jobs, so a frame being split across
/// workers finishes before new frames start. The thread that calls `parallelFor` works
/// on its own bands too, so a call from inside a job can never deadlock.
///
/// `@unchecked Sendable`: every mutable field is guarded by `lock`.
public final class WorkerPool: @unchecked Sendable {
    fileprivate let lock = ConditionLock()
    fileprivate var jobs: [() -> Void] = []
    fileprivate var jobHead = 0
    private var bands: [BandJob] = []
    fileprivate var sleeping = 0
    private var stopping = false
    private var alive = 0
    /// Number of threads.
    public let threadCount: Int

    /// A pool of `threads` workers (default: one per core).
    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, name: String = "frameflow") {
        threadCount = Swift.max(1, threads)
        alive = threadCount
        for i in 0..<threadCount {
            let t = Thread { [self] in self.workerLoop() }
            t.name = "\(name).worker.\(i)"
            t.stackSize = 1 << 20
            t.start()
        }
    }

    /// A pool shared by code outside graphs (benchmarks, `CalculatorRunner`).
    public static let shared = WorkerPool(name: "frameflow.shared")

    /// Queues `job`. `wakeAlways: false` (used from inside a job) wakes a sleeping
    /// worker only when more than one job waits, so that a chain of nodes continues on
    /// the thread that is already running instead of paying a wake-up per step.
    func submit(wakeAlways: Bool = true, _ job: @escaping () -> Void) {
        lock.lock()
        jobs.append(job)
        let pending = jobs.count - jobHead
        if sleeping > 0 && (wakeAlways || pending > 1) { lock.signal() }
        lock.unlock()
    }

    /// Stops the workers after the queued jobs; returns without waiting for them.
    public func shutdown() {
        lock.withLock {
            stopping = true
            lock.broadcast()
        }
    }

    private func workerLoop() {
        lock.lock()
        while true {
            if let band = bands.first(where: { $0.hasWork }) {
                lock.unlock()
                band.work()
                lock.lock()
                continue
            }
            if jobHead < jobs.count {
                let job = jobs[jobHead]
                jobHead += 1
                if jobHead > 64 && jobHead * 2 > jobs.count {
                    jobs.removeFirst(jobHead)
                    jobHead = 0
                }
                lock.unlock()
                job()
                lock.lock()
                continue
            }
            if stopping { break }
            sleeping += 1
            lock.wait()
            sleeping -= 1
        }
        alive -= 1
        lock.unlock()
    }

    /// Runs `body` over `0..<count` in chunks of at least `grain` items, on the workers and
    /// the calling thread, and returns when all are done.
    ///
    /// `body` may only write memory that its range owns.
    public func parallelFor(_ count: Int, grain: Int = 1, _ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let chunks = Swift.min(Swift.max(1, count / Swift.max(grain, 1)), threadCount * 4)
        if chunks <= 1 || threadCount <= 1 {
            body(0..<count)
            return
        }
        withoutActuallyEscaping(body) { body in
            let job = BandJob(count: count, chunks: chunks, body: body)
            lock.withLock {
                bands.append(job)
                if sleeping > 0 { lock.broadcast() }
            }
            job.work()
            job.waitUntilDone()
            lock.withLock { bands.removeAll { $0 === job } }
        }
    }
}

/// One `parallelFor` call: chunks claimed with an atomic counter.
///
/// `@unchecked Sendable`: `body` is only called while `parallelFor` waits for it, and each
/// chunk is claimed by exactly one thread.
private final class BandJob: @unchecked Sendable {
    let count: Int
    let chunks: Int
    let body: (Range<Int>) -> Void
    let next = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    let doneLock = ConditionLock()

    init(count: Int, chunks: Int, body: @escaping (Range<Int>) -> Void) {
        self.count = count
        self.chunks = chunks
        self.body = body
    }

    var hasWork: Bool { next.load(ordering: .relaxed) < chunks }

    func work() {
        while true {
            let c = next.add(1, ordering: .relaxed).oldValue
            guard c < chunks else { return }
            let lo = count * c / chunks
            let hi = count * (c + 1) / chunks
            body(lo..<hi)
            if finished.add(1, ordering: .acquiringAndReleasing).newValue == chunks {
                doneLock.withLock { doneLock.broadcast() }
            }
        }
    }

    func waitUntilDone() {
        doneLock.withLock {
            while finished.load(ordering: .acquiring) < chunks { doneLock.wait() }
        }
    }
}

extension WorkerPool {
    /// Wakes one sleeping worker if any job waits.
    func wakeOne() {
        lock.withLock {
            if sleeping > 0 && jobHead < jobs.count { lock.signal() }
        }
    }
}
