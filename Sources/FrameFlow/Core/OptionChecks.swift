/// Checks for `CalculatorOptions.validate()`: each throws `GraphError(.invalidOption)` that
/// names the field (as graph files spell it) and the value it refused.
///
/// ```swift
/// func validate() throws {
///     try OptionCheck.range(radius, 0.1...100, "radius")
///     try OptionCheck.range(kernelSize, 1...255, "kernel_size")
/// }
/// ```
public enum OptionCheck {
    /// `value` must lie in `range` (and, for floating point, be a number: NaN is refused).
    public static func range<T: Comparable>(_ value: T, _ range: ClosedRange<T>, _ field: String) throws {
        guard range.contains(value) else {
            throw GraphError(.invalidOption, "\(field) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
    }

    /// Every element of `values` must lie in `range`.
    public static func range<T: Comparable>(_ values: [T], _ range: ClosedRange<T>, _ field: String) throws {
        for v in values where !range.contains(v) {
            throw GraphError(.invalidOption, "\(field) values must be from \(range.lowerBound) to \(range.upperBound), not \(v)")
        }
    }

    /// `value` must not be zero (a divisor).
    public static func nonZero<T: FloatingPoint>(_ value: T, _ field: String) throws {
        guard value != 0 else { throw GraphError(.invalidOption, "\(field) must not be 0") }
    }

    /// Every `Double` and `Float` in `options` (nested fields and arrays included) must be
    /// finite: NaN and infinities reach no calculator. Names the first field that is not.
    public static func finite(_ options: Any) throws {
        if let bad = firstNonFinite(options, path: "") {
            throw GraphError(.invalidOption, "\(bad.path) must be a finite number, not \(bad.value)")
        }
    }

    private static func firstNonFinite(_ value: Any, path: String) -> (path: String, value: String)? {
        if let d = value as? Double { return d.isFinite ? nil : (path, "\(d)") }
        if let f = value as? Float { return f.isFinite ? nil : (path, "\(f)") }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .struct, .class:
            for child in mirror.children {
                guard var label = child.label else { continue }
                if label.hasPrefix("_") { label.removeFirst() }
                let name = OptionsDecoding.snake(label)
                if let bad = firstNonFinite(child.value, path: path.isEmpty ? name : "\(path).\(name)") { return bad }
            }
        case .optional, .collection, .set:
            for (i, child) in mirror.children.enumerated() {
                let p = mirror.displayStyle == .optional ? path : "\(path)[\(i)]"
                if let bad = firstNonFinite(child.value, path: p) { return bad }
            }
        default: break
        }
        return nil
    }
}

extension FixedWidthInteger {
    /// `value` rounded toward zero and clamped to the type's range; NaN becomes 0. The one way
    /// FrameFlow's libraries turn a floating-point value that came from a file, a graph or a
    /// packet into an integer: Swift's `Int(_:)` traps on NaN, infinities and values out of range.
    @inlinable
    public init<F: BinaryFloatingPoint>(saturating value: F) {
        if value.isNaN {
            self = 0
        } else if value <= F(Self.min) {
            self = Self.min
        } else if value >= F(Self.max) {
            self = Self.max
        } else {
            self = Self(value)
        }
    }
}
