#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// A mutex with two condition variables, for the scheduler: `wait`/`signal` for workers
/// waiting for work, `waitForProgress`/`broadcastProgress` for threads waiting on the run
/// (a full input queue, idle, done), so that waking one kind never wakes the other.
///
/// `@unchecked Sendable`: the pthread objects are only touched through their own
/// thread-safe calls; the memory is allocated once and freed in `deinit`.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let progress = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        var mattr = pthread_mutexattr_t()
        pthread_mutexattr_init(&mattr)
        #if os(Linux)
            // Spin briefly before sleeping: critical sections here are short, and a sleep
            // costs two system calls.
            pthread_mutexattr_settype(&mattr, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        pthread_mutex_init(mutex, &mattr)
        pthread_mutexattr_destroy(&mattr)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        #if os(Linux)
            pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(cond, &attr)
        pthread_cond_init(progress, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_cond_destroy(progress)
        progress.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always) func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; the lock must be held.
    func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits until the run makes progress; the lock must be held.
    func waitForProgress() { pthread_cond_wait(progress, mutex) }
    /// Wakes every thread waiting for progress.
    func broadcastProgress() { pthread_cond_broadcast(progress) }

    /// Waits for progress or until `seconds` pass; false on time-out.
    func waitForProgress(seconds: Double) -> Bool { timedWait(progress, seconds) }

    /// Waits for a signal or until `seconds` pass; the lock must be held.
    /// Returns false on time-out.
    func wait(seconds: Double) -> Bool { timedWait(cond, seconds) }

    private func timedWait(_ c: UnsafeMutablePointer<pthread_cond_t>, _ seconds: Double) -> Bool {
        var now = timespec()
        #if os(Linux)
            clock_gettime(CLOCK_MONOTONIC, &now)
        #else
            clock_gettime(CLOCK_REALTIME, &now)
        #endif
        // At most about 31 years ahead (NaN: none), so the deadline's fields fit.
        let wait = seconds.isNaN ? 0 : min(max(seconds, 0), 1e9)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + wait
        var deadline = timespec()
        deadline.tv_sec = Int(saturating: total)
        deadline.tv_nsec = min(Int(saturating: (total - Double(deadline.tv_sec)) * 1e9), 999_999_999)
        return pthread_cond_timedwait(c, mutex, &deadline) == 0
    }

    func signal() { pthread_cond_signal(cond) }
    func broadcast() { pthread_cond_broadcast(cond) }
}

/// A counter that many threads update, e.g. live image buffers.
package final class AtomicCounter: Sendable {
    private let value = Atomic<Int>(0)
    package init() {}
    /// Adds `delta`, returns the new value.
    @discardableResult package func add(_ delta: Int) -> Int {
        value.add(delta, ordering: .relaxed).newValue
    }
    /// The current value.
    package var current: Int { value.load(ordering: .relaxed) }
}

/// A value guarded by a pthread mutex.
///
/// Used instead of `Synchronization.Mutex`, whose futex-based lock ThreadSanitizer cannot
/// see (it reported every guarded access as a race). `@unchecked Sendable`: `value` is only
/// reached through `withLock`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
