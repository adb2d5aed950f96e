import Foundation
import FrameFlow

/// A TFLite model (the flatbuffer schema: subgraph 0, tensors, buffers, operator codes,
/// builtin options), run with NHWC float kernels. float16 weights are widened on load
/// (`DEQUANTIZE` then passes them through).
struct TFLiteGraph {
    struct Op {
        var code: Int32
        var inputs: [Int]
        var outputs: [Int]
        var options: FlatBuffer.Table?
        /// A RELU/RELU6 that followed this op, fused at load (TFLite activation code).
        var fusedActivation: UInt8? = nil

        /// A CONV_2D filter with constant weights, laid out at load for `Microkernel`.
        var filter: PackedFilter? = nil
        /// A residual added to this CONV_2D's output before its activation: the index in
        /// `inputs` of a tensor with the output's shape, or fewer channels (zero-padded).
        var residual: Int? = nil

        /// The fused activation: the one fused at load, else the builtin option at `field`.
        func activation(field: Int) throws -> UInt8 { try fusedActivation ?? options?.byte(field) ?? 0 }
    }

    var tensors: [(name: String, shape: [Int], type: ElementType)] = []
    var constants: [Int: Tensor] = [:]
    var ops: [Op] = []
    var inputs: [Int] = []
    var outputs: [Int] = []
    /// For each op, the tensors no later op reads (their storage goes back to the pool).
    var lastUses: [[Int]] = []
    /// The builtin op names the file uses (before fusion).
    var declaredOps: Set<String> = []

    static let names: [Int32: String] = [
        0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D", 6: "DEQUANTIZE",
        9: "FULLY_CONNECTED", 14: "LOGISTIC", 17: "MAX_POOL_2D", 18: "MUL", 19: "RELU", 21: "RELU6", 22: "RESHAPE",
        25: "SOFTMAX", 34: "PAD",
    ]

    init(bytes: [UInt8], file: String) throws {
        let fb = FlatBuffer(bytes: bytes, file: file)
        guard bytes.count >= 8, String(decoding: bytes[4..<8], as: UTF8.self) == "TFL3" else {
            throw ModelError("\(file): not a TFLite (FlatBuffers) model (no TFL3 identifier\(bytes.isEmpty ? "; the file is empty" : ""))")
        }
        let model = try fb.root()
        let codes = try model.tables(1).map { c -> Int32 in
            let dep = Int32(Int8(bitPattern: try c.byte(0)))
            let code = try c.int(3)
            return max(dep, code)
        }
        let buffers = try model.tables(4)
        guard let sg = try model.tables(2).first else { throw ModelError("\(file): no subgraph") }
        for (i, t) in try sg.tables(0).enumerated() {
            let shape = try t.ints(0).map { Int($0) }
            guard shape.allSatisfy({ $0 >= 0 && $0 < 1 << 24 }), ONNXModel.elementCount(shape) != nil else { throw ModelError("\(file): tensor \(i) has an invalid shape \(shape)") }
            let rawType = try t.byte(1)
            let type: ElementType
            switch rawType {
            case 0: type = .float32
            case 1: type = .float16
            case 2: type = .int32
            case 3: type = .uint8
            case 4: type = .int64
            case 6: type = .bool
            case 9: type = .int8
            default: throw ModelError("\(file): tensor '\(try t.string(3))' has unsupported type \(rawType)")
            }
            let name = try t.string(3)
            tensors.append((name, shape, type))
            let b = Int(try t.uint(2))
            if b > 0 {
                guard b < buffers.count else { throw ModelError("\(file): tensor '\(name)' refers to buffer \(b) of \(buffers.count)") }
                var data = try buffers[b].bytesVector(0)
                if data.isEmpty, let off = try buffers[b].field(1) {
                    let o = try fb.u64(off), size = try fb.u64(try buffers[b].field(2) ?? off)
                    guard o <= UInt64(bytes.count), size <= UInt64(bytes.count) - o else { throw ModelError("\(file): buffer \(b) runs past the end") }
                    data = bytes[Int(o)..<Int(o + size)]
                }
                if !data.isEmpty {
                    constants[i] = try ONNXModel.fromRaw(Array(data), type: type, shape: shape, name: name, file: file)
                }
            }
        }
        inputs = try sg.ints(1).map { Int($0) }
        outputs = try sg.ints(2).map { Int($0) }
        let count = tensors.count
        guard (inputs + outputs).allSatisfy({ $0 >= 0 && $0 < count }) else {
            throw ModelError("\(file): subgraph inputs \(inputs) / outputs \(outputs) refer to missing tensors (\(count) tensors)")
        }
        for (k, o) in try sg.tables(3).enumerated() {
            let idx = Int(try o.uint(0))
            guard idx < codes.count else { throw ModelError("\(file): operator \(k) uses opcode \(idx) of \(codes.count)") }
            let ins = try o.ints(1).map { Int($0) }, outs = try o.ints(2).map { Int($0) }
            guard (ins + outs).allSatisfy({ $0 >= -1 && $0 < tensors.count }) else { throw ModelError("\(file): operator \(k) refers to a missing tensor") }
            let code = codes[idx]
            guard Self.names[code] != nil else {
                throw ModelError("\(file): operator \(k) uses builtin op \(code), which FrameFlow does not implement")
            }
            ops.append(Op(code: code, inputs: ins, outputs: outs, options: try o.table(4)))
        }
        declaredOps = Set(ops.compactMap { Self.names[$0.code] })
        fuseActivations()
        foldDequantize()
        packFilters()
        fuseResiduals()
        var seen = Set(outputs).union(constants.keys)
        lastUses = Array(repeating: [], count: ops.count)
        for (k, op) in ops.enumerated().reversed() {
            for i in op.inputs where i >= 0 && !seen.contains(i) {
                seen.insert(i)
                lastUses[k].append(i)
            }
        }
    }

    /// For the fusion passes: how many ops read each tensor, which op writes it, and the
    /// graph's outputs (which must stay).
    private func dataflow() -> (readers: [Int: Int], producer: [Int: Int], graphOutputs: Set<Int>) {
        var readers: [Int: Int] = [:], producer: [Int: Int] = [:]
        for (k, op) in ops.enumerated() {
            for i in op.inputs where i >= 0 { readers[i, default: 0] += 1 }
            for o in op.outputs { producer[o] = k }
        }
        return (readers, producer, Set(outputs))
    }

