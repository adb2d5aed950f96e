import Foundation
import FrameFlow

/// The CPU kernels, by ONNX op type. Float tensors are computed in Float; integer tensors in
/// Int64.
enum Ops {
    /// The sum of `count` floats in four 8-lane accumulators: `reduce(0, +)` adds one at a
    /// time, each waiting for the last (PP-OCR's global pool over 96 × 384 values took 46 µs,
    /// fifteen times the other pools).
    static func sum(_ p: UnsafePointer<Float>, count: Int) -> Float {
        typealias V = SIMD8<Float>
        var a0 = V(), a1 = V(), a2 = V(), a3 = V()
        var i = 0
        @inline(__always) func ld(_ j: Int) -> V { UnsafeRawPointer(p + j).loadUnaligned(as: V.self) }
        while i + 32 <= count {
            a0 += ld(i)
            a1 += ld(i + 8)
            a2 += ld(i + 16)
            a3 += ld(i + 24)
            i += 32
        }
        while i + 8 <= count {
            a0 += ld(i)
            i += 8
        }
        var s = ((a0 + a1) + (a2 + a3)).sum()
        while i < count {
            s += p[i]
            i += 1
        }
        return s
    }

    /// The largest of `count` floats (0 when none, as before), vectorised like `sum`.
    static func maximum(_ p: UnsafePointer<Float>, count: Int) -> Float {
        typealias V = SIMD8<Float>
        var m = Float.nan
        var i = 0
        if count >= 8 {
            var a = UnsafeRawPointer(p).loadUnaligned(as: V.self)
            i = 8
            while i + 8 <= count {
                let v = UnsafeRawPointer(p + i).loadUnaligned(as: V.self)
                a = a.replacing(with: v, where: v .> a)
                i += 8
            }
            m = a.max()
        }
        while i < count {
            if m.isNaN || p[i] > m { m = p[i] }
            i += 1
        }
        return count == 0 ? 0 : m
    }

    /// eˣ in single precision from operations that vectorise: x = k·ln 2 + r (ln 2 in two
    /// parts, Cody–Waite), eʳ by Cephes' degree-6 polynomial for |r| ≤ ln 2 / 2, 2ᵏ built in
    /// exponent bits (k read from the mantissa of k + 1.5·2²³: a Float → Int conversion
    /// checks its range and stops the loop vectorising). Relative error ≈ 1e-7 against
    /// `Foundation.exp` (tested); ∞ above 88.72, 0 below −87.3 (no subnormal results), NaN
    /// stays NaN.
    @inline(__always)
    static func exp(_ x: Float) -> Float {
        let c = x < -87.3 ? -87.3 : (x > 88.72 ? 88.72 : x)
        // k = round(c / ln 2) by adding 1.5·2²³ (the float rounds to an integer, ties to
        // even, and k sits in the low mantissa bits) — `rounded` and Float → Int conversions
        // kept the loop scalar.
        let t = c * 1.442_695_04 + 12_582_912
        let k = t - 12_582_912
        let r = c - k * 0.693_359_375 + k * 2.121_944_4e-4
        var p: Float = 1.987_569_15e-4
        p = p * r + 1.398_199_95e-3
        p = p * r + 8.333_451_9e-3
        p = p * r + 4.166_579_59e-2
        p = p * r + 1.666_666_55e-1
        p = p * r + 5.000_000_12e-1
        p = p * r * r + r + 1
        // 2ᵏ as 2ʲ·2ᵏ⁻ʲ (j = ⌊k/2⌋), so that k = 128 (x near the top) and −126 both fit.
        let ki = Int32(bitPattern: t.bitPattern &- 0x4B40_0000), j = ki &>> 1
        let v = p * Float(bitPattern: UInt32(bitPattern: (j &+ 127) &<< 23)) * Float(bitPattern: UInt32(bitPattern: (ki &- j &+ 127) &<< 23))
        return x != x ? x : x > 88.72 ? .infinity : x < -87.3 ? 0 : v
    }

    /// eˣ, or the logistic 1 / (1 + e⁻ˣ), of every value, in a plain loop that vectorises
    /// (through `Scratch.map`'s closure it did not: PP-OCR's 6144-value Sigmoid 36 → 8 µs).
    static func exponential(_ x: [Float], sigmoid: Bool) -> [Float] {
        var out = Scratch.uninitialized(x.count)
        x.withUnsafeBufferPointer { X in
            out.withUnsafeMutableBufferPointer { Y in
                guard let xp = X.baseAddress, let yp = Y.baseAddress else { return }
                if sigmoid {
                    for i in 0..<X.count { yp[i] = 1 / (1 + exp(-xp[i])) }
                } else {
                    for i in 0..<X.count { yp[i] = exp(xp[i]) }
                }
            }
        }
        return out
    }

    static let unary: [String: @Sendable (Float) -> Float] = [
        "Relu": { max($0, 0) }, "Sigmoid": { 1 / (1 + exp(-$0)) }, "Tanh": { tanh($0) }, "Exp": { exp($0) },
        "Log": { log($0) }, "Sqrt": { $0.squareRoot() }, "Neg": { -$0 }, "Abs": { abs($0) },
        "Floor": { $0.rounded(.down) }, "Ceil": { $0.rounded(.up) }, "Reciprocal": { 1 / $0 },
    ]
    static let binary: Set<String> = ["Add", "Sub", "Mul", "Div", "Pow"]
    static let others: Set<String> = [
        "Identity", "Constant", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Concat", "Shape", "Gather",
        "MatMul", "Gemm", "Softmax", "LogSoftmax", "LeakyRelu", "HardSigmoid", "HardSwish", "Clip", "PRelu",
        "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization", "Conv", "MaxPool", "AveragePool", "ReduceMean",
        "ReduceMax", "ArgMax", "Cast", "Slice", "Split", "Pad", "ConvTranspose", "Resize", "Upsample",
    ]

