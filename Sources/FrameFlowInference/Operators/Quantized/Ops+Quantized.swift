import CFrameFlowKernels
import Foundation

/// ONNX's integer and quantised-linear ops, so that models quantised to 8 bits load and run:
/// MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv, DynamicQuantizeLinear,
/// QuantizeLinear and DequantizeLinear.
///
/// The integer products run through the float kernels on zero-point-shifted values and are
/// rounded back: exact while a sum stays below 2²⁴ in magnitude (Float's integer range), off
/// by a few units of the 32-bit accumulator beyond — far below one step of the requantised
/// 8-bit output. Requantisation rounds half to even and saturates, as the reference does.
extension Ops {
    /// Integer and quantised-linear ops by op type.
    static let quantizedKernels = kernels(["MatMulInteger", "ConvInteger", "QLinearMatMul", "QLinearConv", "DynamicQuantizeLinear"]) { n, ins, c in
        try runQuantized(n, ins, opset: c.opset)
    }.merging(["QuantizeLinear": runQuantizeDequantize, "DequantizeLinear": runQuantizeDequantize], uniquingKeysWith: twice)

    /// The kernels of the nodes only the load-time rewrites make (`ONNXPlan+QuantizedFusion`):
    /// not in `table`, so a file that names them is refused like any unknown op.
    static let fusedKernels: [String: OpKernel] = [QuantizedConv.fusedOp: QuantizedConv.runFused, fakeQuantizeOp: runFakeQuantize]

    /// The op type `ONNXPlan.fuseQuantizeDequantize` gives a QuantizeLinear → DequantizeLinear
    /// pair with the same scalar scale and zero point: y = (clamp(round(x / s) + z) − z) · s in
    /// one pass. Attribute `fakeQuantizeKey`: [scale, zero, lower, upper].
    static let fakeQuantizeOp = "frameflow.FakeQuantize"
    static let fakeQuantizeKey = "frameflow.fake_quantize"

    static func runFakeQuantize(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        guard case .floats(let a)? = n.attributes[fakeQuantizeKey], a.count == 4 else { throw ModelError("\(fakeQuantizeOp) without its parameters") }
        guard x.isFloat, x.floats.count == x.count else { throw ModelError("\(fakeQuantizeOp) input is \(x.type), expected float") }
        let (s, z, lo, hi) = (a[0], a[1], a[2], a[3])
        let count = x.count
        guard count > 0 else { return [x] }
        let y = [Float](unsafeUninitializedCapacity: count) { out, initialized in
            x.floats.withUnsafeBufferPointer { xp in
                let src = xp.baseAddress!, dst = out.baseAddress!
                Scratch.parallelFor(count, work: count, threshold: 1 << 20) { range in
                    ff_fake_quantize_f32(src + range.lowerBound, range.count, s, z, lo, hi, dst + range.lowerBound)
                }
            }
            initialized = count
        }
        return [Tensor(shape: x.shape, floats: y)]
    }

