#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Nanoseconds of a monotonic clock (unaffected by wall-clock changes), for time-outs,
/// tracing and statistics.
@inlinable public func monotonicNanoseconds() -> UInt64 {
    MonotonicClock.now()
}

@usableFromInline enum MonotonicClock {
    @usableFromInline static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
