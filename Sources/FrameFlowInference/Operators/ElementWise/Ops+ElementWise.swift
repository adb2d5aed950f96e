import Foundation
import FrameFlow

/// Element-wise ops: activations and arithmetic in Float (the benchmarked models' hot path:
/// vectorised loops, see `Ops+VectorMath`), math, comparisons and logic in Double (exact for
/// integers below 2⁵³, plain loops over broadcast offsets, checked by ONNX's node tests).
extension Ops {
    /// Element-wise ops by op type.
    static let elementWiseKernels: [String: OpKernel] = {
        let named: [String: OpKernel] = [
            "Relu": runRelu,
            "Sigmoid": runExponential,
            "Exp": runExponential,
            "Add": runBinary, "Sub": runBinary, "Mul": runBinary,
            "Div": runBinary, "Pow": runBinary,
            "LeakyRelu": runLeakyRelu,
            "HardSigmoid": runHardSigmoid,
            "HardSwish": runHardSwish,
            "Clip": runClip,
            "PRelu": runPRelu,
            "Min": runMinMaxSumMean,
            "Max": runMinMaxSumMean,
            "Sum": runMinMaxSumMean,
            "Mean": runMinMaxSumMean,
            "Equal": runComparison,
            "Less": runComparison,
            "Greater": runComparison,
            "LessOrEqual": runComparison,
            "GreaterOrEqual": runComparison,
            "And": runLogical,
            "Or": runLogical,
            "Xor": runLogical,
            "Not": runNot,
            "Where": runWhere,
            "Mod": runMod,
            "Elu": runParametricActivation,
            "Selu": runParametricActivation,
            "Celu": runParametricActivation,
            "ThresholdedRelu": runParametricActivation,
            "Shrink": runParametricActivation,
            "IsNaN": runIsNaN,
            "IsInf": runIsInf,
            "BitShift": runBitShift,
        ]
        return named.merging(unary.filter { !["Relu", "Sigmoid", "Exp"].contains($0.key) }.mapValues(floatKernel), uniquingKeysWith: twice)
            .merging(unaryMath.mapValues(doubleKernel), uniquingKeysWith: twice)
    }()

    /// Element-wise functions of one Float (an integer input gives a float32 output).
    static let unary: [String: @Sendable (Float) -> Float] = [
        "Relu": { max($0, 0) }, "Sigmoid": { 1 / (1 + exp(-$0)) }, "Tanh": { tanh($0) }, "Exp": { exp($0) },
        "Log": { log($0) }, "Sqrt": { $0.squareRoot() }, "Neg": { -$0 }, "Abs": { abs($0) },
        "Floor": { $0.rounded(.down) }, "Ceil": { $0.rounded(.up) }, "Reciprocal": { 1 / $0 },
    ]

    /// Element-wise functions of one value (the type of the input is kept).
    static let unaryMath: [String: @Sendable (Double) -> Double] = [
        "Erf": { erf($0) }, "Sin": { sin($0) }, "Cos": { cos($0) }, "Tan": { tan($0) }, "Asin": { asin($0) },
        "Acos": { acos($0) }, "Atan": { atan($0) }, "Sinh": { sinh($0) }, "Cosh": { cosh($0) }, "Asinh": { asinh($0) },
        "Acosh": { acosh($0) }, "Atanh": { atanh($0) }, "Softplus": softplus, "Softsign": { $0 / (1 + abs($0)) },
        "Sign": { $0 > 0 ? 1 : $0 < 0 ? -1 : 0 }, "Round": { $0.rounded(.toNearestOrEven) },
    ]

    /// log(1 + eˣ) without overflow for large x.
    @Sendable static func softplus(_ x: Double) -> Double { x > 0 ? x + log1p(Foundation.exp(-x)) : log1p(Foundation.exp(x)) }

    /// The kernel of a unary Float op: `f` over the values, integers as floats.
    static func floatKernel(_ f: @escaping @Sendable (Float) -> Float) -> OpKernel {
        { _, ins, _ in
            let x = try need(ins, 0)
            return [Tensor(shape: x.shape, floats: Scratch.map(x.asFloats, f), type: x.isFloat ? x.type : .float32)]
        }
    }

    /// The kernel of a unary Double op: `f` over the values, the input's type kept.
    static func doubleKernel(_ f: @escaping @Sendable (Double) -> Double) -> OpKernel {
        { _, ins, _ in
            let x = try need(ins, 0)
            return [tensor(x.shape, values(x).map(f), type: x.type)]
        }
    }