    static func supports(_ op: String, domain: String) -> Bool {
        (domain.isEmpty || domain == "ai.onnx") && (unary[op] != nil || binary.contains(op) || others.contains(op) || ExtraOps.names.contains(op))
    }

    /// `a` (negative counts from the end) as an axis of a rank-`rank` tensor, or an error:
    /// model files are untrusted, and an out-of-range axis would index past the shape.
    /// `inclusive` allows `rank` itself (Flatten's axis); negative axes count from `rank`.
    static func axis(_ a: Int64, rank: Int, inclusive: Bool = false, _ what: String = "axis") throws -> Int {
        let limit = inclusive ? rank + 1 : rank
        let v = a < 0 ? a + Int64(rank) : a
        guard v >= 0 && v < Int64(limit) else { throw ModelError("\(what) \(a) is out of range for rank \(rank)") }
        return Int(v)
    }

    static func need(_ ins: [Tensor?], _ i: Int) throws -> Tensor {
        guard i < ins.count, let t = ins[i] else { throw ModelError("input \(i) is missing") }
        return t
    }

    /// `memo`: where a Conv keeps what its shapes decide between runs (see `Conv.Setup`).
    static func run(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64, memo: Conv.SetupMemo? = nil) throws -> [Tensor] {
        // The most frequent op first, before the table lookups and the switch's string compares.
        if n.opType == "Conv" { return [try Conv.run(n, ins, memo: memo)] }
        if n.opType == "Relu", let x = ins.first ?? nil, x.isFloat {
            // The common one written out (the table's closure is a call per element).
            return [Tensor(shape: x.shape, floats: Scratch.map(x.floats) { $0 > 0 ? $0 : 0 }, type: x.type)]
        }
        if n.opType == "Sigmoid" || n.opType == "Exp", let x = ins.first ?? nil, x.isFloat {
            return [Tensor(shape: x.shape, floats: exponential(x.floats, sigmoid: n.opType == "Sigmoid"), type: x.type)]
        }
        if let f = unary[n.opType] {
            let x = try need(ins, 0)
            return [Tensor(shape: x.shape, floats: Scratch.map(x.asFloats, f), type: x.isFloat ? x.type : .float32)]
        }
        if binary.contains(n.opType) { return [try elementwise(n.opType, try need(ins, 0), try need(ins, 1))] }
        switch n.opType {
        case "Identity": return [try need(ins, 0)]
        case "Constant":
            guard case .tensor(let t)? = n.attributes["value"] else {
                if case .float(let f)? = n.attributes["value_float"] { return [Tensor(shape: [], floats: [f])] }
                if case .floats(let f)? = n.attributes["value_floats"] { return [Tensor(shape: [f.count], floats: f)] }
                if case .int(let i)? = n.attributes["value_int"] { return [Tensor(shape: [], ints: [i])] }
                if case .ints(let i)? = n.attributes["value_ints"] { return [Tensor(shape: [i.count], ints: i)] }
                throw ModelError("Constant without a supported value")
            }
            return [t]
        case "LeakyRelu":
            let a = n.float("alpha", 0.01)
            return [map(try need(ins, 0)) { $0 >= 0 ? $0 : a * $0 }]
        case "HardSigmoid":
            let a = n.float("alpha", 0.2), b = n.float("beta", 0.5)
            return [map(try need(ins, 0)) { max(0, min(1, a * $0 + b)) }]
        case "HardSwish": return [map(try need(ins, 0)) { $0 * max(0, min(1, $0 / 6 + 0.5)) }]
        case "Clip":
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
        case "PRelu": return [try elementwise("PRelu", try need(ins, 0), try need(ins, 1))]
        case "Softmax", "LogSoftmax": return [try softmax(try need(ins, 0), n, opset: opset, log: n.opType == "LogSoftmax")]
        case "Shape":
            let x = try need(ins, 0)
            var s = x.shape.map { Int64($0) }
            let r = Int64(s.count)
            var start = n.int("start", 0), end = n.int("end", r)
            if start < 0 { start += r }
            if end < 0 { end += r }
            start = min(max(start, 0), r)
            end = min(max(end, 0), r)
            s = start < end ? Array(s[Int(start)..<Int(end)]) : []
            return [Tensor(shape: [s.count], ints: s)]
        case "Reshape": return [try reshape(try need(ins, 0), try need(ins, 1).asInts, allowZero: n.int("allowzero", 0) != 0)]
        case "Flatten":
            var x = try need(ins, 0)
            let axis = try axis(n.int("axis", 1), rank: x.shape.count, inclusive: true)
            let a = x.shape[..<axis].reduce(1, *), b = x.shape[axis...].reduce(1, *)
            x.shape = [a, b]
            return [x]
        case "Squeeze":
            var x = try need(ins, 0)
            let axes = try (opset >= 13 ? ins.count > 1 ? ins[1]?.asInts : nil : n.ints("axes"))?.map { try axis($0, rank: x.shape.count, "Squeeze axis") }
            if let axes, let a = axes.first(where: { x.shape[$0] != 1 }) { throw ModelError("Squeeze axis \(a) has size \(x.shape[a]), not 1") }
            x.shape = x.shape.enumerated().filter { axes == nil ? $0.element != 1 : !axes!.contains($0.offset) }.map(\.element)
            return [x]
        case "Unsqueeze":
            var x = try need(ins, 0)
            let raw = (opset >= 13 ? ins.count > 1 ? ins[1]?.asInts : nil : n.ints("axes")) ?? []
            let rank = x.shape.count + raw.count
            let axes = try raw.map { try axis($0, rank: rank, "Unsqueeze axis") }.sorted()
            guard Set(axes).count == axes.count else { throw ModelError("Unsqueeze axes \(raw) repeat an axis") }
            for a in axes { x.shape.insert(1, at: a) }
            return [x]
        case "Transpose":
            let x = try need(ins, 0)
            let perm = n.ints("perm")?.map { Int($0) } ?? Array((0..<x.shape.count).reversed())
            guard perm.sorted() == Array(0..<x.shape.count) else { throw ModelError("Transpose perm \(perm) is not a permutation of the \(x.shape.count) axes") }
            return [transpose(x, perm)]
        case "Concat":
            return [try concat(ins.compactMap { $0 }, axis: n.int("axis", 0))]
        case "Gather": return [try gather(try need(ins, 0), try need(ins, 1), axis: Int(n.int("axis", 0)))]
        case "Cast":
            let x = try need(ins, 0)
            guard let to = ElementType(rawValue: Int(n.int("to", 1))) else { throw ModelError("Cast to an unsupported type") }
            switch to {
            case .float32, .double, .float16:
                return [Tensor(shape: x.shape, floats: to == .float16 ? x.asFloats.map { Float(Float16($0)) } : x.asFloats, type: to)]
            case .bool: return [Tensor(shape: x.shape, ints: x.asFloats.map { $0 != 0 ? 1 : 0 }, type: .bool)]
            default:
                let v: [Int64] = x.isFloat ? x.floats.map(toInt64) : x.ints
                let wrapped: [Int64] = v.map { i in
                    switch to {
                    case .uint8: return Int64(UInt8(truncatingIfNeeded: i))
                    case .int8: return Int64(Int8(truncatingIfNeeded: i))
                    case .uint16: return Int64(UInt16(truncatingIfNeeded: i))
                    case .int16: return Int64(Int16(truncatingIfNeeded: i))
                    case .int32: return Int64(Int32(truncatingIfNeeded: i))
                    case .uint32: return Int64(UInt32(truncatingIfNeeded: i))
                    default: return i
                    }
                }
                return [Tensor(shape: x.shape, ints: wrapped, type: to)]
            }
        case "MatMul": return [try matmul(try need(ins, 0), try need(ins, 1))]
        case "Gemm":
            var a = try need(ins, 0), b = try need(ins, 1)
            if n.int("transA", 0) != 0 { a = transpose(a, [1, 0]) }
            if n.int("transB", 0) != 0 { b = transpose(b, [1, 0]) }
            var y = try matmul(a, b)
            let alpha = n.float("alpha", 1), beta = n.float("beta", 1)
            if alpha != 1 { y = map(y) { $0 * alpha } }
            if ins.count > 2, let c = ins[2] {
                let bc = beta == 1 ? c : map(c) { $0 * beta }
                y = try elementwise("Add", y, bc)
            }
            return [y]
        case "GlobalAveragePool", "GlobalMaxPool":
            let x = try need(ins, 0)
            let nc = x.shape[0] * x.shape[1], sp = x.shape[2...].reduce(1, *)
            var out = [Float](repeating: 0, count: nc)
            let average = n.opType == "GlobalAveragePool"
            x.floats.withUnsafeBufferPointer { p in
                guard let base = p.baseAddress else { return }
                for i in 0..<nc {
                    let s = base + i * sp
                    out[i] = average ? sum(s, count: sp) / Float(sp) : maximum(s, count: sp)
                }
            }
            return [Tensor(shape: [x.shape[0], x.shape[1]] + Array(repeating: 1, count: x.shape.count - 2), floats: out)]
        case "BatchNormalization":
            let x = try need(ins, 0), scale = try need(ins, 1).floats, bias = try need(ins, 2).floats
            let mean = try need(ins, 3).floats, variance = try need(ins, 4).floats
            let eps = n.float("epsilon", 1e-5)
            let c = x.shape.count > 1 ? x.shape[1] : 1, sp = x.shape.count > 2 ? x.shape[2...].reduce(1, *) : 1
            guard scale.count >= c, bias.count >= c, mean.count >= c, variance.count >= c, x.floats.count == x.count else {
                throw ModelError("BatchNormalization parameters do not fit \(c) channels")
            }
            if n.int("training_mode", 0) != 0 {
                return try batchNormTraining(x, scale: scale, bias: bias, mean: mean, variance: variance, eps: eps, momentum: n.float("momentum", 0.9))
            }
            var out = Scratch.uninitialized(x.count)
            x.floats.withUnsafeBufferPointer { X in
                out.withUnsafeMutableBufferPointer { Y in
                    for b in 0..<(x.shape.first ?? 0) {
                        for ch in 0..<c {
                            let k = scale[ch] / (variance[ch] + eps).squareRoot(), o = bias[ch] - mean[ch] * k
                            let base = (b * c + ch) * sp
                            for i in base..<(base + sp) { Y[i] = X[i] * k + o }
                        }
                    }
                }
            }
            return [Tensor(shape: x.shape, floats: out)]
        case "MaxPool" where n.outputs.count > 1 && !n.outputs[1].isEmpty:
            // The Indices output asked for: the plain loop that tracks where each maximum is.
            let (y, indices) = try Conv.maxPoolWithIndices(n, try need(ins, 0))
            return [y, indices]
        case "MaxPool", "AveragePool": return [try Conv.pool(n, try need(ins, 0), max: n.opType == "MaxPool")]
        case "ReduceMean", "ReduceMax":
            let x = try need(ins, 0)
            let axesIn = opset >= 18 || (n.opType == "ReduceMean" && false) ? (ins.count > 1 ? ins[1]?.asInts : nil) : n.ints("axes")
            let axes = axesIn ?? (ins.count > 1 ? ins[1]?.asInts : nil)
            if let axes, axes.isEmpty, n.int("noop_with_empty_axes", 0) != 0 { return [x] }
            let checked = try axes?.map { try axis($0, rank: x.shape.count) } ?? Array(0..<x.shape.count)
            return [reduce(x, axes: checked, keep: n.int("keepdims", 1) != 0, max: n.opType == "ReduceMax")]
        case "ArgMax":
            let x = try need(ins, 0)
            let axis = try axis(n.int("axis", 0), rank: x.shape.count)
            guard x.shape[axis] > 0 else { throw ModelError("ArgMax over an empty axis") }
            return [argmax(x, axis: axis, keep: n.int("keepdims", 1) != 0, last: n.int("select_last_index", 0) != 0)]
        case "Slice": return [try slice(n, ins, opset: opset)]
        case "Split": return try split(n, ins, opset: opset)
        case "Pad": return [try pad(n, ins, opset: opset)]
        case "ConvTranspose": return [try MoreOps.convTranspose(n, ins)]
        case "Resize", "Upsample": return [try MoreOps.resize(n, ins, opset: opset)]
        default:
            return try ExtraOps.run(n, ins, opset: opset)
        }
    }

