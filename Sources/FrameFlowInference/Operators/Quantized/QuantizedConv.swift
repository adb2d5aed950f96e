import CFrameFlowKernels
import Foundation
import FrameFlow

/// 2-D convolution on 8-bit integers (`ff_qgemm_*`): activations quantised to uint8 or int8,
/// int8 weights with a scale per output channel, exact int32 sums, requantised as onnxruntime
/// does (float(sum + bias) · x_scale·w_scale/y_scale, clamped, rounded half to even, plus the
/// output zero point).
///
/// Two ways in: `fusedOp`, which `ONNXPlan.fuseQuantizedConvolutions` makes at load from a QDQ
/// group (DequantizeLinear → Conv → QuantizeLinear, its weights packed once, its input the
/// dequantized float and its output dequantized again when a DequantizeLinear follows), and
/// ONNX's QLinearConv operator, whose weights are packed on each run.
enum QuantizedConv {
    /// The op type of the fused node. Inputs: x (float), the packed weights (int16 lanes in
    /// Int64 words, see `pack`), the int32 bias per output channel (Int64), the requantising
    /// multiplier per output channel (float). Attributes: the Conv's, and `paramsKey`.
    static let fusedOp = "frameflow.QuantizedConv"
    /// [x scale, x zero, x lower, x upper, y zero, y lower, y upper, dequant zero, dequant scale,
    /// integer output (0 or 1), cout, cin per group, kh, kw].
    static let paramsKey = "frameflow.qconv"

    /// What a quantised convolution needs besides its input.
    struct Params {
        var xScale: Float, xZero: Float, xLower: Float, xUpper: Float
        var yZero: Float, yLower: Float, yUpper: Float
        /// The output as floats (q − dequantZero) · dequantScale; (0, 1) gives q itself.
        var dequantZero: Float = 0, dequantScale: Float = 1
        var integerOutput = false
        var cout = 0, cinPerGroup = 0, kh = 0, kw = 0

        var encoded: [Float] {
            [xScale, xZero, xLower, xUpper, yZero, yLower, yUpper, dequantZero, dequantScale, integerOutput ? 1 : 0]
                + [cout, cinPerGroup, kh, kw].map(Float.init)
        }

        init(xScale: Float, xZero: Float, xLower: Float, xUpper: Float, yZero: Float, yLower: Float, yUpper: Float) {
            (self.xScale, self.xZero, self.xLower, self.xUpper, self.yZero, self.yLower, self.yUpper) = (
                xScale, xZero, xLower, xUpper, yZero, yLower, yUpper
            )
        }

