/// A point in stream time, in microseconds.
///
/// Timestamps order the packets of a stream: within one stream they strictly increase.
/// Besides ordinary values there are special values, as in MediaPipe, that mark the
/// edges of stream time:
///
///     Timestamp.unset < .unstarted < .preStream < .min < … < .max < .postStream < .done
///
/// ```swift
/// let t = Timestamp(33_333)
/// print(t.next)          // Prints "33334µs"
/// print(Timestamp.done)  // Prints "Timestamp.done"
/// ```
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The value in microseconds.
    public let microseconds: Int64

    /// Creates a timestamp of `microseconds`.
    @inlinable public init(_ microseconds: Int64) { self.microseconds = microseconds }

    /// Creates a timestamp from seconds, rounded to the nearest microsecond.
    public init(seconds: Double) { self.microseconds = Int64(saturating: (seconds * 1_000_000).rounded()) }

    /// No timestamp has been set.
    public static let unset = Timestamp(Int64.min)
    /// Before any packet: the bound of a stream that has not started.
    public static let unstarted = Timestamp(Int64.min + 1)
    /// A single packet that comes before every other packet of the stream (e.g. a header).
    public static let preStream = Timestamp(Int64.min + 2)
    /// The smallest ordinary timestamp.
    public static let min = Timestamp(Int64.min + 3)
    /// The largest ordinary timestamp.
    public static let max = Timestamp(Int64.max - 3)
    /// A single packet that comes after every other packet of the stream (e.g. a summary).
    public static let postStream = Timestamp(Int64.max - 2)
    /// The bound one past `postStream`.
    public static let oneOverPostStream = Timestamp(Int64.max - 1)
    /// The stream is closed: no packet will ever come.
    public static let done = Timestamp(Int64.max)

    /// Whether this is an ordinary value in `min...max`.
    @inlinable public var isRangeValue: Bool {
        microseconds >= Int64.min + 3 && microseconds <= Int64.max - 3
    }

    /// Whether a packet may carry this timestamp (range values, `preStream`, `postStream`).
    public var isAllowedInStream: Bool { isRangeValue || self == .preStream || self == .postStream }

    /// The smallest timestamp greater than this one, as a bound: `postStream.next` is
    /// `oneOverPostStream`, and `done` stays `done`.
    @inlinable public var next: Timestamp {
        if microseconds == Int64.max { return self }
        if microseconds == Int64.min + 2 { return Timestamp(Int64.min + 3) }
        return Timestamp(microseconds + 1)
    }

    /// Seconds as a floating-point number.
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    @inlinable public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }

    public var description: String {
        switch self {
        case .unset: return "Timestamp.unset"
        case .unstarted: return "Timestamp.unstarted"
        case .preStream: return "Timestamp.preStream"
        case .postStream: return "Timestamp.postStream"
        case .oneOverPostStream: return "Timestamp.oneOverPostStream"
        case .done: return "Timestamp.done"
        default: return "\(microseconds)µs"
        }
    }
}

extension Timestamp: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(value) }
}