    static func map(_ x: Tensor, _ f: (Float) -> Float) -> Tensor {
        Tensor(shape: x.shape, floats: Scratch.map(x.asFloats, f), type: x.isFloat ? x.type : .float32)
    }

    /// Numpy broadcasting of two shapes.
    static func broadcastShape(_ a: [Int], _ b: [Int]) throws -> [Int] {
        let r = max(a.count, b.count)
        let pa = Array(repeating: 1, count: r - a.count) + a, pb = Array(repeating: 1, count: r - b.count) + b
        return try zip(pa, pb).map { x, y in
            guard x == y || x == 1 || y == 1 else { throw ModelError("shapes \(a) and \(b) do not broadcast") }
            return max(x, y)
        }
    }

    /// Index maps from the output of a broadcast to each operand.
    /// Advances a row-major multi-index by one within `shape` (last axis fastest), wrapping to zeros after the end.
    @inline(__always)
    static func advance(_ index: inout [Int], within shape: [Int]) {
        var d = index.count - 1
        while d >= 0 {
            index[d] += 1
            if index[d] < shape[d] { return }
            index[d] = 0
            d -= 1
        }
    }

    static func broadcastIndex(_ shape: [Int], to out: [Int]) -> [Int] {
        stridedOffsets(out, strides: broadcastStrides(shape, rank: out.count))
    }

