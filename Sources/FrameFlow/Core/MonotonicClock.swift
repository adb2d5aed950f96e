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

/// The monotonic time `seconds` after `start` (negative and NaN count as 0), saturating at
/// `UInt64.max` instead of overflowing: a deadline for any time-out a user can write.
public func monotonicNanoseconds(after seconds: Double, from start: UInt64 = monotonicNanoseconds()) -> UInt64 {
    let (sum, overflow) = start.addingReportingOverflow(UInt64(saturating: seconds * 1e9))
    return overflow ? UInt64.max : sum
}

@usableFromInline enum MonotonicClock {
    @usableFromInline static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
