import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// Where a pool's workers find scheduler work: a graph run. Called with the pool's lock
/// held; returns with it held.
protocol WorkSource: AnyObject {
    /// Runs one unit of work (it may unlock while it works); false when there is none. With
    /// `deferringShortWork`, short work is left to a worker already running a short step of
    /// the same source (see `GraphRuntime.leavesShortWork`).
    func runOneLocked(deferringShortWork: Bool) -> Bool
}

/// A fixed set of worker threads that run graphs' nodes and parallel row bands.
///
/// Band jobs (`parallelFor`) come first, so a frame being split across workers finishes
/// before new frames start. The thread that calls `parallelFor` works on its own bands
/// too, so a call from inside a node can never deadlock. A graph shares the pool's lock,
/// so deciding what runs next and handing it to a worker is one critical section.
///
/// By default each graph run makes a pool of its own and shuts it down when it ends. Many
/// graphs (a fleet of cameras) can share one pool instead — `Graph.start(sidePackets:on:)`:
/// the pool then serves its graphs in rotation, one step at a time, each search starting
/// after the graph that ran last, so a graph with a long ready list cannot keep the workers
/// from the others. A graph that finishes or fails leaves the pool; its owner shuts it down.
///
/// ```swift
/// let pool = WorkerPool(threads: 2)
/// defer { pool.shutdown() }
/// for graph in cameras { try graph.start(on: pool) }
/// ```
///
/// `@unchecked Sendable`: every mutable field is guarded by `lock`.
public final class WorkerPool: @unchecked Sendable {
    let lock: ConditionLock
    private var bands: [BandJob] = []
    /// Workers waiting for work (guarded by `lock`).
    private(set) var sleeping = 0
    private var stopping = false
    /// The graph runs the workers serve, in rotation; each held strongly until it leaves
    /// (a weak reference would cost a side-table load per loop).
    private var sources: [any WorkSource] = []
    /// Where the next search for work starts: after the source that ran last.
    private var nextSource = 0
    /// Bumped whenever work is added, so a worker spinning before it sleeps notices it
    /// without taking the lock.
    let workHint = Atomic<Int>(0)
    /// The workers' kernel thread ids, as each started (Linux).
    private let kernelThreadIDs = Locked<[Int32]>([])
    /// How long an idle worker spins before it sleeps: long enough to stay awake between a
    /// model's split ops, since a wake-up (a system call each side) can cost more than they save.
    var spinNanoseconds: UInt64 = 500_000
    /// Number of threads.
    public let threadCount: Int

