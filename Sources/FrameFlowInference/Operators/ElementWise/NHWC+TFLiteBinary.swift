import FrameFlow

/// The broadcasting loop under TFLite's SUB, DIV, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM:
/// numpy broadcasting of two float tensors (through `Ops.broadcastFloats`, one specialised loop
/// per op) or two integer tensors of one type (int32 results wrap to 32 bits), and LiteRT's
/// clamp to a fused activation's range. Shapes that do not broadcast, mixed or unsupported
/// types are a `ModelError` naming the operator.
extension NHWC {
    /// The clamp LiteRT applies for a fused activation code (`ActivationFunctionType`) on
    /// float outputs: RELU, RELU_N1_TO_1, RELU6; any other code clamps to the float range.
    static func activationRange(_ code: UInt8) -> (lo: Float, hi: Float) {
        switch code {
        case 1: (0, .greatestFiniteMagnitude)
        case 2: (-1, 1)
        case 3: (0, 6)
        default: (-.greatestFiniteMagnitude, .greatestFiniteMagnitude)
        }
    }

    /// The numpy broadcast of shapes `a` and `b` (a size-1 dimension stretches, a missing
    /// leading one counts as 1, a 0 against a 1 stays 0), or an error naming `name`.
    static func broadcastShape(_ name: String, _ a: [Int], _ b: [Int]) throws -> [Int] {
        let r = max(a.count, b.count)
        let pa = Array(repeating: 1, count: r - a.count) + a, pb = Array(repeating: 1, count: r - b.count) + b
        return try zip(pa, pb).map { x, y in
            guard x == y || x == 1 || y == 1 else { throw ModelError("\(name) input shapes \(a) and \(b) do not broadcast") }
            return x == 1 ? y : x
        }
    }

    /// `F` (floats) or `integer` (int32 / int64 values) over the broadcast of `a` and `b`.
    /// With `activation` (SUB, DIV), results are clamped as LiteRT clamps them: floats to
    /// `activationRange`, integers to RELU's, RELU_N1_TO_1's or RELU6's range.
    static func binary<F: FloatBinaryOp>(
        _ name: String, _ a: Tensor, _ b: Tensor, _: F.Type, activation: UInt8?, integer: (Int64, Int64) throws -> Int64
    ) throws -> Tensor {
        let shape = a.shape == b.shape ? a.shape : try broadcastShape(name, a.shape, b.shape)
        let total = try Checked.elements(shape, "\(name) output")
        if a.isFloat && b.isFloat {
            guard a.floats.count == a.count, b.floats.count == b.count else {
                throw ModelError("\(name) inputs hold \(a.floats.count) and \(b.floats.count) values for \(a.shape) and \(b.shape)")
            }
            var y = Ops.broadcastFloats(a.floats, a.shape, b.floats, b.shape, shape, F.self)
            if let activation {
                let (lo, hi) = activationRange(activation)
                y.withUnsafeMutableBufferPointer { p in
                    for i in p.indices {
                        let v = p[i] < lo ? lo : p[i]  // NaN compares false both times: it stays
                        p[i] = v > hi ? hi : v
                    }
                }
            }
            return Tensor(shape: shape, floats: y)
        }
        guard a.type == b.type, a.type == .int32 || a.type == .int64 else {
            throw ModelError("\(name) needs two float or two int32 / int64 inputs of one type, not \(a.type) and \(b.type)")
        }
        guard a.ints.count == a.count, b.ints.count == b.count else {
            throw ModelError("\(name) inputs hold \(a.ints.count) and \(b.ints.count) values for \(a.shape) and \(b.shape)")
        }
        let (lo, hi): (Int64, Int64) =
            switch activation {
            case 1: (0, .max)
            case 2: (-1, 1)
            case 3: (0, 6)
            default: (.min, .max)
            }
        let ia = Ops.broadcastIndex(a.shape, to: shape), ib = Ops.broadcastIndex(b.shape, to: shape)
        var out = [Int64](repeating: 0, count: total)
        for k in 0..<total {
            var v = try integer(a.ints[ia[k]], b.ints[ib[k]])
            if a.type == .int32 { v = Int64(Int32(truncatingIfNeeded: v)) }
            out[k] = min(max(v, lo), hi)
        }
        return Tensor(shape: shape, ints: out, type: a.type)
    }
}

/// (a − b)², for SQUARED_DIFFERENCE.
enum SquaredDifferenceOp: FloatBinaryOp {
    @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { (a - b) * (a - b) }
}
/// `a > b ? a : b`, LiteRT's MAXIMUM (a NaN `a` gives `b`, a NaN `b` gives NaN).
enum MaximumOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a > b ? a : b } }
/// `a < b ? a : b`, LiteRT's MINIMUM.
enum MinimumOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a < b ? a : b } }