    private mutating func removeOps(_ removed: Set<Int>) {
        ops = ops.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }

    /// Fuses each RELU/RELU6 into the op before it when that op has no activation of its own
    /// and the RELU is the only reader of its output: one pass over the tensor instead of two.
    mutating func fuseActivations() {
        let (readers, producer, graphOutputs) = dataflow()
        var removed = Set<Int>()
        let field: [Int32: Int] = [0: 0, 3: 3, 4: 4, 18: 0, 9: 0]  // ADD, CONV_2D, DEPTHWISE_CONV_2D, MUL, FULLY_CONNECTED
        for (k, op) in ops.enumerated() where op.code == 19 || op.code == 21 {
            guard let i = op.inputs.first, i >= 0, readers[i] == 1, !graphOutputs.contains(i), let p = producer[i],
                ops[p].outputs == [i], let f = field[ops[p].code], ops[p].fusedActivation == nil,
                (try? ops[p].options?.byte(f) ?? 0) == 0
            else { continue }
            ops[p].fusedActivation = op.code == 19 ? 1 : 3
            ops[p].outputs = op.outputs
            removed.insert(k)
        }
        removeOps(removed)
    }

    /// DEQUANTIZE of a constant (float16 weights, widened when read) is a constant: its
    /// output joins the constants and the op goes, instead of copying weights every run.
    mutating func foldDequantize() {
        ops = ops.filter { op in
            guard op.code == 6, op.inputs.count == 1, op.outputs.count == 1, let c = constants[op.inputs[0]], c.isFloat else { return true }
            constants[op.outputs[0]] = Tensor(shape: c.shape, floats: c.asFloats)
            return false
        }
    }

    /// Lays out the constant filters of CONV_2D for `Microkernel` (FULLY_CONNECTED runs
    /// through `Ops.matmul` and does not read one).
    mutating func packFilters() {
        for k in ops.indices where ops[k].code == 3 {
            let op = ops[k]
            guard op.inputs.count >= 2, let w = constants[op.inputs[1]], w.isFloat, w.shape.count == 4, w.count > 0 else { continue }
            var bias: [Float]? = nil
            if op.inputs.count > 2, op.inputs[2] >= 0 {
                guard let b = constants[op.inputs[2]], b.isFloat, b.count == w.shape[0] else { continue }
                bias = b.asFloats
            }
            ops[k].filter = PackedFilter(outputsByInputs: w.asFloats, outputs: w.shape[0], bias: bias)
        }
    }

    /// Fuses `ADD(CONV_2D(…), r)` — and `ADD(CONV_2D(…), PAD(r))` where the PAD only adds
    /// zero channels at the end — into the convolution, which adds `r` as it stores each
    /// tile (BlazeFace's blocks: the separate PAD and ADD passes over the tensor go).
    mutating func fuseResiduals() {
        let (readers, producer, graphOutputs) = dataflow()
        var removed = Set<Int>()
        for (k, add) in ops.enumerated() where add.code == 0 && add.inputs.count == 2 && add.outputs.count == 1 {
            guard let act = try? add.activation(field: 0), act == 0 || NHWC.clampRange(act) != nil else { continue }
            for side in 0..<2 {
                let ci = add.inputs[side], other = add.inputs[1 - side]
                guard ci >= 0, other >= 0, readers[ci] == 1, !graphOutputs.contains(ci), let p = producer[ci], !removed.contains(p),
                    ops[p].code == 3, ops[p].filter != nil, ops[p].residual == nil, ops[p].outputs == [ci],
                    ops[p].fusedActivation == nil, (try? ops[p].options?.byte(3) ?? 0) == 0
                else { continue }
                let outShape = tensors[ci].shape
                guard outShape.count == 4, tensors[add.outputs[0]].shape == outShape else { continue }
                var residual = other, padOp: Int? = nil
                if let q = producer[other], ops[q].code == 34, readers[other] == 1, !graphOutputs.contains(other),
                    ops[q].inputs.count == 2, let pads = constants[ops[q].inputs[1]]?.asInts, pads.count == 8,
                    pads.dropLast().allSatisfy({ $0 == 0 }), ops[q].inputs[0] >= 0
                {
                    residual = ops[q].inputs[0]
                    padOp = q
                }
                let rs = tensors[residual].shape
                // The residual must exist before the convolution runs.
                guard rs.count == 4, Array(rs.prefix(3)) == Array(outShape.prefix(3)), rs[3] <= outShape[3],
                    padOp != nil || rs == outShape, tensors[residual].type == .float32,
                    producer[residual].map({ $0 < p }) ?? true
                else { continue }
                while ops[p].inputs.count < 3 { ops[p].inputs.append(-1) }
                ops[p].inputs.append(residual)
                ops[p].residual = ops[p].inputs.count - 1
                ops[p].outputs = add.outputs
                if act != 0 { ops[p].fusedActivation = act }
                removed.insert(k)
                if let q = padOp { removed.insert(q) }
                break
            }
        }
        removeOps(removed)
    }

    func run(_ feeds: [Int: Tensor], timing: Model.Timing? = nil) throws -> [Int: Tensor] {
        var values = constants
        for (k, v) in feeds { values[k] = v }
        for (k, op) in ops.enumerated() {
            func input(_ i: Int) throws -> Tensor {
                guard i < op.inputs.count, op.inputs[i] >= 0, let t = values[op.inputs[i]] else {
                    throw ModelError("operator \(k) (\(Self.names[op.code]!)): input \(i) is missing")
                }
                return t
            }
            let out: Tensor
            do {
                let start = timing == nil ? 0 : monotonicNanoseconds()
                out = try NHWC.run(op, input, inputCount: op.inputs.count, outShape: tensors[op.outputs[0]].shape)
                if let timing {
                    let ns = monotonicNanoseconds() - start
                    timing(Self.names[op.code]!, { "#\(k) \(tensors[op.outputs[0]].shape)" }, ns)
                }
            } catch let e as ModelError {
                throw ModelError("operator \(k) (\(Self.names[op.code]!)): \(e.message)")
            }
            values[op.outputs[0]] = out
            for i in lastUses[k] where !op.outputs.contains(i) {
                if var t = values.removeValue(forKey: i) { Scratch.recycle(&t.floats) }
            }
        }
        var result: [Int: Tensor] = [:]
        for o in outputs { result[o] = values[o] }
        return result
    }
}

