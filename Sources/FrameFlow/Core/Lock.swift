import Synchronization

/// Wall-clock-independent monotonic time in nanoseconds, for tracing and statistics.
@inlinable public func monotonicNanoseconds() -> UInt64 {
    DispatchTimeShim.now()
}

@usableFromInline enum DispatchTimeShim {
    @usableFromInline static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex with a condition variable, for the scheduler's waits.
///
/// `@unchecked Sendable`: the pthread objects are only touched through their own
/// thread-safe calls; the memory is allocated once and freed in `deinit`.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let cond2 = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

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
        pthread_cond_init(cond2, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_cond_destroy(cond2)
        cond2.deallocate()
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

    /// Waits on the second condition (for threads waiting on results, so that waking
    /// them never wakes workers and vice versa); the lock must be held.
    func waitOther() { pthread_cond_wait(cond2, mutex) }
    func broadcastOther() { pthread_cond_broadcast(cond2) }

    /// Waits on the second condition or until `seconds` pass; false on time-out.
    func waitOther(seconds: Double) -> Bool { timedWait(cond2, seconds) }

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
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + seconds
        var deadline = timespec()
        deadline.tv_sec = Int(total)
        deadline.tv_nsec = Int((total - Double(Int(total))) * 1e9)
        return pthread_cond_timedwait(c, mutex, &deadline) == 0
    }

    func signal() { pthread_cond_signal(cond) }
    func broadcast() { pthread_cond_broadcast(cond) }
}

/// A counter that many threads update, e.g. live image buffers.
public final class AtomicCounter: Sendable {
    private let value = Atomic<Int>(0)
    public init() {}
    /// Adds `delta`, returns the new value.
    @discardableResult public func add(_ delta: Int) -> Int {
        value.add(delta, ordering: .relaxed).newValue
    }
    /// The current value.
    public var current: Int { value.load(ordering: .relaxed) }
}

/// A value guarded by a pthread mutex.
///
/// Used instead of `Synchronization.Mutex`, whose futex-based lock ThreadSanitizer cannot
/// see (it reported every guarded access as a race). `@unchecked Sendable`: `value` is only
/// reached through `withLock`.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