        init(_ v: [Float]) throws {
            guard v.count == 14 else { throw ModelError("quantized convolution parameters: \(v.count) values, expected 14") }
            (xScale, xZero, xLower, xUpper, yZero, yLower, yUpper, dequantZero, dequantScale) = (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8])
            integerOutput = v[9] != 0
            (cout, cinPerGroup, kh, kw) = (Int(v[10]), Int(v[11]), Int(v[12]), Int(v[13]))
        }
    }

    /// The lower and upper value of an 8-bit zero point's type, or nil for another type.
    static func range(_ type: ElementType) -> (Float, Float)? {
        switch type {
        case .uint8: return (0, 255)
        case .int8: return (-128, 127)
        default: return nil
        }
    }

    /// A scale that a quantised op can divide by: finite and positive.
    static func checkScale(_ s: [Float], _ what: String) throws {
        if let bad = s.first(where: { !$0.isFinite || $0 <= 0 }) { throw ModelError("\(what) \(bad) is not a positive finite number") }
    }

    /// The weights `w` (cout × cin/group × kh × kw, int8 values as Int64) minus their zero
    /// points (one, or one per output channel), packed per group for `ff_qgemm_multiply` and
    /// held as Int64 words of four int16 lanes.
    static func pack(weights w: [Int64], zero: [Int64], cout: Int, group: Int) -> [Int64] {
        let k = w.count / max(cout, 1), opg = cout / group
        let per = Int(ff_qgemm_packed_weights_count(opg, k))
        var packed = [Int16](repeating: 0, count: per * group)
        var shifted = [Int16](repeating: 0, count: opg * k)
        for g in 0..<group {
            for o in 0..<opg {
                let c = g * opg + o, z = zero.count == 1 ? zero[0] : zero[c]
                for q in 0..<k { shifted[o * k + q] = Int16(clamping: w[c * k + q] - z) }
            }
            packed.withUnsafeMutableBufferPointer { p in ff_qgemm_pack_weights(opg, k, shifted, p.baseAddress! + g * per) }
        }
        var words = [Int64](repeating: 0, count: (packed.count + 3) / 4)
        words.withUnsafeMutableBytes { d in packed.withUnsafeBytes { s in d.copyMemory(from: s) } }
        return words
    }

    /// The kernel of the fused node.
    static func runFused(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        guard ins.count == 4, let x = ins[0], let w = ins[1], let b = ins[2], let m = ins[3] else {
            throw ModelError("\(fusedOp) needs 4 inputs")
        }
        guard case .floats(let v)? = n.attributes[paramsKey] else { throw ModelError("\(fusedOp) without its parameters") }
        let p = try Params(v)
        guard x.isFloat else { throw ModelError("\(fusedOp) input is \(x.type), expected float") }
        return [try run(n, x: x, packedWeights: w.ints, bias: b.ints.map { Int32(truncatingIfNeeded: $0) }, multipliers: m.floats, p)]
    }

    /// The convolution of `x` (float N × C × H × W, quantised here with the x scale and zero
    /// point) by the packed weights.
    static func run(_ n: ONNXNode, x: Tensor, packedWeights: [Int64], bias: [Int32], multipliers: [Float], _ p: Params) throws -> Tensor {
        let group = Int(n.int("group", 1))
        guard x.shape.count == 4, group > 0, p.cout > 0, p.cinPerGroup > 0, p.kh > 0, p.kw > 0, x.shape[1] == p.cinPerGroup * group,
            p.cout % group == 0, bias.count == p.cout,
            multipliers.count == p.cout, x.floats.count == x.count
        else {
            throw ModelError("quantized Conv input \(x.shape) does not fit weights [\(p.cout), \(p.cinPerGroup), \(p.kh), \(p.kw)], group \(group)")
        }
        let (batch, cin, h, wd) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let g = try Conv.geometry(n, input: [h, wd], kernel: [p.kh, p.kw])
        let (oh, ow) = (g.spatialOut[0], g.spatialOut[1])
        let outShape = [batch, p.cout, oh, ow]
        let total = try Checked.elements(outShape, "quantized Conv output")
        let cpg = p.cinPerGroup, opg = p.cout / group, k = cpg * p.kh * p.kw, pixels = oh * ow
        _ = try Checked.elements([k, pixels], "quantized Conv im2col matrix")
        let perGroup = Int(ff_qgemm_packed_weights_count(opg, k))
        guard packedWeights.count * 4 >= perGroup * group else { throw ModelError("quantized Conv packed weights are short") }
        let panels = (pixels + Int(FF_QGEMM_NR) - 1) / Int(FF_QGEMM_NR)
        let panelValues = Int(ff_qgemm_packed_activations_count(k, Int(FF_QGEMM_NR)))
        let xq = UnsafeMutablePointer<Int16>.allocate(capacity: max(cin * h * wd, 1))
        let cols = UnsafeMutablePointer<Int16>.allocate(capacity: panels * panelValues)
        defer {
            xq.deallocate()
            cols.deallocate()
        }
        let work = p.cout * k * pixels
        let out = try [Float](unsafeUninitializedCapacity: total) { outBuf, initialized in
            try packedWeights.withUnsafeBytes { wRaw in
                let wAll = wRaw.bindMemory(to: Int16.self).baseAddress!
                try bias.withUnsafeBufferPointer { bp in
                    try multipliers.withUnsafeBufferPointer { mp in
                        guard let outBase = outBuf.baseAddress, let bAll = bp.baseAddress, let mAll = mp.baseAddress else {
                            throw ModelError("quantized Conv with an empty output")
                        }
                        for image in 0..<batch {
                            x.floats.withUnsafeBufferPointer { xp in
                                ff_quantize_shifted_i16(
                                    xp.baseAddress! + image * cin * h * wd, cin * h * wd, p.xScale, p.xZero, p.xLower, p.xUpper, xq)
                            }
                            for gi in 0..<group {
                                let req = ff_qgemm_requant(
                                    bias: bAll + gi * opg, multiplier: mAll + gi * opg, zero: p.yZero, lower: p.yLower, upper: p.yUpper,
                                    dequant_zero: p.dequantZero, dequant_scale: p.dequantScale)
                                let xg = xq + gi * cpg * h * wd, wg = wAll + gi * perGroup
                                let o = outBase + (image * p.cout + gi * opg) * pixels
                                // Each share packs its own activation panels, then multiplies them.
                                Scratch.parallelFor(panels, work: work / group) { range in
                                    ff_qgemm_pack_im2col(
                                        xg, cpg, h, wd, p.kh, p.kw, g.strides[0], g.strides[1], g.dilations[0], g.dilations[1], g.padBegin[0],
                                        g.padBegin[1], oh, ow, range.lowerBound, range.upperBound, cols)
                                    withUnsafePointer(to: req) { rp in
                                        ff_qgemm_multiply(opg, pixels, k, wg, cols, range.lowerBound, range.upperBound, rp, o, pixels)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            initialized = total
        }
        if p.integerOutput {
            return Tensor(shape: outShape, ints: out.map { Int64($0) }, type: p.yLower < 0 ? .int8 : .uint8)
        }
        return Tensor(shape: outShape, floats: out)
    }

    /// ONNX's QLinearConv (2-D) through the integer kernel: the weights packed on each run.
    static func runQLinearConv(_ n: ONNXNode, _ ins: [Tensor?]) throws -> Tensor {
        guard ins.count >= 8 else { throw ModelError("QLinearConv needs at least 8 inputs, got \(ins.count)") }
        let x = try Ops.need(ins, 0), w = try Ops.need(ins, 3)
        let xs = try Ops.need(ins, 1), xz = try Ops.need(ins, 2), ws = try Ops.need(ins, 4), wz = try Ops.need(ins, 5)
        let ys = try Ops.need(ins, 6), yz = try Ops.need(ins, 7)
        guard let (xLo, xHi) = range(x.type), xz.type == x.type, let (yLo, yHi) = range(yz.type), w.type == .int8 || w.type == .uint8,
            wz.type == w.type
        else {
            throw ModelError(
                "QLinearConv types: x \(x.type) zero point \(xz.type), w \(w.type) zero point \(wz.type), y zero point \(yz.type) (8-bit, x's and w's zero points of their type)"
            )
        }
        guard x.shape.count == 4, w.shape.count == 4 else { throw ModelError("QLinearConv here is 2-D: x \(x.shape), w \(w.shape)") }
        let cout = w.shape[0]
        let xScale = try Ops.scalar(xs), yScale = try Ops.scalar(ys), wScale = ws.asFloats
        guard xz.count == 1, yz.count == 1 else { throw ModelError("QLinearConv x and y zero points must be scalars") }
        guard wScale.count == 1 || wScale.count == cout, wz.count == 1 || wz.count == cout else {
            throw ModelError("QLinearConv w_scale has \(wScale.count) values and w_zero_point \(wz.count) for \(cout) output channels")
        }
        try checkScale([xScale], "QLinearConv x_scale")
        try checkScale([yScale], "QLinearConv y_scale")
        try checkScale(wScale, "QLinearConv w_scale")
        let group = Int(n.int("group", 1))
        guard group > 0, cout % group == 0 else { throw ModelError("QLinearConv group \(group) does not divide \(cout) output channels") }
        var bias = [Int32](repeating: 0, count: cout)
        if ins.count > 8, let b = ins[8] {
            guard b.type == .int32, b.count == cout else { throw ModelError("QLinearConv bias is \(b.type) \(b.shape), expected int32 [\(cout)]") }
            bias = b.ints.map { Int32(truncatingIfNeeded: $0) }
        }
        let multipliers = (0..<cout).map { xScale * wScale[wScale.count == 1 ? 0 : $0] / yScale }
        var p = Params(xScale: 1, xZero: Float(xz.ints[0]), xLower: xLo, xUpper: xHi, yZero: Float(yz.ints[0]), yLower: yLo, yUpper: yHi)
        p.integerOutput = true
        (p.cout, p.cinPerGroup, p.kh, p.kw) = (cout, w.shape[1], w.shape[2], w.shape[3])
        // x's integers as floats, minus the zero point: quantising them again (scale 1, the same
        // zero point) gives them back.
        let zx = xz.ints[0]
        let xf = Tensor(shape: x.shape, floats: x.ints.map { Float($0 - zx) })
        let packed = pack(weights: w.ints, zero: wz.ints, cout: cout, group: group)
        var out = try run(n, x: xf, packedWeights: packed, bias: bias, multipliers: multipliers, p)
        out.type = yz.type
        return out
    }
}