/// A filter stored as output channels × K (TFLite's CONV_2D and FULLY_CONNECTED layout),
/// laid out at load as the B operand `Microkernel` reads: K × output channels in 16-column
/// panels, its bias padded the same way (zeros without one).
struct PackedFilter {
    let k: Int, outputs: Int
    /// K × outputs in `Microkernel`'s 16-column panels.
    let weights: [Float]
    /// The bias, padded with zeros to the panels' width.
    let bias: [Float]

    /// The bias length for `outputs` channels.
    static func biasCount(_ outputs: Int) -> Int { (outputs + 15) / 16 * 16 }

    /// A filter laid out before (the tensors `Model` stores for an ONNX Conv).
    init?(k: Int, outputs: Int, weights: [Float], bias: [Float]) {
        guard k > 0, outputs > 0, weights.count == Microkernel.packedCount(k: k, n: outputs), bias.count == Self.biasCount(outputs) else { return nil }
        (self.k, self.outputs, self.weights, self.bias) = (k, outputs, weights, bias)
    }

    init(outputsByInputs w: [Float], outputs n: Int, bias b: [Float]?) {
        k = w.count / n
        outputs = n
        var t = [Float](repeating: 0, count: Microkernel.packedCount(k: k, n: n))
        for o in 0..<n { for p in 0..<k { t[Microkernel.packedIndex(row: p, column: o, k: k)] = w[o * k + p] } }
        weights = t
        var bp = [Float](repeating: 0, count: Self.biasCount(n))
        if let b { for o in 0..<n { bp[o] = b[o] } }
        bias = bp
    }

    /// C[rows × outputs] = A[rows × k]·filter + bias, clamped to `range` when given.
    func apply(rows: Int, a: UnsafePointer<Float>, lda: Int, c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: GEMMEpilogue = GEMMEpilogue(), clamp range: (Float, Float)?) {
        weights.withUnsafeBufferPointer { W in
            bias.withUnsafeBufferPointer { B in
                var e = epilogue
                e.columnBias = B.baseAddress
                if let range { (e.lower, e.upper) = range }
                Microkernel.multiply(m: rows, n: outputs, k: k, a: a, lda: lda, b: W.baseAddress!, c: c, ldc: ldc, epilogue: e)
            }
        }
    }
}

/// NHWC float kernels for the TFLite builtins.
enum NHWC {
    static func activation(_ code: UInt8, _ x: inout [Float]) {
        if code == 0 { return }
        x.withUnsafeMutableBufferPointer { p in
            switch code {
            case 1: for i in p.indices { p[i] = max(0, p[i]) }
            case 2: for i in p.indices { p[i] = min(1, max(-1, p[i])) }
            case 3: for i in p.indices { p[i] = min(6, max(0, p[i])) }
            case 4: for i in p.indices { p[i] = tanh(p[i]) }
            default: break
            }
        }
    }

    /// The fused activation as a clamp range, when it is one (all but TANH).
    static func clampRange(_ code: UInt8) -> (Float, Float)? {
        switch code {
        case 1: return (0, .infinity)
        case 2: return (-1, 1)
        case 3: return (0, 6)
        default: return nil
        }
    }

    /// A filter window over an NHWC image: sizes, strides, dilations, padding before.
    struct Window {
        var h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl: Int
        /// A 1 × 1, stride-1 filter over the whole image: the input rows are the im2col rows.
        var readsInputDirectly: Bool { kh == 1 && kw == 1 && sh == 1 && sw == 1 && oh == h && ow == w }
        /// Output columns whose input column under filter column `kx` is inside the image.
        func validColumns(kx: Int) -> Range<Int> {
            Conv.stridedRange(count: ow, stride: sw, offset: kx * dw - pl, limit: w)
        }
    }

    /// The work (taps × outputs) from which the depthwise and pooling loops split across
    /// threads: they read each input once per tap from cache and do little arithmetic, so
    /// they pay for a hand-off sooner than matrix products (BlazeFace's 3 × 3 depthwise
    /// layers of 64 × 64 × 24, 0.9 M taps, stayed on one thread under 1 M; its 16 × 16 ones,
    /// 0.15–0.17 M, split since this went from 250 k to 100 k with the matrix products'
    /// 500 k — see `Scratch.parallelFor`).
    static let memoryBoundSplit = 100_000

