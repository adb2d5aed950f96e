import CFrameFlowKernels
import FrameFlow

/// TFLite builtins on NHWC float tensors, as LiteRT's reference kernels define them: sizes from the
/// file or from tensor values go through `Checked`; what is unsupported is a `ModelError`.
extension NHWC {
    /// The element-wise builtins' kernels (`TFLiteKernels.table`).
    static let elementWiseKernels: [TFLiteOperator: TFLiteKernel] = [
        .add: runAddMul, .mul: runAddMul, .logistic: runLogistic, .prelu: runPRelu, .hardSwish: runHardSwish, .relu: runRelu, .relu6: runRelu,
        .sub: runSubDiv, .div: runSubDiv, .squaredDifference: runSquaredDifference, .maximum: runMaximumMinimum,
        .minimum: runMaximumMinimum, .neg: runNeg, .sqrt: runSqrtRsqrt, .rsqrt: runSqrtRsqrt,
    ]

    /// ADD and MUL, numpy broadcasting, with the fused activation.
    static func runAddMul(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        var t = try Ops.elementwise(op.code == .add ? "Add" : "Mul", try input(0), try input(1))
        activation(try op.activation(field: 0), &t.floats)
        return t
    }

    /// SUB and DIV (SubOptions / DivOptions: the fused activation at field 0), numpy
    /// broadcasting, on two float or two integer tensors. As LiteRT, a float result is clamped
    /// to the activation's range, the whole float range without one (±∞ become ±FLT_MAX, NaN
    /// stays); integer DIV rounds toward zero and refuses a zero divisor.
    static func runSubDiv(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let name = op.code.name
        try TFLiteKernels.expectInputs(name, inputCount, 2)
        let activation = try op.activation(field: 0)
        let a = try input(0), b = try input(1)
        if op.code == .sub { return try binary(name, a, b, SubOp.self, activation: activation) { $0 &- $1 } }
        let lowest = a.type == .int32 ? Int64(Int32.min) : Int64.min
        return try binary(name, a, b, DivOp.self, activation: activation) { p, q in
            guard q != 0 else { throw ModelError("DIV by an integer zero") }
            guard q != -1 || p != lowest else { throw ModelError("DIV of \(p) by -1 overflows \(a.type)") }
            return p / q
        }
    }