    /// Relu on floats written out (through the table's closure it is a call per element).
    static func runRelu(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        if let x = ins.first ?? nil, x.isFloat {
            return [Tensor(shape: x.shape, floats: Scratch.map(x.floats) { $0 > 0 ? $0 : 0 }, type: x.type)]
        }
        return try floatKernel(unary["Relu"]!)(n, ins, context)
    }

    /// Sigmoid and Exp on floats through the vectorised eˣ (`exponential`).
    static func runExponential(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        if let x = ins.first ?? nil, x.isFloat {
            return [Tensor(shape: x.shape, floats: exponential(x.floats, sigmoid: n.opType == "Sigmoid"), type: x.type)]
        }
        return try floatKernel(unary[n.opType]!)(n, ins, context)
    }

    /// Add, Sub, Mul, Div, Pow with numpy broadcasting.
    static func runBinary(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        [try elementwise(n.opType, try need(ins, 0), try need(ins, 1))]
    }

    static func runLeakyRelu(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let a = n.float("alpha", 0.01)
        return [map(try need(ins, 0)) { $0 >= 0 ? $0 : a * $0 }]
    }

    static func runHardSigmoid(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let a = n.float("alpha", 0.2), b = n.float("beta", 0.5)
        return [map(try need(ins, 0)) { max(0, min(1, a * $0 + b)) }]
    }

    static func runHardSwish(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [map(try need(ins, 0)) { $0 * max(0, min(1, $0 / 6 + 0.5)) }]
    }

    static func runClip(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        let x = try need(ins, 0)
        var lo = -Float.greatestFiniteMagnitude, hi = Float.greatestFiniteMagnitude
        if opset < 11 { lo = n.float("min", lo); hi = n.float("max", hi) }
        if ins.count > 1, let m = ins[1] { lo = m.asFloats[0] }
        if ins.count > 2, let m = ins[2] { hi = m.asFloats[0] }
        if !x.isFloat {
            let l = toInt64(lo.rounded(.up)), h = toInt64(hi.rounded(.down))
            return [Tensor(shape: x.shape, ints: x.ints.map { min(max($0, l), h) }, type: x.type)]
        }
        return [map(x) { min(max($0, lo), hi) }]
    }

