import Foundation

/// When a camera whose source failed, stalled or ended is tried again: exponential backoff
/// with full jitter.
///
/// After the n-th failure in a row the camera waits a uniformly random time in
/// `0...min(maxSeconds, initialSeconds × 2ⁿ⁻¹)` ("full jitter": cameras that fail together,
/// such as every camera behind one switch, do not come back in lockstep). A run that kept
/// delivering frames for `healthySeconds` resets the count, so the next wait is short again.
///
/// In a fleet file: `reconnect { initial_seconds: 1 max_seconds: 30 healthy_seconds: 10 }`.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The ceiling of the first wait, in seconds.
    public var initialSeconds: Double
    /// The largest ceiling, in seconds.
    public var maxSeconds: Double
    /// A run at least this long resets the failure count.
    public var healthySeconds: Double

    /// A policy with the given ceilings (defaults 1 s, 30 s, healthy after 10 s).
    public init(initialSeconds: Double = 1, maxSeconds: Double = 30, healthySeconds: Double = 10) {
        self.initialSeconds = initialSeconds
        self.maxSeconds = maxSeconds
        self.healthySeconds = healthySeconds
    }

    /// The longest wait after `failures` failures in a row (`failures` ≥ 1):
    /// `min(maxSeconds, initialSeconds × 2^(failures−1))`.
    public func ceiling(afterFailures failures: Int) -> Double {
        let doublings = Double(max(0, min(failures - 1, 62)))
        return min(maxSeconds, initialSeconds * pow(2, doublings))
    }

    /// A wait drawn uniformly from `0...ceiling(afterFailures:)`.
    public func delay(afterFailures failures: Int, using generator: inout some RandomNumberGenerator) -> Double {
        Double.random(in: 0...ceiling(afterFailures: failures), using: &generator)
    }
}
