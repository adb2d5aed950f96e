import FrameFlow

/// Element types of tensors (ONNX `TensorProto.DataType` numbering).
public enum ElementType: Int, Sendable, CustomStringConvertible {
    case float32 = 1, uint8 = 2, int8 = 3, uint16 = 4, int16 = 5, int32 = 6, int64 = 7, bool = 9, float16 = 10, double = 11
    /// Held as `Int64`: values from 2⁶³ up keep their bit pattern (negative as Int64).
    case uint32 = 12, uint64 = 13

    public var description: String {
        switch self {
        case .float32: return "float32"
        case .uint8: return "uint8"
        case .int8: return "int8"
        case .uint16: return "uint16"
        case .int16: return "int16"
        case .uint32: return "uint32"
        case .uint64: return "uint64"
        case .int32: return "int32"
        case .int64: return "int64"
        case .bool: return "bool"
        case .float16: return "float16"
        case .double: return "float64"
        }
    }
}

/// An n-dimensional array: a shape and contiguous row-major values.
///
/// Values are kept as `Float` for floating-point types (float16 and float64 are converted
/// on load) and as `Int64` for integer and boolean types; `type` remembers what the model
/// declared, so outputs keep their type.
///
/// ```swift
/// let t = Tensor(shape: [2, 3], floats: [1, 2, 3, 4, 5, 6])
/// print(t.shape, t.count)   // Prints "[2, 3] 6"
/// ```
public struct Tensor: Sendable, CustomStringConvertible {
    public var shape: [Int]
    public var type: ElementType
    /// Values of floating-point tensors.
    public var floats: [Float]
    /// Values of integer and boolean tensors.
    public var ints: [Int64]

    public init(shape: [Int], floats: [Float], type: ElementType = .float32) {
        self.shape = shape
        self.type = type
        self.floats = floats
        self.ints = []
    }

    public init(shape: [Int], ints: [Int64], type: ElementType = .int64) {
        self.shape = shape
        self.type = type
        self.floats = []
        self.ints = ints
    }

    /// Number of elements.
    public var count: Int { shape.reduce(1, *) }
    public var isFloat: Bool { type == .float32 || type == .float16 || type == .double }

    /// Values as Float whatever the type.
    public var asFloats: [Float] { isFloat ? floats : ints.map { Float($0) } }
    /// Values as Int64 whatever the type.
    public var asInts: [Int64] { isFloat ? floats.map(toInt64) : ints }

    /// Row-major strides.
    public var strides: [Int] {
        var s = Array(repeating: 1, count: shape.count)
        var acc = 1
        for i in stride(from: shape.count - 1, through: 0, by: -1) {
            s[i] = acc
            acc *= shape[i]
        }
        return s
    }

    public var description: String { "Tensor(\(type) \(shape))" }
}

/// Why a model could not be loaded or run. Names the file, node, op or tensor.
public struct ModelError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// `.missingFile` when the model file could not be read; the calculators that load
    /// models pass it on in their `GraphError`.
    public var cause: GraphError.Cause?
    public init(_ message: String, cause: GraphError.Cause? = nil) {
        self.message = message
        self.cause = cause
    }
    public var description: String { message }
}

/// Float → Int64 toward zero without trapping: NaN → 0, out-of-range values saturate.
/// Model files are untrusted input; a conversion must never crash.
@inline(__always) func toInt64(_ f: Float) -> Int64 { Int64(saturating: f) }

/// Sizes computed from a model's values (shapes, pads, scales, repeats, indices) are
/// untrusted: these turn overflow, negative sizes and sizes over
/// `maxElements` (the model's `ResourceLimits.maxTensorElements`) into a `ModelError` naming what was computed,
/// where plain arithmetic would trap or allocate without bound. For plan time, not inner loops.
enum Checked {
    /// The element limit of the model being loaded or run: a model keeps the value it was
    /// loaded under and binds it for each run.
    @TaskLocal static var maxElements = ResourceLimits().maxTensorElements

    /// The element count of `shape`, `what`'s shape.
    static func elements(_ shape: [Int], _ what: @autoclosure () -> String) throws -> Int {
        guard let n = ResourceLimits.elementCount(shape) else {
            throw ModelError("\(what()) would have shape \(shape): a negative size, or more elements than an Int counts")
        }
        let limit = maxElements
        guard n <= limit else {
            throw ModelError("\(what()) would have shape \(shape), \(n) elements, over the limit of \(limit) (ResourceLimits.maxTensorElements)")
        }
        return n
    }

    /// `a + b`, or an error naming `what`.
    static func sum(_ a: Int, _ b: Int, _ what: @autoclosure () -> String) throws -> Int {
        let (s, o) = a.addingReportingOverflow(b)
        guard !o else { throw ModelError("\(what()): \(a) + \(b) overflows") }
        return s
    }

    /// `a · b`, or an error naming `what`.
    static func product(_ a: Int, _ b: Int, _ what: @autoclosure () -> String) throws -> Int {
        let (p, o) = a.multipliedReportingOverflow(by: b)
        guard !o else { throw ModelError("\(what()): \(a) × \(b) overflows") }
        return p
    }

    /// A size or index held as a floating-point value, as an Int: an error naming `what` when
    /// it is not finite or beyond ±2⁶² (well past any tensor).
    static func int(_ v: Double, _ what: @autoclosure () -> String) throws -> Int {
        guard v.isFinite, abs(v) < 0x1p62 else { throw ModelError("\(what()) is \(v), not a usable size") }
        return Int(v)
    }
}
