/// Counts of call durations in fixed buckets (1 ms to 2.5 s, as Prometheus' histograms
/// bucket seconds), their sum and their number: what `/metrics` reports as a histogram.
///
/// Fixed-size storage (no allocation when a duration is recorded), updated by the graph
/// runtime under its lock for nodes whose contract `runsModel`.
public struct LatencyHistogram: Sendable, Equatable {
    /// The buckets' upper bounds in seconds, ascending; one more bucket above the last counts
    /// the rest (Prometheus' `+Inf`).
    public static let upperBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
    /// The same bounds in nanoseconds, for recording without a conversion.
    private static let upperNanos: InlineArray<11, UInt64> = [
        1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000, 100_000_000, 250_000_000, 500_000_000,
        1_000_000_000, 2_500_000_000,
    ]

    /// Durations per bucket (not cumulative); the last is above every bound.
    private var counts = InlineArray<12, UInt64>(repeating: 0)
    /// The sum of every duration recorded, in nanoseconds.
    public private(set) var sumNanoseconds: UInt64 = 0
    /// How many durations were recorded.
    public private(set) var count: UInt64 = 0

    /// An empty histogram.
    public init() {}

    /// Counts one duration of `nanoseconds`.
    @inline(__always)
    public mutating func record(nanoseconds: UInt64) {
        var i = 0
        while i < 11 && nanoseconds > Self.upperNanos[i] { i += 1 }
        counts[i] &+= 1
        sumNanoseconds &+= nanoseconds
        count &+= 1
    }

    /// The sum of the durations in seconds.
    public var sumSeconds: Double { Double(sumNanoseconds) / 1e9 }

    /// For each bound of `upperBounds`, then `+Inf`: how many durations were at most that
    /// long (cumulative, as Prometheus' `_bucket{le=…}`); the last equals `count`.
    public var cumulativeCounts: [UInt64] {
        var out: [UInt64] = []
        out.reserveCapacity(12)
        var total: UInt64 = 0
        for i in 0..<12 {
            total &+= counts[i]
            out.append(total)
        }
        return out
    }

    public static func == (a: LatencyHistogram, b: LatencyHistogram) -> Bool {
        a.count == b.count && a.sumNanoseconds == b.sumNanoseconds && a.cumulativeCounts == b.cumulativeCounts
    }
}
