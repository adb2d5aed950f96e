import Foundation

/// MediaPipe's exponential low-pass filter (`util/filtering/low_pass_filter`):
/// `y = alpha·x + (1 − alpha)·y_prev`, the first value passing unchanged.
///
/// The arithmetic is MediaPipe's to the bit: values are floats, `alpha·x` is a float product
/// and the rest is summed in double before rounding to float. An `alpha` outside [0, 1] is
/// ignored (the previous one stays), as MediaPipe does.
public struct LowPassFilter: Sendable {
    /// The weight of a new value.
    public private(set) var alpha: Float
    /// Whether a value has been filtered since the start.
    public private(set) var hasLastRawValue = false
    /// The last value given to `apply`.
    public private(set) var lastRawValue: Float = 0
    /// The last value `apply` returned.
    public private(set) var lastValue: Float = 0

    /// A filter that weighs new values by `alpha`.
    public init(alpha: Float) {
        self.alpha = 0
        setAlpha(alpha)
    }

    /// Filters `value` with the current `alpha`.
    public mutating func apply(_ value: Float) -> Float {
        let result: Float
        if hasLastRawValue {
            result = Float(Double(alpha * value) + (1.0 - Double(alpha)) * Double(lastValue))
        } else {
            result = value
            hasLastRawValue = true
        }
        lastRawValue = value
        lastValue = result
        return result
    }

    /// Sets `alpha` (when it is in [0, 1]) and filters `value`.
    public mutating func apply(_ value: Float, alpha: Float) -> Float {
        setAlpha(alpha)
        return apply(value)
    }

    private mutating func setAlpha(_ a: Float) {
        if !(a < 0 || a > 1) { alpha = a }
    }
}

/// MediaPipe's relative velocity filter (`util/filtering/relative_velocity_filter`, legacy
/// distance mode): a low-pass filter whose alpha grows with the value's recent speed,
/// `alpha = 1 − 1 / (1 + velocity_scale·|v|)`.
///
/// The speed `v` is the scaled change since the last value plus the changes in the window
/// (newest first, while their durations sum to at most (1 + window size) × 1/30 s), divided
/// by the summed durations in seconds. The window starts full of zero entries, as MediaPipe's
/// does. The first value passes unchanged; a timestamp not after the last returns the value
/// unfiltered and changes nothing.
public struct RelativeVelocityFilter: Sendable {
    private let windowSize: Int
    private let velocityScale: Float
    private var window: [(distance: Float, duration: Int64)]
    private var lastValue: Float = 0
    private var lastValueScale: Float = 1
    private var lastTimestamp: Int64 = -1
    private var lowPass = LowPassFilter(alpha: 1)

    /// A filter keeping `windowSize` past changes, its speed weighed by `velocityScale`.
    public init(windowSize: Int, velocityScale: Float) {
        self.windowSize = max(windowSize, 0)
        self.velocityScale = velocityScale
        window = Array(repeating: (0, 0), count: self.windowSize)
    }

    /// Filters `value`, seen at `nanoseconds`, its changes scaled by `valueScale`.
    public mutating func apply(nanoseconds: Int64, valueScale: Float, value: Float) -> Float {
        if lastTimestamp >= nanoseconds { return value }
        var alpha: Float = 1
        if lastTimestamp != -1 {
            let distance = value * valueScale - lastValue * lastValueScale
            let duration = nanoseconds - lastTimestamp
            var sumDistance = distance
            var sumDuration = duration
            let maxDuration = Int64(1 + window.count) * (1_000_000_000 / 30)
            for element in window {
                if sumDuration + element.duration > maxDuration { break }
                sumDistance += element.distance
                sumDuration += element.duration
            }
            let velocity = Float(Double(sumDistance) / (Double(sumDuration) * 1e-9))
            alpha = 1 - 1 / (1 + velocityScale * abs(velocity))
            window.insert((distance, duration), at: 0)
            if window.count > windowSize { window.removeLast() }
        }
        lastValue = value
        lastValueScale = valueScale
        lastTimestamp = nanoseconds
        return lowPass.apply(value, alpha: alpha)
    }
}

/// MediaPipe's one-euro filter (`util/filtering/one_euro_filter`; Casiez et al., 2012): a
/// low-pass filter whose cutoff rises with the filtered speed,
/// `cutoff = min_cutoff + beta·|speed|`, `alpha = 1 / (1 + frequency / (2π·cutoff))`.
///
/// The frequency comes from the timestamps once there are two, neither of them 0 (before that,
/// the given one). The speed is the scaled change since the last value times the frequency,
/// itself low-passed with `derivate_cutoff`. Parameters are doubles and the two low-pass filters
/// floats, as in MediaPipe. A timestamp not after the last returns the value unfiltered and
/// changes nothing. The start is MediaPipe 0.10.21's (the last time is the lowest `Int64`), so a
/// first value at timestamp 0 is filtered and remembered.
public struct OneEuroFilter: Sendable {
    private var frequency: Double
    private let minCutoff: Double
    private let beta: Double
    private let derivateCutoff: Double
    private var x: LowPassFilter
    private var dx: LowPassFilter
    private var lastTime = Int64.min

    /// A filter; `frequency`, `minCutoff` and `derivateCutoff` must be above 1e-6.
    public init(frequency: Double, minCutoff: Double, beta: Double, derivateCutoff: Double) {
        self.frequency = frequency
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivateCutoff = derivateCutoff
        x = LowPassFilter(alpha: 0)
        dx = LowPassFilter(alpha: 0)
        x = LowPassFilter(alpha: Float(alpha(cutoff: minCutoff)))
        dx = LowPassFilter(alpha: Float(alpha(cutoff: derivateCutoff)))
    }

    /// Filters `value`, seen at `nanoseconds`, its changes scaled by `valueScale`.
    public mutating func apply(nanoseconds: Int64, valueScale: Double, value: Double) -> Double {
        if lastTime >= nanoseconds { return value }
        if lastTime != 0 && nanoseconds != 0 {
            // From the lowest Int64 the difference wraps, as MediaPipe's does; that frequency only
            // sets the first value's alpha, which the low-pass filters ignore.
            frequency = 1.0 / (Double(nanoseconds &- lastTime) * 1e-9)
        }
        lastTime = nanoseconds
        let change = x.hasLastRawValue ? (value - Double(x.lastRawValue)) * valueScale * frequency : 0
        let speed = Double(dx.apply(Float(change), alpha: Float(alpha(cutoff: derivateCutoff))))
        let cutoff = minCutoff + beta * abs(speed)
        return Double(x.apply(Float(value), alpha: Float(alpha(cutoff: cutoff))))
    }

    private func alpha(cutoff: Double) -> Double {
        let te = 1.0 / frequency
        let tau = 1.0 / (2 * Double.pi * cutoff)
        return 1.0 / (1.0 + tau / te)
    }
}