    /// Row-major strides of `shape` seen as a tensor of `rank` dimensions broadcast along its
    /// size-1 (and missing leading) axes, which get stride 0.
    static func broadcastStrides(_ shape: [Int], rank r: Int) -> [Int] {
        let s = Array(repeating: 1, count: r - shape.count) + shape
        var strides = Array(repeating: 0, count: r)
        var acc = 1
        for i in stride(from: r - 1, through: 0, by: -1) {
            strides[i] = s[i] == 1 ? 0 : acc
            acc *= s[i]
        }
        return strides
    }

    /// The source offset of every element of `shape`, visited in row-major order, when axis `d`
    /// advances by `strides[d]` in the source (a stride of 0 repeats: broadcasting).
    static func stridedOffsets(_ shape: [Int], strides: [Int]) -> [Int] {
        let total = shape.reduce(1, *)
        var offsets = [Int](repeating: 0, count: total)
        var counter = [Int](repeating: 0, count: shape.count)
        var off = 0
        for k in 0..<total {
            offsets[k] = off
            var d = shape.count - 1
            while d >= 0 {
                counter[d] += 1
                off += strides[d]
                if counter[d] < shape[d] { break }
                off -= strides[d] * counter[d]
                counter[d] = 0
                d -= 1
            }
        }
        return offsets
    }