    /// SQUARED_DIFFERENCE: (a − b)², numpy broadcasting, no activation.
    static func runSquaredDifference(
        _ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]
    ) throws -> Tensor {
        try TFLiteKernels.expectInputs("SQUARED_DIFFERENCE", inputCount, 2)
        return try binary("SQUARED_DIFFERENCE", try input(0), try input(1), SquaredDifferenceOp.self, activation: nil) { a, b in
            let d = a &- b
            return d &* d
        }
    }

    /// MAXIMUM and MINIMUM, numpy broadcasting: `a > b ? a : b` (`<` for MINIMUM), as LiteRT
    /// compares, so a NaN in `a` gives `b` and one in `b` gives NaN.
    static func runMaximumMinimum(
        _ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]
    ) throws -> Tensor {
        let name = op.code.name
        try TFLiteKernels.expectInputs(name, inputCount, 2)
        if op.code == .maximum { return try binary(name, try input(0), try input(1), MaximumOp.self, activation: nil) { a, b in a > b ? a : b } }
        return try binary(name, try input(0), try input(1), MinimumOp.self, activation: nil) { a, b in a < b ? a : b }
    }

    /// NEG: −x of a float or integer tensor (integers wrap, as LiteRT's two's complement).
    static func runNeg(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        try TFLiteKernels.expectInputs("NEG", inputCount, 1)
        let x = try input(0)
        if x.isFloat {
            guard x.floats.count == x.count else { throw ModelError("NEG input holds \(x.floats.count) values for \(x.shape)") }
            return Tensor(shape: x.shape, floats: Scratch.map(x.floats) { -$0 })
        }
        guard x.type == .int32 || x.type == .int64, x.ints.count == x.count else {
            throw ModelError("NEG needs a float32, int32 or int64 input, not \(x.type) \(x.shape)")
        }
        return Tensor(shape: x.shape, ints: x.ints.map { x.type == .int32 ? Int64(0 &- Int32(truncatingIfNeeded: $0)) : 0 &- $0 }, type: x.type)
    }

    /// SQRT and RSQRT (1 / √x) of a float tensor; negative values give NaN, RSQRT of ±0 gives ±∞.
    static func runSqrtRsqrt(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let name = op.code.name
        try TFLiteKernels.expectInputs(name, inputCount, 1)
        let x = try input(0)
        guard x.isFloat, x.floats.count == x.count else { throw ModelError("\(name) needs a float input, not \(x.type) \(x.shape)") }
        if op.code == .sqrt { return Tensor(shape: x.shape, floats: Scratch.map(x.floats) { $0.squareRoot() }) }
        return Tensor(shape: x.shape, floats: Scratch.map(x.floats) { 1 / $0.squareRoot() })
    }

    /// LOGISTIC: the vectorised sigmoid.
    static func runLogistic(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let x = try input(0)
        return Tensor(shape: x.shape, floats: Ops.exponential(x.asFloats, sigmoid: true))
    }

    /// PRELU with per-channel (broadcast) slopes.
    static func runPRelu(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        return try prelu(try input(0), alpha: try input(1))
    }

    /// HARD_SWISH on its own (one after a convolution is fused at load).
    static func runHardSwish(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        var t = try input(0)
        t.floats = t.asFloats
        t.type = .float32
        hardSwish(&t.floats)
        return t
    }

    /// RELU and RELU6, with the fused-activation loops.
    static func runRelu(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        var t = try input(0)
        t.floats = t.asFloats
        t.type = .float32
        activation(op.code == .relu ? 1 : 3, &t.floats)
        return t
    }

    /// `x < 0 ? x · alpha : x`, alpha broadcast to x's shape. A per-channel alpha (every
    /// dimension 1 but the last, which is x's last: the face and palm models' `[1, 1, C]`)
    /// runs eight channels at a time; any other broadcast goes through `Ops.elementwise`.
    static func prelu(_ x: Tensor, alpha: Tensor) throws -> Tensor {
        guard x.isFloat, alpha.isFloat else { throw ModelError("PRELU needs float input and alpha, not \(x.type) and \(alpha.type)") }
        let c = x.shape.last ?? 1
        let perChannel =
            !x.shape.isEmpty && alpha.shape.count <= x.shape.count && alpha.shape.last == c
            && alpha.shape.dropLast().allSatisfy { $0 == 1 } && alpha.floats.count == c && x.floats.count == x.count
        guard perChannel, c > 0 else {
            let y = try Ops.elementwise("PRelu", x, alpha)
            guard y.shape == x.shape else { throw ModelError("PRELU alpha \(alpha.shape) would broadcast input \(x.shape) to \(y.shape)") }
            return y
        }
        var out = Scratch.uninitialized(x.count)
        let rows = x.count / c
        x.floats.withUnsafeBufferPointer { X in
            alpha.floats.withUnsafeBufferPointer { A in
                out.withUnsafeMutableBufferPointer { Y in
                    preluRows(X.baseAddress!, alpha: A.baseAddress!, rows: rows, channels: c, Y.baseAddress!)
                }
            }
        }
        return Tensor(shape: x.shape, floats: out)
    }

    /// PReLU over `rows` rows of `c` channels with one slope per channel (`ff_prelu_rows_f32`
    /// at the kernel level): eight lanes per step, the channels after the last whole block one
    /// by one. `y` may be `x`.
    static func preluRows(_ x: UnsafePointer<Float>, alpha: UnsafePointer<Float>, rows: Int, channels c: Int, _ y: UnsafeMutablePointer<Float>) {
        ff_prelu_rows_f32(x, alpha, rows, c, y)
    }

    // MARK: MEAN
}