    /// Max or average pooling of one NHWC image, channel vectors at a time; the average
    /// counts only the taps inside the image (TFLite's rule). Eight channels per vector, the
    /// last block overlapping the one before (each block is computed from the input, so
    /// writing a channel twice writes the same value); fewer than eight channels one by one.
    /// Element by element, BlazeFace's 2 × 2 pool of 64 × 64 × 28 took 56 µs.
    static func pool(_ g: Window, max isMax: Bool, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        typealias V = SIMD8<Float>
        let c = g.c
        let starts = c >= 8 ? Array(Swift.stride(from: 0, to: c - 7, by: 8)) + (c % 8 == 0 ? [] : [c - 8]) : []
        Scratch.parallelFor(g.oh, work: g.oh * g.ow * c * g.kh * g.kw, threshold: memoryBoundSplit) { band in
            for oy in band {
                let y0 = oy * g.sh - g.pt
                let ys = Swift.max(y0, 0), ye = Swift.min(y0 + g.kh, g.h)
                for ox in 0..<g.ow {
                    let x0 = ox * g.sw - g.pl
                    let xs = Swift.max(x0, 0), xe = Swift.min(x0 + g.kw, g.w)
                    let yp = y + (oy * g.ow + ox) * c
                    if ys >= ye || xs >= xe {
                        yp.update(repeating: isMax ? -.infinity : 0, count: c)
                        continue
                    }
                    let inv = 1 / Float((ye - ys) * (xe - xs))
                    let corner = UnsafeRawPointer(x + (ys * g.w + xs) * c), rowBytes = g.w &* c &* 4, tapBytes = c &* 4
                    let (windowRows, windowColumns) = (ye - ys, xe - xs)
                    for c0 in starts {
                        var a = V(repeating: isMax ? -.infinity : 0)
                        var r = corner + c0 &* 4
                        for _ in 0..<windowRows {
                            var q = r
                            if isMax {
                                for _ in 0..<windowColumns {
                                    let v = q.loadUnaligned(as: V.self)
                                    a = a.replacing(with: v, where: v .> a)
                                    q += tapBytes
                                }
                            } else {
                                for _ in 0..<windowColumns {
                                    a += q.loadUnaligned(as: V.self)
                                    q += tapBytes
                                }
                            }
                            r += rowBytes
                        }
                        UnsafeMutableRawPointer(yp + c0).storeBytes(of: isMax ? a : a * inv, as: V.self)
                    }
                    if !starts.isEmpty { continue }
                    for ch in 0..<c {
                        var a: Float = isMax ? -.infinity : 0
                        for iy in ys..<ye { for ix in xs..<xe { let v = x[(iy * g.w + ix) * c + ch]; a = isMax ? (v > a ? v : a) : a + v } }
                        yp[ch] = isMax ? a : a * inv
                    }
                }
            }
        }
    }