    static func runPRelu(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try elementwise("PRelu", try need(ins, 0), try need(ins, 1))]
    }

    static func runMinMaxSumMean(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let xs = ins.compactMap { $0 }
        guard let first = xs.first else { throw ModelError("\(op) needs at least one input") }
        let (shape, v) = try broadcast(xs) { a in
            switch op {
            case "Min": return a.contains { $0.isNaN } ? .nan : a.min()!
            case "Max": return a.contains { $0.isNaN } ? .nan : a.max()!
            case "Sum": return a.reduce(0, +)
            default: return a.reduce(0, +) / Double(a.count)
            }
        }
        return [tensor(shape, v, type: first.type)]
    }

    static func runComparison(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let (shape, v) = try broadcast([try Ops.need(ins, 0), try Ops.need(ins, 1)]) { a in
            switch op {
            case "Equal": return a[0] == a[1] ? 1 : 0
            case "Less": return a[0] < a[1] ? 1 : 0
            case "Greater": return a[0] > a[1] ? 1 : 0
            case "LessOrEqual": return a[0] <= a[1] ? 1 : 0
            default: return a[0] >= a[1] ? 1 : 0
            }
        }
        return [tensor(shape, v, type: .bool)]
    }

    static func runLogical(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let (shape, v) = try broadcast([try Ops.need(ins, 0), try Ops.need(ins, 1)]) { a in
            let (p, q) = (a[0] != 0, a[1] != 0)
            return (op == "And" ? p && q : op == "Or" ? p || q : p != q) ? 1 : 0
        }
        return [tensor(shape, v, type: .bool)]
    }

    static func runNot(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        return [tensor(x.shape, values(x).map { $0 == 0 ? 1 : 0 }, type: .bool)]
    }

    static func runWhere(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 1)
        let (shape, v) = try broadcast([try Ops.need(ins, 0), x, try Ops.need(ins, 2)]) { $0[0] != 0 ? $0[1] : $0[2] }
        return [tensor(shape, v, type: x.type)]
    }

    static func runMod(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let a = try Ops.need(ins, 0)
        let truncated = n.int("fmod", 0) != 0
        let (shape, v) = try broadcast([a, try Ops.need(ins, 1)]) { p in
            let (x, y) = (p[0], p[1])
            if y == 0 { return a.isFloat ? .nan : 0 }
            // fmod = 1: the sign of the dividend (C's fmod); else the divisor's (Python's %).
            var r = fmod(x, y)
            if !truncated && r != 0 && (r < 0) != (y < 0) { r += y }
            return r
        }
        return [tensor(shape, v, type: a.type)]
    }

    static func runParametricActivation(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let x = try Ops.need(ins, 0)
        let f: (Double) -> Double
        switch op {
        case "Elu":
            let alpha = Double(n.float("alpha", 1))
            f = { $0 < 0 ? alpha * (Foundation.exp($0) - 1) : $0 }
        case "Selu":
            let alpha = Double(n.float("alpha", 1.67326319217681884765625)), gamma = Double(n.float("gamma", 1.05070102214813232421875))
            f = { $0 > 0 ? gamma * $0 : gamma * (alpha * Foundation.exp($0) - alpha) }
        case "Celu":
            let alpha = Double(n.float("alpha", 1))
            f = { max(0, $0) + min(0, alpha * (Foundation.exp($0 / alpha) - 1)) }
        case "ThresholdedRelu":
            let alpha = Double(n.float("alpha", 1))
            f = { $0 > alpha ? $0 : 0 }
        default:
            let bias = Double(n.float("bias", 0)), lambd = Double(n.float("lambd", 0.5))
            f = { $0 < -lambd ? $0 + bias : $0 > lambd ? $0 - bias : 0 }
        }
        return [tensor(x.shape, values(x).map(f), type: x.type)]
    }

    static func runIsNaN(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        return [tensor(x.shape, values(x).map { $0.isNaN ? 1 : 0 }, type: .bool)]
    }

    static func runIsInf(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let negative = n.int("detect_negative", 1) != 0, positive = n.int("detect_positive", 1) != 0
        return [tensor(x.shape, values(x).map { ($0 == .infinity && positive) || ($0 == -.infinity && negative) ? 1 : 0 }, type: .bool)]
    }

    static func elementwise(_ op: String, _ a: Tensor, _ b: Tensor) throws -> Tensor {
        let shape = a.shape == b.shape ? a.shape : try broadcastShape(a.shape, b.shape)
        if !a.isFloat && !b.isFloat && op != "Pow" && op != "PRelu" {
            let ia = broadcastIndex(a.shape, to: shape), ib = broadcastIndex(b.shape, to: shape)
            let x = a.ints, y = b.ints
            let f: (Int64, Int64) -> Int64
            switch op {
            case "Add": f = { $0 &+ $1 }
            case "Sub": f = { $0 &- $1 }
            case "Mul": f = { $0 &* $1 }
            default: f = { $1 == 0 ? 0 : $0 / $1 }
            }
            return Tensor(shape: shape, ints: (0..<ia.count).map { f(x[ia[$0]], y[ib[$0]]) }, type: a.type)
        }
        let x = a.asFloats, y = b.asFloats
        let values: [Float]
        switch op {
        case "Add": values = broadcastFloats(x, a.shape, y, b.shape, shape, AddOp.self)
        case "Sub": values = broadcastFloats(x, a.shape, y, b.shape, shape, SubOp.self)
        case "Mul": values = broadcastFloats(x, a.shape, y, b.shape, shape, MulOp.self)
        case "Div": values = broadcastFloats(x, a.shape, y, b.shape, shape, DivOp.self)
        case "Pow": values = broadcastFloats(x, a.shape, y, b.shape, shape, PowOp.self)
        default: values = broadcastFloats(x, a.shape, y, b.shape, shape, PReluOp.self)
        }
        let out = Tensor(shape: shape, floats: values, type: a.isFloat ? a.type : .float32)
        if op == "Pow" && !a.isFloat { return Tensor(shape: shape, ints: out.floats.map(toInt64), type: a.type) }
        return out
    }

    static func runBitShift(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let bits: Int
        switch x.type {
        case .uint8: bits = 8
        case .uint16: bits = 16
        case .uint32: bits = 32
        case .uint64: bits = 64
        default: throw ModelError("BitShift needs unsigned integers, got \(x.type)")
        }
        let left = n.string("direction", "") == "LEFT"
        let (shape, _) = try broadcast([x, try Ops.need(ins, 1)]) { _ in 0 }
        let y = try Ops.need(ins, 1)
        let ia = Ops.broadcastIndex(x.shape, to: shape), ib = Ops.broadcastIndex(y.shape, to: shape)
        let mask: UInt64 = bits == 64 ? .max : (1 << UInt64(bits)) - 1
        let out = (0..<ia.count).map { k -> Int64 in
            let a = UInt64(bitPattern: x.ints[ia[k]]) & mask, by = UInt64(bitPattern: y.ints[ib[k]])
            let r = by >= 64 ? 0 : left ? (a << by) & mask : a >> by
            return Int64(bitPattern: r)
        }
        return [Tensor(shape: shape, ints: out, type: x.type)]
    }
}