    static func runQuantized(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> [Tensor] {
        switch n.opType {
        case "MatMulInteger":
            let a = try shifted(try Ops.need(ins, 0), zeroPoint: ins.count > 2 ? ins[2] : nil, axis: -2)
            let b = try shifted(try Ops.need(ins, 1), zeroPoint: ins.count > 3 ? ins[3] : nil, axis: -1)
            let y = try Ops.matmul(a, b)
            return [Tensor(shape: y.shape, ints: y.floats.map { Int64(saturating: $0.rounded()) }, type: .int32)]
        case "ConvInteger":
            let x = try shifted(try Ops.need(ins, 0), zeroPoint: ins.count > 2 ? ins[2] : nil, axis: 1)
            let w = try shifted(try Ops.need(ins, 1), zeroPoint: ins.count > 3 ? ins[3] : nil, axis: 0)
            let y = try convolve(n, x, w)
            return [Tensor(shape: y.shape, ints: y.floats.map { Int64(saturating: $0.rounded()) }, type: .int32)]
        case "QLinearMatMul":
            guard ins.count >= 8 else { throw ModelError("QLinearMatMul needs 8 inputs, got \(ins.count)") }
            let a = try shifted(try Ops.need(ins, 0), zeroPoint: ins[2], axis: -2)
            let b = try shifted(try Ops.need(ins, 3), zeroPoint: ins[5], axis: -1)
            let acc = try Ops.matmul(a, b)
            let scale = try scalar(try Ops.need(ins, 1)) * scalar(try Ops.need(ins, 4)) / scalar(try Ops.need(ins, 6))
            return [try requantize(acc, multiplier: { _ in scale }, zeroPoint: try Ops.need(ins, 7))]
        case "QLinearConv" where ins.first??.shape.count == 4:
            return [try QuantizedConv.runQLinearConv(n, ins)]
        case "QLinearConv":
            guard ins.count >= 8 else { throw ModelError("QLinearConv needs at least 8 inputs, got \(ins.count)") }
            let x = try shifted(try Ops.need(ins, 0), zeroPoint: ins[2], axis: 1)
            let w = try shifted(try Ops.need(ins, 3), zeroPoint: ins[5], axis: 0)
            var acc = try convolve(n, x, w)
            if ins.count > 8, let bias = ins[8] {
                let c = acc.shape[1], plane = acc.shape[2...].reduce(1, *), bv = values(bias)
                guard bv.count == c else { throw ModelError("QLinearConv bias has \(bv.count) values for \(c) channels") }
                for i in acc.floats.indices { acc.floats[i] += Float(bv[(i / plane) % c]) }
            }
            let xScale = try scalar(try Ops.need(ins, 1)), yScale = try scalar(try Ops.need(ins, 6))
            let wScale = values(try Ops.need(ins, 4)).map { Float($0) }
            let c = acc.shape[1], plane = acc.shape[2...].reduce(1, *)
            guard wScale.count == 1 || wScale.count == c else { throw ModelError("QLinearConv w_scale has \(wScale.count) values for \(c) channels") }
            return [
                try requantize(
                    acc, multiplier: { i in xScale * wScale[wScale.count == 1 ? 0 : (i / plane) % c] / yScale }, zeroPoint: try Ops.need(ins, 7))
            ]
        case "DynamicQuantizeLinear":
            let x = try Ops.need(ins, 0)
            let v = x.asFloats
            // The range always includes 0, so that 0 is exact.
            let lo = min(0, v.min() ?? 0), hi = max(0, v.max() ?? 0)
            let scale = (hi - lo) / 255
            let zero = scale == 0 ? 0 : min(max((-lo / scale).rounded(.toNearestOrEven), 0), 255)
            let y = v.map {
                scale == 0 ? Int64(saturating: zero) : Int64(saturating: min(max(($0 / scale).rounded(.toNearestOrEven) + zero, 0), 255))
            }
            return [
                Tensor(shape: x.shape, ints: y, type: .uint8), Tensor(shape: [], floats: [scale]),
                Tensor(shape: [], ints: [Int64(zero)], type: .uint8),
            ]
        default:
            throw ModelError("op '\(n.opType)' is not implemented")
        }
    }

    /// `x` − its zero point, as a float tensor: the zero point a scalar, or one per index of
    /// `axis` (a row of A, a column of B, an output channel of W).
    static func shifted(_ x: Tensor, zeroPoint: Tensor?, axis: Int) throws -> Tensor {
        let v = values(x)
        guard let zp = zeroPoint, zp.count > 0 else { return Tensor(shape: x.shape, floats: v.map { Float($0) }) }
        let z = values(zp)
        if z.count == 1 { return Tensor(shape: x.shape, floats: v.map { Float($0 - z[0]) }) }
        // A negative axis counts from the end (a matrix's rows are −2, its columns −1).
        let d = axis < 0 ? axis + x.shape.count : axis
        guard d >= 0, d < x.shape.count, z.count == x.shape[d] else {
            throw ModelError("zero point of \(z.count) values does not fit \(x.shape) on axis \(d)")
        }
        let inner = x.shape[(d + 1)...].reduce(1, *), len = x.shape[d]
        return Tensor(shape: x.shape, floats: v.indices.map { Float(v[$0] - z[($0 / inner) % len]) })
    }

    /// A convolution of float tensors through `Conv.run`, with the node's attributes.
    static func convolve(_ n: ONNXNode, _ x: Tensor, _ w: Tensor) throws -> Tensor {
        var conv = n
        conv.opType = "Conv"
        return try Conv.run(conv, [x, w])
    }

    /// The single value of a scale tensor.
    static func scalar(_ t: Tensor) throws -> Float {
        guard t.count == 1, let v = t.asFloats.first else { throw ModelError("expected a scalar scale, got shape \(t.shape)") }
        return v
    }

    /// `acc · multiplier(i)`, rounded half to even, plus the zero point, saturated to the zero
    /// point's type (uint8 or int8).
    static func requantize(_ acc: Tensor, multiplier: (Int) -> Float, zeroPoint: Tensor) throws -> Tensor {
        guard let zp = values(zeroPoint).first else { throw ModelError("missing zero point") }
        let (lo, hi): (Float, Float) = zeroPoint.type == .int8 ? (-128, 127) : (0, 255)
        let y = acc.floats.indices.map { i in
            Int64(saturating: min(max((acc.floats[i] * multiplier(i)).rounded(.toNearestOrEven) + Float(zp), lo), hi))
        }
        return Tensor(shape: acc.shape, ints: y, type: zeroPoint.type)
    }

    static func runQuantizeDequantize(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let x = try Ops.need(ins, 0), scale = try Ops.need(ins, 1), zero = ins.count > 2 ? ins[2] : nil
        // A scale (and zero point) per element of `axis`, or one for the tensor.
        let perAxis = scale.count > 1
        let axis = perAxis ? try Ops.axis(n.int("axis", 1), rank: x.shape.count) : 0
        guard !perAxis || (x.shape.count > axis && scale.count == x.shape[axis]), zero.map({ $0.count == scale.count }) ?? true else {
            throw ModelError("\(op): scale \(scale.shape) does not fit input \(x.shape) on axis \(axis)")
        }
        let s = values(scale), z = zero.map(values) ?? Array(repeating: 0, count: s.count), v = values(x)
        if let bad = s.first(where: { !$0.isFinite || $0 <= 0 }) { throw ModelError("\(op): scale \(bad) is not a positive finite number") }
        if let zero, QuantizedConv.range(zero.type) == nil && ![.uint16, .int16, .int32].contains(zero.type) {
            throw ModelError("\(op): zero point of type \(zero.type), expected uint8, int8, uint16 or int16")
        }
        if op == "DequantizeLinear", let zero, zero.type != x.type {
            throw ModelError("DequantizeLinear: zero point of type \(zero.type) for input of type \(x.type)")
        }
        let inner = perAxis ? x.shape[(axis + 1)...].reduce(1, *) : 1, len = perAxis ? x.shape[axis] : 1
        func q(_ k: Int) -> Int { perAxis ? (k / inner) % len : 0 }
        if op == "DequantizeLinear" {
            return [tensor(x.shape, v.indices.map { (v[$0] - z[q($0)]) * s[q($0)] }, type: .float32)]
        }
        let type = zero?.type ?? .uint8
        let (lo, hi): (Double, Double) = type == .int8 ? (-128, 127) : type == .uint16 ? (0, 65535) : type == .int16 ? (-32768, 32767) : (0, 255)
        // The quotient in Float, as the reference computes it: in Double a value that
        // lands on .5 in Float can fall just off it and round the other way.
        let y = v.indices.map { k in min(max(Double(Float(v[k]) / Float(s[q(k)])).rounded(.toNearestOrEven) + z[q(k)], lo), hi) }
        return [tensor(x.shape, y, type: type)]
    }
}
