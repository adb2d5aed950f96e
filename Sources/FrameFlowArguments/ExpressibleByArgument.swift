/// A type an option or positional argument's text converts to.
public protocol ExpressibleByArgument {
    /// The value `argument` stands for, or nil when it is not one.
    init?(argument: String)
    /// What a valid value is, for the error message ("a whole number").
    static var expectation: String { get }
}

extension String: ExpressibleByArgument {
    public init?(argument: String) { self = argument }
    public static var expectation: String { "a value" }
}

extension Int: ExpressibleByArgument {
    /// Decimal digits with an optional sign; anything else (1e3, 0x10, out of range) is refused.
    public init?(argument: String) {
        guard let v = Int(argument) else { return nil }
        self = v
    }
    public static var expectation: String { "a whole number" }
}

extension Double: ExpressibleByArgument {
    /// A decimal number; NaN, infinities and numbers too large for a Double (1e400) are refused.
    public init?(argument: String) {
        guard let v = Double(argument), v.isFinite else { return nil }
        self = v
    }
    public static var expectation: String { "a finite number" }
}