    /// Depthwise convolution (multiplier 1) of one NHWC image: each tap adds a whole
    /// channel vector, over the output columns where it lands inside the image.
    static func depthwise3(_ g: Window, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>) {
        let c = g.c, rowLen = g.ow * c, taps = g.kh * g.kw
        // Stride 1: a tap's input row segment is contiguous, so with each tap's weights
        // repeated along the row, a tap is one flat multiply-add over (column, channel).
        let flat = g.sw == 1 && g.dw == 1
        var expanded = flat ? Scratch.uninitialized(taps * rowLen) : []
        expanded.withUnsafeMutableBufferPointer { E in
            let e = flat ? E.baseAddress : nil  // an empty array may still have an address
            if let e { for t in 0..<taps { for ox in 0..<g.ow { (e + t * rowLen + ox * c).update(from: w + t * c, count: c) } } }
            Scratch.parallelFor(g.oh, work: g.oh * rowLen * taps) { rows in
                for oy in rows {
                    let yr = y + oy * rowLen
                    if let bias {
                        bias.withUnsafeBufferPointer { B in for ox in 0..<g.ow { (yr + ox * c).update(from: B.baseAddress!, count: c) } }
                    } else {
                        yr.update(repeating: 0, count: rowLen)
                    }
                    for ky in 0..<g.kh {
                        let iy = oy * g.sh - g.pt + ky * g.dh
                        if iy < 0 || iy >= g.h { continue }
                        for kx in 0..<g.kw {
                            let cols = g.validColumns(kx: kx)
                            if cols.isEmpty { continue }
                            if let e {
                                let xr = x + (iy * g.w + kx - g.pl) * c, wr = UnsafePointer(e + (ky * g.kw + kx) * rowLen)
                                for j in (cols.lowerBound * c)..<(cols.upperBound * c) { yr[j] += xr[j] * wr[j] }
                            } else {
                                let wt = w + (ky * g.kw + kx) * c, off = kx * g.dw - g.pl
                                for ox in cols {
                                    let xp = x + (iy * g.w + ox * g.sw + off) * c, yp = yr + ox * c
                                    for ch in 0..<c { yp[ch] += xp[ch] * wt[ch] }
                                }
                            }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&expanded)
    }

    /// 3×3 depthwise convolution (multiplier 1, no dilation, any stride) of one NHWC image
    /// with at least 8 channels: 8 channels at a time, their nine taps held in registers
    /// while the block slides along an output row; the last block overlaps the one before
    /// when the channel count is not a multiple of 8 (channels are independent, so the
    /// overlap writes the same values twice). Bias and a clamp activation are applied before
    /// the store.
    @inline(never)
    static func depthwise3x3(_ g: Window, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, clamp: (Float, Float)?) {
        typealias V = SIMD8<Float>
        let c = g.c
        let lo = V(repeating: clamp?.0 ?? -.infinity), hi = V(repeating: clamp?.1 ?? .infinity)
        // Output columns whose three input columns all lie inside the image.
        let inner = g.validColumns(kx: 0).clamped(to: g.validColumns(kx: 2))
        @inline(__always) func ld(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        let blocks = (c + 7) / 8
        Scratch.parallelFor(g.oh, work: g.oh * g.ow * c * 9, threshold: Self.memoryBoundSplit) { rows in
            for oy in rows {
                let iy0 = oy * g.sh - g.pt
                for blk in 0..<blocks {
                    let ch = min(blk * 8, c - 8)
                    let b0 = bias.map { b in b.withUnsafeBufferPointer { ld($0.baseAddress! + ch) } } ?? V()
                    // Taps of rows outside the image are zero, so those rows add nothing.
                    @inline(__always) func tap(_ t: Int) -> V { iy0 + t / 3 >= 0 && iy0 + t / 3 < g.h ? ld(w + t * c + ch) : V() }
                    let w0 = tap(0), w1 = tap(1), w2 = tap(2), w3 = tap(3), w4 = tap(4), w5 = tap(5), w6 = tap(6), w7 = tap(7), w8 = tap(8)
                    // Rows outside the image read row 0 instead (times zero weights).
                    let r0 = x + ((0..<g.h).contains(iy0) ? iy0 : 0) * g.w * c + ch
                    let r1 = x + ((0..<g.h).contains(iy0 + 1) ? iy0 + 1 : 0) * g.w * c + ch
                    let r2 = x + ((0..<g.h).contains(iy0 + 2) ? iy0 + 2 : 0) * g.w * c + ch
                    let yr = y + oy * g.ow * c + ch
                    // Four output columns at a time: four independent accumulator chains
                    // (one chain of nine dependent FMAs per column was latency-bound).
                    @inline(__always) func one(_ ox: Int) -> V {
                        let o = (ox * g.sw - g.pl) * c
                        var a = b0
                        a.addProduct(ld(r0 + o), w0); a.addProduct(ld(r0 + o + c), w1); a.addProduct(ld(r0 + o + 2 * c), w2)
                        a.addProduct(ld(r1 + o), w3); a.addProduct(ld(r1 + o + c), w4); a.addProduct(ld(r1 + o + 2 * c), w5)
                        a.addProduct(ld(r2 + o), w6); a.addProduct(ld(r2 + o + c), w7); a.addProduct(ld(r2 + o + 2 * c), w8)
                        return a
                    }
                    var ox = inner.lowerBound
                    while ox + 4 <= inner.upperBound {
                        let v0 = one(ox), v1 = one(ox + 1), v2 = one(ox + 2), v3 = one(ox + 3)
                        let yp = UnsafeMutableRawPointer(yr + ox * c), step = c * 4
                        yp.storeBytes(of: Microkernel.clamp(v0, lo, hi), as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(v1, lo, hi), toByteOffset: step, as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(v2, lo, hi), toByteOffset: 2 * step, as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(v3, lo, hi), toByteOffset: 3 * step, as: V.self)
                        ox += 4
                    }
                    while ox < inner.upperBound {
                        UnsafeMutableRawPointer(yr + ox * c).storeBytes(of: Microkernel.clamp(one(ox), lo, hi), as: V.self)
                        ox += 1
                    }
                    // The border columns, tap by tap.
                    for ox in 0..<g.ow where !inner.contains(ox) {
                        var a = b0
                        for kx in 0..<3 {
                            let ix = ox * g.sw - g.pl + kx
                            if ix < 0 || ix >= g.w { continue }
                            a.addProduct(ld(r0 + ix * c), tap(kx)); a.addProduct(ld(r1 + ix * c), tap(3 + kx)); a.addProduct(ld(r2 + ix * c), tap(6 + kx))
                        }
                        UnsafeMutableRawPointer(yr + ox * c).storeBytes(of: Microkernel.clamp(a, lo, hi), as: V.self)
                    }
                }
            }
        }
    }

    /// A full convolution of one NHWC image (`g.c` input channels) into `outputs` channels:
    /// bands of output rows over the workers, each in chunks whose im2col rows stay in L1,
    /// multiplied by the packed filter through `Microkernel` (bias, residual and clamp in
    /// its epilogue) — or, without one, by OpenBLAS with the bias added after (the clamp is
    /// then the caller's). `im2col` holds oh·ow·K floats (nil for a 1×1, stride 1 filter).
    static func convolve(
        _ g: Window, x xb: UnsafePointer<Float>, filter packed: PackedFilter?, weights wAll: UnsafePointer<Float>, bias bf: [Float]?,
        outputs oc: Int, y yAll: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?, residualChannels rc: Int,
        clamp: (Float, Float)?, im2col cAll: UnsafeMutablePointer<Float>?
    ) {
        let (h, wd, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl) = (g.h, g.w, g.c, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl)
        let K = kh * kw * c, P = oh * ow
        let direct = g.readsInputDirectly
        #if FRAMEFLOW_AVX512
            if let filter = packed, runsInPlace(g) {
                return convolveInPlace(g, x: xb, filter: filter, y: yAll, residual: residual, residualChannels: rc, clamp: clamp)
            }
            if takesShifted(g, residual: residual != nil) {
                return shifted(g, x: xb, weights: wAll, bias: packed.map { Array($0.bias.prefix(oc)) } ?? bf, outputs: oc, y: yAll, clamp: clamp)
            }
        #endif
        Scratch.parallelFor(oh, work: P * K * oc) { band in
            // Chunks of output rows whose im2col rows (≤ 32 KB) stay in the L1 cache
            // between being written and being multiplied.
            let chunkRows = direct ? band.count : max(1, 8192 / max(1, ow * K))
            for y0 in stride(from: band.lowerBound, to: band.upperBound, by: chunkRows) {
                let chunk = y0..<min(y0 + chunkRows, band.upperBound)
                var src = xb + y0 * ow * c
                if !direct, let cAll {
                    // im2col, one row per output pixel in the filter's (ky, kx, c) order.
                    // Every chunk of a band reuses the band's first rows of the buffer, so
                    // the rows written are the lines just read (walking the whole oh·ow·K
                    // buffer wrote 1.2 MB of fresh lines per BlazeFace frame).
                    let cp = cAll + band.lowerBound * ow * K
                    for y in chunk { for xo in 0..<ow {
                        var dst = cp + ((y - y0) * ow + xo) * K
                        let ix0 = xo * sw - pl
                        for ky in 0..<kh {
                            let iy = y * sh - pt + ky * dh
                            if dw == 1 && iy >= 0 && iy < h && ix0 >= 0 && ix0 + kw <= wd {
                                // The filter row lies inside the image: one copy.
                                Microkernel.copy(dst, from: xb + (iy * wd + ix0) * c, count: kw * c)
                                dst += kw * c
                                continue
                            }
                            for kx in 0..<kw {
                                let ix = xo * sw - pl + kx * dw
                                if iy < 0 || iy >= h || ix < 0 || ix >= wd {
                                    dst.update(repeating: 0, count: c)
                                } else {
                                    Microkernel.copy(dst, from: xb + (iy * wd + ix) * c, count: c)
                                }
                                dst += c
                            }
                        }
                    } }
                    src = UnsafePointer(cp)
                }
                let rows = chunk.count * ow
                let yb = yAll + y0 * ow * oc
                if let filter = packed {
                    var e = GEMMEpilogue()
                    if let r = residual {
                        e.residual = r + y0 * ow * rc
                        (e.residualStride, e.residualColumns) = (rc, rc)
                    }
                    filter.apply(rows: rows, a: src, lda: K, c: yb, ldc: oc, epilogue: e, clamp: clamp)
                    continue
                }
                GEMM.multiply(m: rows, n: oc, k: K, a: src, lda: K, b: wAll, ldb: K, transB: true, c: yb, ldc: oc)
                if let bf { for p in 0..<rows { for f in 0..<oc { yb[p * oc + f] += bf[f] } } }
            }
        }
    }

    #if FRAMEFLOW_AVX512
        /// `ShiftedConvolution` on one NHWC image (bias and clamp added as its channel-major
        /// result is transposed to NHWC). BlazeFace's first layer (5 × 5, stride 2, 3 → 24
        /// channels, K = 75) went through im2col and 32-column tiles holding 24 channels.
        static func shifted(
            _ g: Window, x: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: [Float]?, outputs oc: Int, y: UnsafeMutablePointer<Float>,
            clamp: (Float, Float)?
        ) {
            (bias ?? []).withUnsafeBufferPointer { B in
                ShiftedConvolution.run(
                    g, layout: .channelsLast, x: x, weights: weights, outputs: oc, y: y, bias: B.isEmpty ? nil : B.baseAddress,
                    clamp: clamp ?? (-.infinity, .infinity))
            }
        }
    #endif

    /// Floats of im2col buffer `convolve` needs for `g` (none for a 1 × 1, stride-1 filter,
    /// or where it runs without im2col); a buffer taken for nothing cost PP-OCR's first 3 × 3
    /// layer the zeroing of 1.3 MB as the pool grew an array to that size.
    static func im2colCount(_ g: Window, packed: Bool, residual: Bool = false) -> Int {
        g.readsInputDirectly || packed && runsInPlace(g) || takesShifted(g, residual: residual) ? 0 : g.oh * g.ow * g.kh * g.kw * g.c
    }

    /// Whether `convolve` runs `shifted` (AVX-512 builds, no fused residual).
    static func takesShifted(_ g: Window, residual: Bool) -> Bool {
        ShiftedConvolution.built && !residual && ShiftedConvolution.fits(g)
    }

    /// Whether `convolve` with a packed filter runs `convolveInPlace` (AVX-512 builds): where a
    /// filter row's run is long enough to pay for adding to C once per filter row. BlazeFace's
    /// first 5 × 5 convolution of 3 channels (runs of 15, five passes over C) measured
    /// 1.60 → 1.76 ms for the model this way.
    static func runsInPlace(_ g: Window) -> Bool {
        #if FRAMEFLOW_AVX512
            return !g.readsInputDirectly && g.dw == 1 && g.ow >= 8 && g.kw * g.c >= 64
        #else
            return false
        #endif
    }

    #if FRAMEFLOW_AVX512
        /// A convolution without im2col (filters whose taps along a row are adjacent, `dw`
        /// = 1): the input is copied once into a zero-bordered NHWC buffer, where the `kw · c`
        /// values one filter row sees for output pixel (y, x) are one contiguous run, and the
        /// run for (y, x + 1) starts `sw · c` floats later. So for each filter row `ky` the
        /// input itself is a matrix A (row stride `sw · c`) and the output row is the sum over
        /// `ky` of A·(that row's slice of the packed filter) — one `multiplyRows` call each,
        /// adding to the output, the epilogue on the last. im2col wrote and re-read K floats
        /// per output pixel (PP-OCR's 3 × 3 convolutions of 96 channels: 864, 1.3 MB per
        /// layer, more than L1 holds between writing and reading).
        static func convolveInPlace(
            _ g: Window, x xb: UnsafePointer<Float>, filter: PackedFilter, y yAll: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
            residualChannels rc: Int, clamp: (Float, Float)?
        ) {
            let (h, wd, c, oh, ow, kh, kw, sh, sw, dh, pt, pl) = (g.h, g.w, g.c, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.pt, g.pl)
            let oc = filter.outputs, K = kh * kw * c
            // The bordered input: every tap of every output pixel lies inside it.
            let hp = max(pt + h, (oh - 1) * sh + (kh - 1) * dh + 1), wp = max(pl + wd, (ow - 1) * sw + kw)
            var padded = Scratch.filled(hp * wp * c)
            padded.withUnsafeMutableBufferPointer { PB in
                let pp = PB.baseAddress!
                for y in 0..<h where y + pt >= 0 && y + pt < hp {
                    // Columns that fall inside the buffer (a negative padding crops).
                    let x0 = max(0, -pl), x1 = min(wd, wp - pl)
                    if x1 > x0 { (pp + ((y + pt) * wp + x0 + pl) * c).update(from: xb + (y * wd + x0) * c, count: (x1 - x0) * c) }
                }
                let p = UnsafePointer(pp)
                filter.weights.withUnsafeBufferPointer { W in filter.bias.withUnsafeBufferPointer { B in
                    var last = GEMMEpilogue()
                    last.columnBias = B.baseAddress
                    if let clamp { (last.lower, last.upper) = clamp }
                    if residual != nil { (last.residualStride, last.residualColumns) = (rc, rc) }
                    Scratch.parallelFor(oh, work: oh * ow * K * oc) { band in
                        for oy in band {
                            var e = last
                            e.residual = residual.map { $0 + oy * ow * rc }
                            for ky in 0..<kh {
                                let row = p + ((oy * sh + ky * dh) * wp) * c
                                Microkernel.multiplyRows(
                                    m: ow, n: oc, k: kw * c, a: row, lda: sw * c, b: W.baseAddress! + ky * kw * c * 16, panelK: K,
                                    c: yAll + oy * ow * oc, ldc: oc, epilogue: ky == kh - 1 ? e : GEMMEpilogue(), accumulate: ky > 0)
                            }
                        }
                    }
                } }
            }
            Scratch.recycle(&padded)
        }
    #endif

    /// TF's SAME/VALID padding: (output size, padding before).
    static func padding(_ same: Bool, _ inSize: Int, _ k: Int, _ stride: Int, _ dil: Int) -> (Int, Int) {
        let ek = (k - 1) * dil + 1
        if same {
            let out = (inSize + stride - 1) / stride
            let total = max((out - 1) * stride + ek - inSize, 0)
            return (out, total / 2)
        }
        return ((inSize - ek) / stride + 1, 0)
    }

    static func run(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        switch op.code {
        case 3, 4:  // CONV_2D, DEPTHWISE_CONV_2D
            let x = try input(0), w = try input(1)
            let bias = inputCount > 2 ? try? input(2) : nil
            let depthwise = op.code == 4
            let same = try o?.byte(0) == 0
            let sw = Int(try o?.int(1) ?? 1), sh = Int(try o?.int(2) ?? 1)
            let act = try op.activation(field: depthwise ? 4 : 3)
            let dw = Int(try o?.int(depthwise ? 5 : 4, 1) ?? 1), dh = Int(try o?.int(depthwise ? 6 : 5, 1) ?? 1)
            guard x.shape.count == 4, w.shape.count == 4 else { throw ModelError("conv needs 4-D input and filter") }
            let (n, h, wd, c) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
            let kh = w.shape[1], kw = w.shape[2]
            let oc = depthwise ? w.shape[3] : w.shape[0]
            // Strides and dilations from the file: 0 would divide by zero.
            guard [sw, sh, dw, dh].allSatisfy({ $0 > 0 && $0 < 1 << 16 }), kh > 0, kw > 0 else {
                throw ModelError("conv strides (\(sh), \(sw)), dilations (\(dh), \(dw)) or filter \(w.shape) out of range")
            }
            let (oh, pt) = padding(same, h, kh, sh, dh), (ow, pl) = padding(same, wd, kw, sw, dw)
            guard oh > 0, ow > 0 else { throw ModelError("conv output \(oh) × \(ow) of input \(x.shape), filter \(w.shape)") }
            _ = try Checked.elements([n, oh, ow, oc], "conv output")
            _ = try Checked.elements([oh, ow, kh, kw, c], "conv im2col matrix")
            let mult = depthwise ? oc / max(c, 1) : 1
            guard depthwise ? oc == c * mult : w.shape[3] == c else { throw ModelError("filter \(w.shape) does not fit input \(x.shape)") }
            // The GEMM (beta 0) and depthwise paths write every output; the generic loop adds.
            var out = Scratch.uninitialized(n * oh * ow * oc)
            let xf = x.asFloats, wf = w.asFloats, bf = bias?.asFloats
            if !depthwise && !out.isEmpty && !xf.isEmpty && !wf.isEmpty {
                let K = kh * kw * c, P = oh * ow
                let packed = op.filter.flatMap { $0.k == K && $0.outputs == oc ? $0 : nil }
                let residualTensor = try op.residual.map { try input($0) }
                let rc = residualTensor?.shape.last ?? 0
                if let r = residualTensor {
                    guard packed != nil, r.isFloat, r.shape == [n, oh, ow, rc], r.floats.count == n * oh * ow * rc, rc <= oc else {
                        throw ModelError("residual \(r.shape) does not fit the output [\(n), \(oh), \(ow), \(oc)]")
                    }
                }
                let rf = residualTensor?.floats ?? []
                let window = Window(h: h, w: wd, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl)
                let colCount = NHWC.im2colCount(window, packed: packed != nil, residual: rc > 0)
                var col = colCount == 0 ? [] : Scratch.uninitialized(colCount)  // im2col writes every entry
                rf.withUnsafeBufferPointer { R in
                let residual = rc > 0 ? R.baseAddress : nil  // no channels: nothing to add
                xf.withUnsafeBufferPointer { X in wf.withUnsafeBufferPointer { W in out.withUnsafeMutableBufferPointer { Y in col.withUnsafeMutableBufferPointer { C in
                    let g = Window(h: h, w: wd, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl)
                    for b in 0..<n {
                        convolve(
                            g, x: X.baseAddress! + b * h * wd * c, filter: packed, weights: W.baseAddress!, bias: bf, outputs: oc,
                            y: Y.baseAddress! + b * P * oc, residual: residual.map { $0 + b * P * rc }, residualChannels: rc,
                            clamp: clampRange(act), im2col: C.baseAddress)
                    }
                } } } }
                }
                Scratch.recycle(&col)
                if packed == nil || clampRange(act) == nil { activation(act, &out) }
                return Tensor(shape: [n, oh, ow, oc], floats: out)
            }
            if depthwise && mult == 1 && !out.isEmpty && !xf.isEmpty && !wf.isEmpty {
                let fast3x3 = kh == 3 && kw == 3 && dh == 1 && dw == 1 && c >= 8
                xf.withUnsafeBufferPointer { X in wf.withUnsafeBufferPointer { W in out.withUnsafeMutableBufferPointer { Y in
                    let g = Window(h: h, w: wd, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl)
                    for b in 0..<n {
                        let xb = X.baseAddress! + b * h * wd * c, yb = Y.baseAddress! + b * oh * ow * c
                        if fast3x3 {
                            depthwise3x3(g, x: xb, w: W.baseAddress!, bias: bf, y: yb, clamp: clampRange(act))
                        } else {
                            depthwise3(g, x: xb, w: W.baseAddress!, bias: bf, y: yb)
                        }
                    }
                } } }
                if !fast3x3 || clampRange(act) == nil { activation(act, &out) }  // depthwise3x3 clamps as it stores
                return Tensor(shape: [n, oh, ow, oc], floats: out)
            }
            xf.withUnsafeBufferPointer { X in wf.withUnsafeBufferPointer { W in out.withUnsafeMutableBufferPointer { Y in
                Y.update(repeating: 0)
                for b in 0..<n { for y in 0..<oh { for xo in 0..<ow {
                    let ybase = ((b * oh + y) * ow + xo) * oc
                    for ky in 0..<kh {
                        let iy = y * sh - pt + ky * dh
                        if iy < 0 || iy >= h { continue }
                        for kx in 0..<kw {
                            let ix = xo * sw - pl + kx * dw
                            if ix < 0 || ix >= wd { continue }
                            let xbase = ((b * h + iy) * wd + ix) * c
                            if depthwise {
                                let wbase = (ky * kw + kx) * oc
                                for ch in 0..<oc { Y[ybase + ch] += X[xbase + ch / mult] * W[wbase + ch] }
                            } else {
                                for f in 0..<oc {
                                    let wbase = ((f * kh + ky) * kw + kx) * c
                                    var acc: Float = 0
                                    for ch in 0..<c { acc += X[xbase + ch] * W[wbase + ch] }
                                    Y[ybase + f] += acc
                                }
                            }
                        }
                    }
                    if let bf { for f in 0..<oc { Y[ybase + f] += bf[f] } }
                } } }
            } } }
            activation(act, &out)
            return Tensor(shape: [n, oh, ow, oc], floats: out)
        case 1, 17:  // AVERAGE_POOL_2D, MAX_POOL_2D
            let x = try input(0)
            let same = try o?.byte(0) == 0
            let sw = Int(try o?.int(1) ?? 1), sh = Int(try o?.int(2) ?? 1)
            let fw = Int(try o?.int(3) ?? 1), fh = Int(try o?.int(4) ?? 1)
            let act = try op.activation(field: 5)
            guard x.shape.count == 4, [sw, sh, fw, fh].allSatisfy({ $0 > 0 && $0 < 1 << 16 }) else {
                throw ModelError("pool of input \(x.shape) with filter (\(fh), \(fw)), strides (\(sh), \(sw))")
            }
            let (n, h, wd, c) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
            let (oh, pt) = padding(same, h, fh, sh, 1), (ow, pl) = padding(same, wd, fw, sw, 1)
            guard oh > 0, ow > 0 else { throw ModelError("pool output \(oh) × \(ow) of input \(x.shape)") }
            _ = try Checked.elements([n, oh, ow, c], "pool output")
            var out = Scratch.filled(n * oh * ow * c, op.code == 17 ? -.infinity : 0)
            let xf = x.asFloats
            if !out.isEmpty && !xf.isEmpty {
                let g = Window(h: h, w: wd, c: c, oh: oh, ow: ow, kh: fh, kw: fw, sh: sh, sw: sw, dh: 1, dw: 1, pt: pt, pl: pl)
                xf.withUnsafeBufferPointer { X in out.withUnsafeMutableBufferPointer { Y in
                    for b in 0..<n { pool(g, max: op.code == 17, x: X.baseAddress! + b * h * wd * c, y: Y.baseAddress! + b * oh * ow * c) }
                } }
                activation(act, &out)
                return Tensor(shape: [n, oh, ow, c], floats: out)
            }
            for b in 0..<n { for y in 0..<oh { for xo in 0..<ow { for ch in 0..<c {
                var m: Float = op.code == 17 ? -.infinity : 0
                var count = 0
                for ky in 0..<fh {
                    let iy = y * sh - pt + ky
                    if iy < 0 || iy >= h { continue }
                    for kx in 0..<fw {
                        let ix = xo * sw - pl + kx
                        if ix < 0 || ix >= wd { continue }
                        let v = xf[((b * h + iy) * wd + ix) * c + ch]
                        if op.code == 17 { m = max(m, v) } else { m += v }
                        count += 1
                    }
                }
                out[((b * oh + y) * ow + xo) * c + ch] = op.code == 17 ? m : m / Float(max(count, 1))
            } } } }
            activation(act, &out)
            return Tensor(shape: [n, oh, ow, c], floats: out)
        case 0, 18:  // ADD, MUL
            var t = try Ops.elementwise(op.code == 0 ? "Add" : "Mul", try input(0), try input(1))
            activation(try op.activation(field: 0), &t.floats)
            return t
        case 34:  // PAD
            let x = try input(0), p = try input(1).asInts
            var node = ONNXNode(name: "", opType: "Pad", domain: "", inputs: [], outputs: [], attributes: [:])
            let r = x.shape.count
            guard p.count == 2 * r else { throw ModelError("paddings \(p.count) for rank \(r)") }
            node.attributes["mode"] = .string("constant")
            let onnxPads = (0..<r).map { p[2 * $0] } + (0..<r).map { p[2 * $0 + 1] }
            return try Ops.pad(node, [x, Tensor(shape: [2 * r], ints: onnxPads)], opset: 13)
        case 22:  // RESHAPE
            let x = try input(0)
            var shape = try o?.ints(0).map { Int64($0) } ?? []
            if inputCount > 1, let s = try? input(1) { shape = s.asInts }
            if shape.isEmpty { shape = outShape.map { Int64($0) } }
            return try Ops.reshape(x, shape, allowZero: true)
        case 2:  // CONCATENATION
            let ts = try (0..<inputCount).map { try input($0) }
            var t = try Ops.concat(ts, axis: Int64(try o?.int(0) ?? 0))
            activation(try op.activation(field: 1), &t.floats)
            return t
        case 6:  // DEQUANTIZE (float16 → float32 here; weights were widened at load)
            let x = try input(0)
            return Tensor(shape: x.shape, floats: x.asFloats)
        case 9:  // FULLY_CONNECTED
            let x = try input(0), w = try input(1)
            guard w.shape.count == 2, w.shape[1] > 0 else { throw ModelError("fully connected weights \(w.shape) are not a matrix") }
            let k = w.shape[1], outN = w.shape[0]
            guard x.count % k == 0 else { throw ModelError("input \(x.shape) does not fit weights \(w.shape)") }
            let rows = x.count / k
            var y = try Ops.matmul(Tensor(shape: [rows, k], floats: x.asFloats), Ops.transpose(w, [1, 0]))
            if inputCount > 2, let b = try? input(2) { y = try Ops.elementwise("Add", y, b) }
            activation(try op.activation(field: 0), &y.floats)
            if try o?.byte(2) ?? 0 != 0 { y.shape = Array(x.shape.dropLast()) + [outN] }
            return y
        case 25:  // SOFTMAX
            let x = try input(0)
            let beta = try o?.float(0, 1) ?? 1
            var node = ONNXNode(name: "", opType: "Softmax", domain: "", inputs: [], outputs: [], attributes: [:])
            node.attributes["axis"] = .int(-1)
            return try Ops.softmax(beta == 1 ? x : Ops.map(x) { $0 * beta }, node, opset: 13, log: false)
        case 14:
            let x = try input(0)
            return Tensor(shape: x.shape, floats: Ops.exponential(x.asFloats, sigmoid: true))
        case 19, 21:  // RELU, RELU6: the fused-activation loops
            var t = try input(0)
            t.floats = t.asFloats
            t.type = .float32
            activation(op.code == 19 ? 1 : 3, &t.floats)
            return t
        default: throw ModelError("builtin op \(op.code) is not implemented")
        }
    }
}