    /// A pool of `threads` workers (default: one per core).
    public convenience init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, name: String = "frameflow") {
        self.init(threads: threads, name: name, lock: ConditionLock())
    }

    /// A thread-specific value naming the pool a worker thread belongs to (one key for all
    /// pools: a process has only about a thousand): `parallelFor` counts a caller from
    /// outside the pool as one more thread taking chunks.
    private static let workerKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Whether the calling thread is one of this pool's workers.
    var callerIsWorker: Bool {
        let owner: UnsafeMutableRawPointer? = pthread_getspecific(Self.workerKey)  // nil on other threads
        return owner == Unmanaged.passUnretained(self).toOpaque()
    }

    /// The threads that take chunks of a `parallelFor` made from the calling thread: the
    /// workers, plus the caller when it is not one of them.
    public var threadsWithCaller: Int { callerIsWorker ? threadCount : threadCount + 1 }

    init(threads: Int, name: String, lock: ConditionLock) {
        self.lock = lock
        threadCount = Swift.max(1, threads)
        for i in 0..<threadCount {
            let t = Thread { [self] in
                pthread_setspecific(Self.workerKey, Unmanaged.passUnretained(self).toOpaque())
                #if os(Linux)
                    // /proc/thread-self links to PID/task/TID.
                    if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
                        let tid = link.split(separator: "/").last.flatMap({ Int32($0) })
                    {
                        self.kernelThreadIDs.withLock { $0.append(tid) }
                    }
                #endif
                self.workerLoop()
            }
            t.name = "\(name).worker.\(i)"
            t.stackSize = 1 << 20
            t.start()
        }
    }

    /// The CPU seconds (user and system) the pool's workers have used so far, read from
    /// `/proc/self/task/TID/stat`: the time they ran nodes and bands, and the short spins
    /// before they sleep; nil where there is no such file. For utilisation metrics.
    public func workerCPUSeconds() -> Double? {
        #if os(Linux)
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            var total = 0.0
            var found = false
            for tid in kernelThreadIDs.withLock({ $0 }) {
                guard let data = FileManager.default.contents(atPath: "/proc/self/task/\(tid)/stat") else { continue }
                // After the name in parentheses (which may hold spaces): fields 3…; utime and stime are 14 and 15.
                let text = String(decoding: data, as: UTF8.self)
                guard let close = text.lastIndex(of: ")") else { continue }
                let fields = text[text.index(after: close)...].split(separator: " ")
                guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
                total += (user + system) / ticks
                found = true
            }
            return found ? total : nil
        #else
            return nil
        #endif
    }

    /// A pool shared by code outside graphs (benchmarks, tools).
    public static let shared = WorkerPool(name: "frameflow.shared")

    /// Wakes one sleeping worker; the lock must be held.
    func wakeOneLocked() {
        if sleeping > 0 { lock.signal() }
    }

    /// Stops the workers once they are idle; returns without waiting for them. Graphs still
    /// running on the pool are no longer served: let them finish (or cancel them) first.
    public func shutdown() {
        lock.withLock { shutdownLocked() }
    }

    func shutdownLocked() {
        stopping = true
        sources.removeAll()
        lock.broadcast()
    }

    /// Starts serving `source`; lock held.
    func attachLocked(_ source: any WorkSource) {
        sources.append(source)
    }

    /// Stops serving `source` (a graph run that ended); lock held. The pool keeps running.
    func detachLocked(_ source: any WorkSource) {
        guard let i = sources.firstIndex(where: { $0 === source }) else { return }
        sources.remove(at: i)
        if nextSource > i { nextSource -= 1 }
    }

    /// Graph runs the pool serves now.
    var sourceCount: Int { lock.withLock { sources.count } }

    /// Runs one step of the first source with work, searching in rotation from `nextSource`;
    /// lock held. False when no source has work.
    @inline(__always)
    private func runOneSourceLocked(deferring: Bool) -> Bool {
        let n = sources.count
        if n == 1 { return sources[0].runOneLocked(deferringShortWork: deferring) }  // a graph's own pool
        let start = nextSource
        var k = 0
        while k < n && k < sources.count {
            let i = (start &+ k) % sources.count
            let s = sources[i]
            // Set before running: the step unlocks, and other workers start after this one.
            nextSource = i &+ 1
            if s.runOneLocked(deferringShortWork: deferring) { return true }
            k += 1
        }
        return false
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
            if !sources.isEmpty && runOneSourceLocked(deferring: true) { continue }
            if stopping { break }
            if spin() { continue }
            // `shutdown` may have come while spinning (lock released): its broadcast is gone.
            if stopping { break }
            // Short work left to a busy worker and still waiting after the spin: take it
            // (so a step that runs far longer than its average never holds others back).
            if !sources.isEmpty && runOneSourceLocked(deferring: false) { continue }
            sleeping += 1
            lock.wait()
            sleeping -= 1
        }
        lock.unlock()
    }

    /// Spins (lock released) until work is hinted or the spin time passes; returns with the
    /// lock held, true when work may be there.
    private func spin() -> Bool {
        guard spinNanoseconds > 0 else { return false }
        let seen = workHint.load(ordering: .acquiring)
        lock.unlock()
        let deadline = monotonicNanoseconds() &+ spinNanoseconds
        var found = false
        var k = 0
        while true {
            if workHint.load(ordering: .acquiring) != seen { found = true; break }
            k &+= 1
            if k & 63 == 0 {
                if monotonicNanoseconds() > deadline { break }
                sched_yield()
            }
        }
        lock.lock()
        // Work added between the last look and re-locking bumped the hint under the lock.
        return found || workHint.load(ordering: .acquiring) != seen
    }

    /// Signals that work was added; lock held.
    func hintWorkLocked() {
        workHint.add(1, ordering: .releasing)
        if sleeping > 0 { lock.signal() }
    }

    /// Runs `body` over `0..<count` in chunks of at least `grain` items, on the workers and
    /// the calling thread, and returns when all are done. A caller from outside the pool is
    /// one more thread: a pool of n − 1 workers and the caller make n (as onnxruntime's
    /// `intra_op_num_threads` = n counts its caller).
    ///
    /// `body` may only write memory that its range owns.
    public func parallelFor(_ count: Int, grain: Int = 1, _ body: @escaping (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let threads = threadsWithCaller
        let chunks = Swift.min(Swift.max(1, count / Swift.max(grain, 1)), threads * 4)
        if chunks <= 1 || threads <= 1 {
            body(0..<count)
            return
        }
        let job = BandJob(count: count, chunks: chunks, body: body)
        lock.withLock {
            bands.append(job)
            workHint.add(1, ordering: .releasing)
            if sleeping > 0 { lock.broadcast() }
        }
        job.work()
        job.waitUntilDone()
        lock.withLock { bands.removeAll { $0 === job } }
    }
}

/// One `parallelFor` call: chunks claimed with an atomic counter.
///
/// `@unchecked Sendable`: `body` is only called while `parallelFor` waits for it (its
/// captures outlive every call), and each chunk is claimed by exactly one thread.
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

    /// Waits for the other threads' chunks: spinning first (up to 100 µs; a chunk left to a
    /// worker usually finishes within that), since a thread asleep on the lock is woken by a
    /// system call and the scheduler.
    func waitUntilDone() {
        let deadline = monotonicNanoseconds() &+ 100_000
        var k = 0
        while finished.load(ordering: .acquiring) < chunks {
            k &+= 1
            if k & 255 == 0 && monotonicNanoseconds() > deadline { break }
        }
        doneLock.withLock {
            while finished.load(ordering: .acquiring) < chunks { doneLock.wait() }
        }
    }
}