    /// `f` over two float arrays broadcast to `shape`. The trailing dimensions in which
    /// each side is either contiguous or constant form one inner run, looped without an
    /// offset table (same shapes, a per-channel bias, a scalar: one or few runs).
    static func broadcastFloats<F: FloatBinaryOp>(
        _ x: [Float], _ xs: [Int], _ y: [Float], _ ys: [Int], _ shape: [Int], _ op: F.Type
    ) -> [Float] {
        let f = F.apply
        let total = shape.reduce(1, *)
        if total == 0 { return [] }
        if xs == ys && x.count == total && y.count == total {
            // The same shape (a residual Add): one run, no strides.
            var result = Scratch.uninitialized(total)
            result.withUnsafeMutableBufferPointer { out in
                x.withUnsafeBufferPointer { X in
                    y.withUnsafeBufferPointer { Y in
                        let o = out.baseAddress!, xp = X.baseAddress!, yp = Y.baseAddress!
                        for i in 0..<total { o[i] = f(xp[i], yp[i]) }
                    }
                }
            }
            return result
        }
        let r = shape.count
        let sx = broadcastStrides(xs, rank: r), sy = broadcastStrides(ys, rank: r)
        // Inner run: trailing dims where x's strides are all 0 or all row-major-contiguous, same for y.
        var inner = 1, d = r
        var xConst = true, yConst = true, xCont = true, yCont = true
        while d > 0 {
            let k = d - 1
            let nxConst = xConst && sx[k] == 0, nyConst = yConst && sy[k] == 0
            let nxCont = xCont && sx[k] == inner, nyCont = yCont && sy[k] == inner
            if !(nxConst || nxCont) || !(nyConst || nyCont) { break }
            xConst = nxConst; yConst = nyConst; xCont = nxCont; yCont = nyCont
            inner *= shape[k]
            d -= 1
        }
        if inner == 1 { xConst = true; yConst = true }
        let outerShape = Array(shape[0..<d])
        let ox = stridedOffsets(outerShape, strides: Array(sx[0..<d])), oy = stridedOffsets(outerShape, strides: Array(sy[0..<d]))
        var result = Scratch.uninitialized(total)
        result.withUnsafeMutableBufferPointer { out in
            x.withUnsafeBufferPointer { X in
                y.withUnsafeBufferPointer { Y in
                    for row in 0..<ox.count {
                        let o = out.baseAddress! + row * inner, xp = X.baseAddress! + ox[row], yp = Y.baseAddress! + oy[row]
                        switch (xConst, yConst) {
                        case (false, false): for i in 0..<inner { o[i] = f(xp[i], yp[i]) }
                        case (false, true): let v = yp[0]; for i in 0..<inner { o[i] = f(xp[i], v) }
                        case (true, false): let v = xp[0]; for i in 0..<inner { o[i] = f(v, yp[i]) }
                        case (true, true): o.update(repeating: f(xp[0], yp[0]), count: inner)
                        }
                    }
                }
            }
        }
        return result
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

    /// BatchNormalization with `training_mode` = 1 (opset 14+): normalised by the batch's own
    /// mean and (population) variance per channel; outputs Y, then the running mean and
    /// variance updated with `momentum` (input · momentum + batch value · (1 − momentum)).
    static func batchNormTraining(_ x: Tensor, scale: [Float], bias: [Float], mean: [Float], variance: [Float], eps: Float, momentum: Float) throws -> [Tensor] {
        guard x.shape.count >= 2, x.count > 0 else { throw ModelError("training-mode BatchNormalization needs a non-empty input of rank ≥ 2, got \(x.shape)") }
        let batch = x.shape[0], c = x.shape[1], sp = x.shape[2...].reduce(1, *)
        let per = Double(batch * sp)
        var y = [Float](repeating: 0, count: x.count), runMean = [Float](repeating: 0, count: c), runVar = runMean
        for ch in 0..<c {
            // Sums in Double: the variance of a channel is a difference of close sums.
            var sum = 0.0
            for b in 0..<batch { for i in 0..<sp { sum += Double(x.floats[(b * c + ch) * sp + i]) } }
            let m = sum / per
            var sq = 0.0
            for b in 0..<batch { for i in 0..<sp { let d = Double(x.floats[(b * c + ch) * sp + i]) - m; sq += d * d } }
            let v = sq / per
            let k = Double(scale[ch]) / (v + Double(eps)).squareRoot()
            for b in 0..<batch { for i in 0..<sp { let j = (b * c + ch) * sp + i; y[j] = Float((Double(x.floats[j]) - m) * k + Double(bias[ch])) } }
            runMean[ch] = mean[ch] * momentum + Float(m) * (1 - momentum)
            runVar[ch] = variance[ch] * momentum + Float(v) * (1 - momentum)
        }
        return [Tensor(shape: x.shape, floats: y), Tensor(shape: [c], floats: runMean), Tensor(shape: [c], floats: runVar)]
    }

    static func softmax(_ x: Tensor, _ n: ONNXNode, opset: Int64, log: Bool) throws -> Tensor {
        let r = x.shape.count
        let axis = try axis(n.int("axis", opset >= 13 ? -1 : 1), rank: r)
        // Before opset 13 the input is flattened to 2-D at `axis`; from 13 it is per axis.
        let outer: Int, inner: Int, len: Int
        if opset < 13 {
            outer = x.shape[..<axis].reduce(1, *); len = x.shape[axis...].reduce(1, *); inner = 1
        } else {
            outer = x.shape[..<axis].reduce(1, *); len = x.shape[axis]; inner = x.shape[(axis + 1)...].reduce(1, *)
        }
        var out = x.floats
        for o in 0..<outer {
            for i in 0..<inner {
                var m = -Float.infinity
                for k in 0..<len { m = max(m, x.floats[(o * len + k) * inner + i]) }
                var sum: Float = 0
                for k in 0..<len { sum += exp(x.floats[(o * len + k) * inner + i] - m) }
                for k in 0..<len {
                    let v = x.floats[(o * len + k) * inner + i] - m
                    out[(o * len + k) * inner + i] = log ? v - Foundation.log(sum) : exp(v) / sum
                }
            }
        }
        return Tensor(shape: x.shape, floats: out)
    }

    static func reshape(_ x: Tensor, _ spec: [Int64], allowZero: Bool) throws -> Tensor {
        var shape = spec.enumerated().map { i, v -> Int in v == 0 && !allowZero && i < x.shape.count ? x.shape[i] : Int(v) }
        // Products checked: the spec comes from the model (a -1 other than the first, or any
        // other negative size, fails the count).
        if let k = shape.firstIndex(of: -1) {
            var rest = shape
            rest.remove(at: k)
            guard let n = ResourceLimits.elementCount(rest), n > 0, x.count % n == 0 else { throw ModelError("cannot reshape \(x.shape) to \(spec)") }
            shape[k] = x.count / n
        }
        guard ResourceLimits.elementCount(shape) == x.count else { throw ModelError("cannot reshape \(x.shape) (\(x.count) values) to \(spec)") }
        var y = x
        y.shape = shape
        return y
    }

    static func transpose(_ x: Tensor, _ perm: [Int]) -> Tensor {
        let outShape = perm.map { x.shape[$0] }
        let r = perm.count
        // A block of trailing axes moved in front of the block before it (NHWC ↔ NCHW, a
        // matrix transpose): batches of one 2-D transpose, in 8 × 8 register blocks. The
        // offset table below cost 5 ns an element (MTCNN O-Net's input: 35 µs).
        if x.isFloat, x.count > 0, x.asFloats.count == x.count {
            for p in 0..<r {
                for q in (p + 1)..<max(p + 1, r) where perm == Array(0..<p) + Array(q..<r) + Array(p..<q) {
                    let outer = x.shape[..<p].reduce(1, *), a = x.shape[p..<q].reduce(1, *), b = x.shape[q...].reduce(1, *)
                    var out = Scratch.uninitialized(x.count)
                    x.floats.withUnsafeBufferPointer { X in
                        out.withUnsafeMutableBufferPointer { Y in
                            for o in 0..<outer {
                                Microkernel.transpose(X.baseAddress! + o * a * b, rows: a, columns: b, into: Y.baseAddress! + o * a * b)
                            }
                        }
                    }
                    return Tensor(shape: outShape, floats: out, type: x.type)
                }
            }
        }
        let inStrides = x.strides
        let src = stridedOffsets(outShape, strides: perm.map { inStrides[$0] })
        if x.isFloat { return Tensor(shape: outShape, floats: src.map { x.floats[$0] }, type: x.type) }
        return Tensor(shape: outShape, ints: src.map { x.ints[$0] }, type: x.type)
    }

    /// Concatenation with the axis and the inputs' shapes checked (untrusted models).
    static func concat(_ ts: [Tensor], axis raw: Int64) throws -> Tensor {
        guard let first = ts.first else { throw ModelError("Concat has no inputs") }
        let axis = try axis(raw, rank: first.shape.count)
        for t in ts where t.shape.count != first.shape.count || t.isFloat != first.isFloat
            || zip(t.shape, first.shape).enumerated().contains(where: { $0.offset != axis && $0.element.0 != $0.element.1 }) {
            throw ModelError("Concat input \(t.shape) does not fit \(first.shape) along axis \(axis)")
        }
        let outer = ts[0].shape[..<axis].reduce(1, *)
        var shape = ts[0].shape
        shape[axis] = ts.map { $0.shape[axis] }.reduce(0, +)
        _ = try Checked.elements(shape, "Concat output")
        let isFloat = ts[0].isFloat
        if isFloat, ts.allSatisfy({ $0.asFloats.count == $0.count }) {
            // Straight into a pooled array (appending grew a fresh one piece by piece).
            var f = Scratch.uninitialized(shape.reduce(1, *))
            f.withUnsafeMutableBufferPointer { F in
                guard var dst = F.baseAddress else { return }
                for o in 0..<outer {
                    for t in ts {
                        let chunk = t.shape[axis...].reduce(1, *)
                        if chunk == 0 { continue }
                        t.floats.withUnsafeBufferPointer { src in dst.update(from: src.baseAddress! + o * chunk, count: chunk) }
                        dst += chunk
                    }
                }
            }
            return Tensor(shape: shape, floats: f, type: ts[0].type)
        }
        var f: [Float] = [], i: [Int64] = []
        for o in 0..<outer {
            for t in ts {
                let chunk = t.shape[axis...].reduce(1, *)
                if isFloat { f += t.asFloats[(o * chunk)..<((o + 1) * chunk)] } else { i += t.asInts[(o * chunk)..<((o + 1) * chunk)] }
            }
        }
        return isFloat ? Tensor(shape: shape, floats: f, type: ts[0].type) : Tensor(shape: shape, ints: i, type: ts[0].type)
    }

    static func gather(_ x: Tensor, _ indices: Tensor, axis a: Int) throws -> Tensor {
        let axis = try Self.axis(Int64(a), rank: x.shape.count)
        let outer = x.shape[..<axis].reduce(1, *), inner = x.shape[(axis + 1)...].reduce(1, *), n = x.shape[axis]
        let idx = try indices.asInts.map { v -> Int in
            let i = v < 0 ? Int(v) + n : Int(v)
            guard i >= 0 && i < n else { throw ModelError("Gather index \(v) is out of range for axis of size \(n)") }
            return i
        }
        let shape = Array(x.shape[..<axis]) + indices.shape + Array(x.shape[(axis + 1)...])
        _ = try Checked.elements(shape, "Gather output")
        var f: [Float] = [], iv: [Int64] = []
        for o in 0..<outer {
            for i in idx {
                let start = (o * n + i) * inner
                if x.isFloat { f += x.floats[start..<(start + inner)] } else { iv += x.ints[start..<(start + inner)] }
            }
        }
        return x.isFloat ? Tensor(shape: shape, floats: f, type: x.type) : Tensor(shape: shape, ints: iv, type: x.type)
    }

    static func matmul(_ a0: Tensor, _ b0: Tensor) throws -> Tensor {
        guard !a0.shape.isEmpty, !b0.shape.isEmpty else {
            throw ModelError("MatMul needs inputs of rank ≥ 1, got shapes \(a0.shape) × \(b0.shape)")
        }
        var a = a0, b = b0
        let aVec = a.shape.count == 1, bVec = b.shape.count == 1
        if aVec { a.shape = [1, a.shape[0]] }
        if bVec { b.shape = [b.shape[0], 1] }
        let m = a.shape[a.shape.count - 2], k = a.shape[a.shape.count - 1]
        let k2 = b.shape[b.shape.count - 2], n = b.shape[b.shape.count - 1]
        guard k == k2 else { throw ModelError("MatMul shapes \(a0.shape) × \(b0.shape) do not agree") }
        let batch = try broadcastShape(Array(a.shape.dropLast(2)), Array(b.shape.dropLast(2)))
        let ia = broadcastIndex(Array(a.shape.dropLast(2)), to: batch), ib = broadcastIndex(Array(b.shape.dropLast(2)), to: batch)
        let nb = batch.reduce(1, *)
        var out = Scratch.filled(nb * m * n)
        let af = a.asFloats, bf = b.asFloats
        af.withUnsafeBufferPointer { A in
            bf.withUnsafeBufferPointer { B in
                out.withUnsafeMutableBufferPointer { C in
                    for bi in 0..<nb where m * n * k > 0 {
                        GEMM.multiply(
                            m: m, n: n, k: k, a: A.baseAddress! + ia[bi] * m * k, lda: k,
                            b: B.baseAddress! + ib[bi] * k * n, ldb: n, c: C.baseAddress! + bi * m * n, ldc: n)
                    }
                }
            }
        }
        var shape = batch + [m, n]
        if aVec { shape.remove(at: shape.count - 2) }
        if bVec { shape.removeLast() }
        return Tensor(shape: shape, floats: out)
    }

    static func reduce(_ x: Tensor, axes: [Int], keep: Bool, max isMax: Bool) -> Tensor {
        let r = x.shape.count
        var outShape = x.shape
        for a in axes { outShape[a] = 1 }
        let ostr = Tensor(shape: outShape, floats: []).strides
        var acc = [Float](repeating: isMax ? -Float.infinity : 0, count: outShape.reduce(1, *))
        let vals = x.asFloats
        var counter = [Int](repeating: 0, count: r)
        for k in 0..<x.count {
            var o = 0
            for d in 0..<r where !axes.contains(d) { o += counter[d] * ostr[d] }
            acc[o] = isMax ? max(acc[o], vals[k]) : acc[o] + vals[k]
            advance(&counter, within: x.shape)
        }
        if !isMax {
            let n = Float(axes.map { x.shape[$0] }.reduce(1, *))
            acc = acc.map { $0 / n }
        }
        let shape = keep ? outShape : x.shape.enumerated().filter { !axes.contains($0.offset) }.map(\.element)
        if !x.isFloat { return Tensor(shape: shape, ints: acc.map(toInt64), type: x.type) }
        return Tensor(shape: shape, floats: acc)
    }

    static func argmax(_ x: Tensor, axis: Int, keep: Bool, last: Bool) -> Tensor {
        let outer = x.shape[..<axis].reduce(1, *), n = x.shape[axis], inner = x.shape[(axis + 1)...].reduce(1, *)
        let v = x.asFloats
        var out = [Int64](repeating: 0, count: outer * inner)
        for o in 0..<outer {
            for i in 0..<inner {
                var best = 0
                for k in 1..<max(n, 1) {
                    let a = v[(o * n + k) * inner + i], b = v[(o * n + best) * inner + i]
                    if a > b || (last && a == b) { best = k }
                }
                out[o * inner + i] = Int64(best)
            }
        }
        var shape = x.shape
        if keep { shape[axis] = 1 } else { shape.remove(at: axis) }
        return Tensor(shape: shape, ints: out)
    }

    static func slice(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> Tensor {
        let x = try need(ins, 0)
        let r = x.shape.count
        let starts: [Int64], ends: [Int64]
        var axes: [Int64], steps: [Int64]
        if opset >= 10 {
            starts = try need(ins, 1).asInts
            ends = try need(ins, 2).asInts
            axes = ins.count > 3 ? ins[3]?.asInts ?? Array(0..<Int64(starts.count)) : Array(0..<Int64(starts.count))
            steps = ins.count > 4 ? ins[4]?.asInts ?? Array(repeating: 1, count: starts.count) : Array(repeating: 1, count: starts.count)
        } else {
            starts = n.ints("starts") ?? []
            ends = n.ints("ends") ?? []
            axes = n.ints("axes") ?? Array(0..<Int64(starts.count))
            steps = Array(repeating: 1, count: starts.count)
        }
        guard ends.count == starts.count, axes.count == starts.count, steps.count == starts.count else {
            throw ModelError("Slice has \(starts.count) starts, \(ends.count) ends, \(axes.count) axes and \(steps.count) steps")
        }
        var lo = Array(repeating: 0, count: r), step = Array(repeating: 1, count: r), count = x.shape
        for (k, a0) in axes.enumerated() {
            let a = try axis(a0, rank: r, "Slice axis")
            let dim = x.shape[a]
            let st = Int(steps[k])
            guard st != 0 else { throw ModelError("Slice step 0") }
            func clampIndex(_ v: Int64, _ isEnd: Bool) -> Int {
                var i = v < 0 ? v + Int64(dim) : v
                if st > 0 { i = min(max(i, 0), Int64(dim)) } else { i = min(max(i, -1), Int64(dim - 1)) }
                return Int(i)
            }
            let s = clampIndex(starts[k], false), e = clampIndex(ends[k], true)
            lo[a] = s
            step[a] = st
            // Elements from s toward e, |st| apart, without forming s + st or −st (a step of
            // Int64.min or near Int64.max comes from the model).
            let span = st > 0 ? e - s : s - e
            count[a] = span <= 0 ? 0 : Int((UInt(span - 1) / st.magnitude) + 1)
        }
        let strides = x.strides
        var f: [Float] = [], iv: [Int64] = []
        let total = count.reduce(1, *)
        var c = [Int](repeating: 0, count: r)
        for _ in 0..<total {
            var off = 0
            for d in 0..<r { off += (lo[d] + c[d] * step[d]) * strides[d] }
            if x.isFloat { f.append(x.floats[off]) } else { iv.append(x.ints[off]) }
            advance(&c, within: count)
        }
        return x.isFloat ? Tensor(shape: count, floats: f, type: x.type) : Tensor(shape: count, ints: iv, type: x.type)
    }

    static func split(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> [Tensor] {
        let x = try need(ins, 0)
        let axis = try axis(n.int("axis", 0), rank: x.shape.count)
        let outputs = n.outputs.count
        var sizes = (opset >= 13 ? (ins.count > 1 ? ins[1]?.asInts : nil) : n.ints("split"))?.map { Int($0) }
        if sizes == nil {
            let dim = x.shape[axis]
            let numOut = Int(n.int("num_outputs", Int64(outputs)))
            guard numOut > 0, numOut <= max(outputs, 1) else { throw ModelError("Split into \(numOut) parts for \(outputs) outputs") }
            let chunk = (dim + numOut - 1) / numOut
            sizes = (0..<numOut).map { min(chunk, dim - $0 * chunk) }
        }
        var result: [Tensor] = []
        var start = 0
        for s in sizes! {
            guard s >= 0, s <= x.shape[axis] - start else { throw ModelError("Split sizes \(sizes!) do not fit axis \(axis) of \(x.shape)") }
            var starts = Array(repeating: Int64(0), count: x.shape.count), ends = x.shape.map { Int64($0) }
            starts[axis] = Int64(start)
            ends[axis] = Int64(start + s)
            var node = n
            node.attributes = [:]
            result.append(try slice(node, [x, Tensor(shape: [starts.count], ints: starts), Tensor(shape: [ends.count], ints: ends)], opset: 13))
            start += s
        }
        return result
    }

    static func pad(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> Tensor {
        let x = try need(ins, 0)
        let r = x.shape.count
        var pads = (opset >= 11 ? ins.count > 1 ? ins[1]?.asInts : nil : n.ints("pads")) ?? Array(repeating: 0, count: 2 * r)
        let value: Float = opset >= 11 ? (ins.count > 2 ? ins[2]?.asFloats.first ?? 0 : 0) : n.float("value", 0)
        if opset >= 18, ins.count > 3, let axesT = ins[3] {
            var full = Array(repeating: Int64(0), count: 2 * r)
            let axes = try axesT.asInts.map { try axis($0, rank: r, "Pad axis") }
            guard pads.count == 2 * axes.count else { throw ModelError("Pad has \(pads.count) pads for \(axes.count) axes") }
            for (k, a) in axes.enumerated() {
                full[a] = pads[k]
                full[a + r] = pads[k + axes.count]
            }
            pads = full
        }
        let mode = n.string("mode", "constant")
        guard pads.count == 2 * r else { throw ModelError("Pad has \(pads.count) pads for rank \(r)") }
        // Sizes checked: pads come from the model (2⁶² overflows the sum).
        let outShape = try (0..<r).map { d in
            try Checked.sum(try Checked.sum(x.shape[d], Int(pads[d]), "Pad axis \(d)"), Int(pads[d + r]), "Pad axis \(d)")
        }
        let total = try Checked.elements(outShape, "Pad output")
        if mode != "constant", total > 0, x.shape.contains(0) { throw ModelError("Pad mode '\(mode)' on an empty axis of \(x.shape)") }
        let strides = x.strides
        let vals = x.asFloats
        var out = Scratch.filled(total, value)
        if mode == "constant" && r > 0 && pads.allSatisfy({ $0 >= 0 }) && x.count > 0 {
            // Growing with a constant: copy each innermost row of the input into place.
            let outStrides = Tensor(shape: outShape, floats: []).strides
            let row = x.shape[r - 1]
            let outer = Array(x.shape[0..<(r - 1)])
            var c = [Int](repeating: 0, count: r - 1)
            vals.withUnsafeBufferPointer { V in
                out.withUnsafeMutableBufferPointer { O in
                    for k in 0..<(x.count / row) {
                        var off = Int(pads[r - 1])
                        for d in 0..<(r - 1) { off += (c[d] + Int(pads[d])) * outStrides[d] }
                        (O.baseAddress! + off).update(from: V.baseAddress! + k * row, count: row)
                        advance(&c, within: outer)
                    }
                }
            }
            return x.isFloat ? Tensor(shape: outShape, floats: out, type: x.type) : Tensor(shape: outShape, ints: out.map(toInt64), type: x.type)
        }
        var c = [Int](repeating: 0, count: r)
        for k in 0..<out.count {
            var off = 0
            var inside = true
            for d in 0..<r {
                var i = c[d] - Int(pads[d])
                let dim = x.shape[d]
                if i < 0 || i >= dim {
                    switch mode {
                    case "reflect":
                        // Reflected back and forth (period 2·(dim − 1)): pads as wide as the
                        // axis, or wider, stay inside it.
                        let period = 2 * (dim - 1)
                        if period == 0 { i = 0 } else { i %= period; if i < 0 { i += period }; if i >= dim { i = period - i } }
                    case "edge": i = min(max(i, 0), dim - 1)
                    case "wrap": i = ((i % dim) + dim) % dim
                    default: inside = false
                    }
                }
                off += i * strides[d]
            }
            if inside { out[k] = vals[off] }
            advance(&c, within: outShape)
        }
        return x.isFloat ? Tensor(shape: outShape, floats: out, type: x.type) : Tensor(shape: outShape, ints: out.map(toInt64), type: x.type)
    }
}

/// A float binary op as a type, so that `Ops.broadcastFloats` is specialised per op and its
/// inner loops vectorise (a closure argument is called per element).
protocol FloatBinaryOp { static func apply(_ a: Float, _ b: Float) -> Float }
enum AddOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a + b } }
enum SubOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a - b } }
enum MulOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a * b } }
enum DivOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a / b } }
enum PowOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { pow(a, b) } }
enum PReluOp: FloatBinaryOp { @inline(__always) static func apply(_ a: Float, _ b: Float) -> Float { a >= 0 ? a : a * b } }
