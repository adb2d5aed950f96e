import Foundation

/// ONNX ops beyond the ones the inference issue lists, so that more exported models load:
/// element-wise math and logic, comparisons, the rest of the Reduce family, and shape and
/// indexing utilities (TopK, GatherElements, Expand, Tile, Range, …).
///
/// Written for clarity, not speed: values go through `Double` (exact for integers below
/// 2⁵³) in plain loops over broadcast offsets. None of these ops is in the hot path of the
/// benchmarked models; the ones that are live in `Ops`, `Conv` and `MoreOps`. ONNX's own node
/// tests check every one of them (`ONNXConformanceTests`).
enum ExtraOps {
    /// Element-wise functions of one value (the type of the input is kept).
    static let unaryMath: [String: @Sendable (Double) -> Double] = [
        "Erf": { erf($0) }, "Sin": { sin($0) }, "Cos": { cos($0) }, "Tan": { tan($0) }, "Asin": { asin($0) },
        "Acos": { acos($0) }, "Atan": { atan($0) }, "Sinh": { sinh($0) }, "Cosh": { cosh($0) }, "Asinh": { asinh($0) },
        "Acosh": { acosh($0) }, "Atanh": { atanh($0) }, "Softplus": softplus, "Softsign": { $0 / (1 + abs($0)) },
        "Sign": { $0 > 0 ? 1 : $0 < 0 ? -1 : 0 }, "Round": { $0.rounded(.toNearestOrEven) },
    ]

    /// Every op this file runs.
    static let names: Set<String> = Set(unaryMath.keys).union(indexingNames).union(quantizedNames).union(recurrentNames).union(regionNames).union(lossNames).union(controlFlowNames).union([
        "Min", "Max", "Sum", "Mean", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not",
        "Where", "Mod", "Elu", "Selu", "Celu", "ThresholdedRelu", "Shrink", "IsNaN", "IsInf",
        "ReduceSum", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp",
        "ArgMin", "ConstantOfShape", "Range", "Size", "Dropout", "Expand", "Tile", "CastLike", "Trilu", "GatherElements",
        "LayerNormalization", "TopK", "NonZero", "DepthToSpace", "SpaceToDepth", "CumSum", "Einsum", "GridSample",
    ])

    /// log(1 + eˣ) without overflow for large x.
    @Sendable static func softplus(_ x: Double) -> Double { x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)) }

    static func run(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> [Tensor] {
        let op = n.opType
        if let f = unaryMath[op] {
            let x = try Ops.need(ins, 0)
            return [tensor(x.shape, values(x).map(f), type: x.type)]
        }
        switch op {
        case "Min", "Max", "Sum", "Mean":
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
        case "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual":
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
        case "And", "Or", "Xor":
            let (shape, v) = try broadcast([try Ops.need(ins, 0), try Ops.need(ins, 1)]) { a in
                let (p, q) = (a[0] != 0, a[1] != 0)
                return (op == "And" ? p && q : op == "Or" ? p || q : p != q) ? 1 : 0
            }
            return [tensor(shape, v, type: .bool)]
        case "Not":
            let x = try Ops.need(ins, 0)
            return [tensor(x.shape, values(x).map { $0 == 0 ? 1 : 0 }, type: .bool)]
        case "Where":
            let x = try Ops.need(ins, 1)
            let (shape, v) = try broadcast([try Ops.need(ins, 0), x, try Ops.need(ins, 2)]) { $0[0] != 0 ? $0[1] : $0[2] }
            return [tensor(shape, v, type: x.type)]
        case "Mod":
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
        case "Elu", "Selu", "Celu", "ThresholdedRelu", "Shrink":
            let x = try Ops.need(ins, 0)
            let f: (Double) -> Double
            switch op {
            case "Elu":
                let alpha = Double(n.float("alpha", 1))
                f = { $0 < 0 ? alpha * (exp($0) - 1) : $0 }
            case "Selu":
                let alpha = Double(n.float("alpha", 1.67326319217681884765625)), gamma = Double(n.float("gamma", 1.05070102214813232421875))
                f = { $0 > 0 ? gamma * $0 : gamma * (alpha * exp($0) - alpha) }
            case "Celu":
                let alpha = Double(n.float("alpha", 1))
                f = { max(0, $0) + min(0, alpha * (exp($0 / alpha) - 1)) }
            case "ThresholdedRelu":
                let alpha = Double(n.float("alpha", 1))
                f = { $0 > alpha ? $0 : 0 }
            default:
                let bias = Double(n.float("bias", 0)), lambd = Double(n.float("lambd", 0.5))
                f = { $0 < -lambd ? $0 + bias : $0 > lambd ? $0 - bias : 0 }
            }
            return [tensor(x.shape, values(x).map(f), type: x.type)]
        case "IsNaN":
            let x = try Ops.need(ins, 0)
            return [tensor(x.shape, values(x).map { $0.isNaN ? 1 : 0 }, type: .bool)]
        case "IsInf":
            let x = try Ops.need(ins, 0)
            let negative = n.int("detect_negative", 1) != 0, positive = n.int("detect_positive", 1) != 0
            return [tensor(x.shape, values(x).map { ($0 == .infinity && positive) || ($0 == -.infinity && negative) ? 1 : 0 }, type: .bool)]
        case "ReduceSum", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp":
            let x = try Ops.need(ins, 0)
            // Axes: an attribute until opset 13 (ReduceSum) or 18 (the others), then an input.
            let axesFromInput = op == "ReduceSum" ? opset >= 13 : opset >= 18
            let raw = axesFromInput ? (ins.count > 1 ? ins[1]?.asInts : nil) : n.ints("axes")
            if raw?.isEmpty ?? true, n.int("noop_with_empty_axes", 0) != 0 { return [x] }
            let axes = try (raw.flatMap { $0.isEmpty ? nil : $0 } ?? (0..<Int64(x.shape.count)).map { $0 }).map { try Ops.axis($0, rank: x.shape.count) }
            return [reduce(x, axes: Set(axes), keep: n.int("keepdims", 1) != 0, op)]
        case "ArgMin":
            let x = try Ops.need(ins, 0)
            let axis = try Ops.axis(n.int("axis", 0), rank: x.shape.count)
            guard x.shape[axis] > 0 else { throw ModelError("ArgMin over an empty axis") }
            let negated = Tensor(shape: x.shape, floats: values(x).map { Float(-$0) })
            return [Ops.argmax(negated, axis: axis, keep: n.int("keepdims", 1) != 0, last: n.int("select_last_index", 0) != 0)]
        case "ConstantOfShape":
            let shape = try Ops.need(ins, 0).asInts.map { Int(clamping: $0) }
            let count = try Checked.elements(shape, "ConstantOfShape output")
            if case .tensor(let t)? = n.attributes["value"] {
                guard let v = values(t).first else { throw ModelError("ConstantOfShape: the value tensor is empty") }
                return [tensor(shape, Array(repeating: v, count: count), type: t.type)]
            }
            return [Tensor(shape: shape, floats: Array(repeating: 0, count: count))]
        case "Range":
            let s = try Ops.need(ins, 0)
            guard let start = values(s).first, let limit = values(try Ops.need(ins, 1)).first, let delta = values(try Ops.need(ins, 2)).first
            else { throw ModelError("Range needs scalar start, limit and delta") }
            guard delta != 0, start.isFinite, limit.isFinite else { throw ModelError("Range: delta is 0 or a bound is not finite") }
            let steps = ((limit - start) / delta).rounded(.up)
            guard steps < Double(1 << 31) else { throw ModelError("Range from \(start) to \(limit) by \(delta): too many elements") }
            let count = max(Int(steps), 0)
            _ = try Checked.elements([count], "Range output")
            return [tensor([count], (0..<count).map { start + Double($0) * delta }, type: s.type)]
        case "Size":
            return [Tensor(shape: [], ints: [Int64(try Ops.need(ins, 0).count)])]
        case "Dropout":
            let x = try Ops.need(ins, 0)
            let ratio = ins.count > 1 ? ins[1].flatMap { values($0).first } ?? 0.5 : Double(n.float("ratio", 0.5))
            let training = ins.count > 2 ? (ins[2].flatMap { values($0).first } ?? 0) != 0 : false
            guard !training || ratio == 0 else { throw ModelError("Dropout in training mode (random masks) is not implemented") }
            var outs = [x]
            if n.outputs.count > 1 && !n.outputs[1].isEmpty { outs.append(Tensor(shape: x.shape, ints: Array(repeating: 1, count: x.count), type: .bool)) }
            return outs
        case "Expand":
            let x = try Ops.need(ins, 0)
            let shape = try Ops.broadcastShape(x.shape, try Ops.need(ins, 1).asInts.map { Int(clamping: $0) })
            _ = try Checked.elements(shape, "Expand output")
            return [gather(x, shape: shape, offsets: Ops.broadcastIndex(x.shape, to: shape))]
        case "Tile":
            let x = try Ops.need(ins, 0)
            let repeats = try Ops.need(ins, 1).asInts.map { Int(clamping: $0) }
            guard repeats.count == x.shape.count, repeats.allSatisfy({ $0 >= 0 }) else { throw ModelError("Tile repeats \(repeats) do not fit shape \(x.shape)") }
            let shape = try zip(x.shape, repeats).map { try Checked.product($0, $1, "Tile of \(x.shape) by \(repeats)") }
            _ = try Checked.elements(shape, "Tile output")
            let strides = x.strides
            return [gather(x, shape: shape, offsets: offsets(shape) { c in zip(c.indices, c).reduce(0) { $0 + ($1.1 % x.shape[$1.0]) * strides[$1.0] } })]
        case "CastLike":
            var cast = n
            cast.opType = "Cast"
            cast.attributes["to"] = .int(Int64(try Ops.need(ins, 1).type.rawValue))
            return try Ops.run(cast, [try Ops.need(ins, 0)], opset: opset)
        case "Trilu":
            let x = try Ops.need(ins, 0)
            guard x.shape.count >= 2 else { throw ModelError("Trilu needs rank ≥ 2, got \(x.shape)") }
            let k = ins.count > 1 ? ins[1].flatMap { $0.asInts.first } ?? 0 : 0
            let upper = n.int("upper", 1) != 0
            let (rows, cols) = (x.shape[x.shape.count - 2], x.shape[x.shape.count - 1])
            let v = values(x).enumerated().map { (i, value) -> Double in
                let d = Int64(i % cols) - Int64((i / cols) % rows)  // column − row
                return (upper ? d >= k : d <= k) ? value : 0
            }
            return [tensor(x.shape, v, type: x.type)]
        case "GatherElements":
            let x = try Ops.need(ins, 0), indices = try Ops.need(ins, 1)
            let axis = try Ops.axis(n.int("axis", 0), rank: x.shape.count)
            return [gather(x, shape: indices.shape, offsets: try elementOffsets(op, x, indices, axis: axis))]
        case "LayerNormalization": return try layerNormalization(n, ins)
        case "TopK": return try topK(n, ins, opset: opset)
        case "NonZero":
            let x = try Ops.need(ins, 0)
            let v = values(x), strides = x.strides
            let hits = v.indices.filter { v[$0] != 0 }
            var out = [Int64](repeating: 0, count: x.shape.count * hits.count)
            for (j, flat) in hits.enumerated() {
                for d in x.shape.indices { out[d * hits.count + j] = Int64((flat / strides[d]) % x.shape[d]) }
            }
            return [Tensor(shape: [x.shape.count, hits.count], ints: out)]
        case "DepthToSpace", "SpaceToDepth":
            let x = try Ops.need(ins, 0)
            let b = Int(n.int("blocksize", 0))
            guard x.shape.count == 4, b > 0, b <= 1 << 20 else { throw ModelError("\(op) needs a 4-D input and a blocksize, got \(x.shape), \(b)") }
            let (N, C, H, W) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
            if op == "DepthToSpace" {
                guard C % (b * b) == 0 else { throw ModelError("DepthToSpace: \(C) channels are not a multiple of \(b * b)") }
                let oc = C / (b * b), crd = n.string("mode", "DCR") == "CRD"
                let shape = [N, oc, H * b, W * b]
                _ = try Checked.elements(shape, "DepthToSpace output")
                return [gather(x, shape: shape, offsets: offsets(shape) { c in
                    let (i, j) = (c[2] % b, c[3] % b)
                    let src = crd ? (c[1] * b + i) * b + j : (i * b + j) * oc + c[1]
                    return ((c[0] * C + src) * H + c[2] / b) * W + c[3] / b
                })]
            }
            guard H % b == 0, W % b == 0 else { throw ModelError("SpaceToDepth: \(H) × \(W) is not a multiple of \(b)") }
            let shape = [N, C * b * b, H / b, W / b]
            return [gather(x, shape: shape, offsets: offsets(shape) { c in
                let block = c[1] / C, ch = c[1] % C
                return ((c[0] * C + ch) * H + c[2] * b + block / b) * W + c[3] * b + block % b
            })]
        case "CumSum":
            let x = try Ops.need(ins, 0)
            guard let a = try Ops.need(ins, 1).asInts.first else { throw ModelError("CumSum needs an axis") }
            let axis = try Ops.axis(a, rank: x.shape.count)
            let exclusive = n.int("exclusive", 0) != 0, reverse = n.int("reverse", 0) != 0
            let outer = x.shape[..<axis].reduce(1, *), len = x.shape[axis], inner = x.shape[(axis + 1)...].reduce(1, *)
            let v = values(x)
            var out = [Double](repeating: 0, count: v.count)
            for o in 0..<outer {
                for i in 0..<inner {
                    var sum = 0.0
                    for s in 0..<len {
                        let k = (o * len + (reverse ? len - 1 - s : s)) * inner + i
                        if exclusive { out[k] = sum; sum += v[k] } else { sum += v[k]; out[k] = sum }
                    }
                }
            }
            return [tensor(x.shape, out, type: x.type)]
        case "Einsum": return [try einsum(n, ins)]
        case "GridSample": return [try gridSample(n, ins)]
        default:
            if indexingNames.contains(op) { return try runIndexing(n, ins, opset: opset) }
            if quantizedNames.contains(op) { return try runQuantized(n, ins, opset: opset) }
            if recurrentNames.contains(op) { return try runRecurrent(n, ins) }
            if regionNames.contains(op) { return try runRegions(n, ins, opset: opset) }
            if lossNames.contains(op) { return try runLoss(n, ins) }
            if controlFlowNames.contains(op) { return try runControlFlow(n, ins) }
            throw ModelError("op '\(op)' is not implemented")
        }
    }

    // MARK: Helpers

    /// The values of `t` as Doubles, whatever its type.
    static func values(_ t: Tensor) -> [Double] { t.isFloat ? t.floats.map(Double.init) : t.ints.map(Double.init) }

    /// A tensor of `type` holding `v`: floats rounded to the type (float16 to half
    /// precision), integers rounded toward zero and clamped, booleans 0 or 1.
    static func tensor(_ shape: [Int], _ v: [Double], type: ElementType) -> Tensor {
        switch type {
        case .float32, .double: return Tensor(shape: shape, floats: v.map { Float($0) }, type: type)
        case .float16: return Tensor(shape: shape, floats: v.map { Float(Float16($0)) }, type: .float16)
        case .bool: return Tensor(shape: shape, ints: v.map { $0 != 0 ? 1 : 0 }, type: .bool)
        default:
            return Tensor(shape: shape, ints: v.map { $0.isNaN ? 0 : $0 >= 9.2e18 ? .max : $0 <= -9.2e18 ? .min : Int64($0.rounded(.towardZero)) }, type: type)
        }
    }

    /// Each element's position in the reduced tensor (the `axes` collapsed to 1).
    static func outputPositions(_ shape: [Int], axes: Set<Int>) -> [Int] {
        var reduced = shape
        for a in axes { reduced[a] = 1 }
        let ostr = Tensor(shape: reduced, floats: []).strides
        return offsets(shape) { c in c.indices.reduce(0) { $0 + (axes.contains($1) ? 0 : c[$1] * ostr[$1]) } }
    }

    /// The mean and (population) variance of `v`; zeros when it is empty.
    static func moments(_ v: ArraySlice<Double>) -> (mean: Double, variance: Double) {
        let n = Double(max(v.count, 1))
        let mean = v.reduce(0, +) / n
        return (mean, v.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n)
    }

    /// `f` over the numpy broadcast of `inputs`, one output value per element.
    static func broadcast(_ inputs: [Tensor], _ f: ([Double]) -> Double) throws -> (shape: [Int], values: [Double]) {
        var shape: [Int] = []
        for t in inputs { shape = try Ops.broadcastShape(shape, t.shape) }
        guard let count = ONNXModel.elementCount(shape) else { throw ModelError("broadcast shape \(shape) is too large") }
        let offsets = inputs.map { Ops.broadcastIndex($0.shape, to: shape) }, vals = inputs.map(values)
        var args = [Double](repeating: 0, count: inputs.count), out = [Double](repeating: 0, count: count)
        for k in 0..<count {
            for j in inputs.indices { args[j] = vals[j][offsets[j][k]] }
            out[k] = f(args)
        }
        return (shape, out)
    }

    /// For each element of `shape` in row-major order, `source(coordinate)`.
    static func offsets(_ shape: [Int], _ source: ([Int]) -> Int) -> [Int] {
        let count = shape.reduce(1, *)
        var c = [Int](repeating: 0, count: shape.count), out = [Int](repeating: 0, count: count)
        for k in 0..<count {
            out[k] = source(c)
            Ops.advance(&c, within: shape)
        }
        return out
    }

    /// A tensor of `shape` whose element k is `x`'s element `offsets[k]`.
    static func gather(_ x: Tensor, shape: [Int], offsets: [Int]) -> Tensor {
        x.isFloat ? Tensor(shape: shape, floats: offsets.map { x.floats[$0] }, type: x.type) : Tensor(shape: shape, ints: offsets.map { x.ints[$0] }, type: x.type)
    }

    /// For GatherElements and ScatterElements: the offset in `x` of the element each index
    /// names — the index's own coordinate with `axis` replaced by its value (negative values
    /// count from the end).
    static func elementOffsets(_ op: String, _ x: Tensor, _ indices: Tensor, axis: Int) throws -> [Int] {
        guard indices.shape.count == x.shape.count, x.shape.indices.allSatisfy({ $0 == axis || indices.shape[$0] <= x.shape[$0] }) else {
            throw ModelError("\(op) indices \(indices.shape) do not fit data \(x.shape)")
        }
        let idx = indices.asInts, strides = x.strides, len = x.shape[axis]
        var flat = [Int](repeating: 0, count: idx.count)
        var c = [Int](repeating: 0, count: indices.shape.count)
        for k in 0..<idx.count {
            let i = idx[k] < 0 ? Int(idx[k]) + len : Int(idx[k])
            guard i >= 0 && i < len else { throw ModelError("\(op) index \(idx[k]) is out of range for axis of size \(len)") }
            var o = 0
            for d in c.indices { o += (d == axis ? i : c[d]) * strides[d] }
            flat[k] = o
            Ops.advance(&c, within: indices.shape)
        }
        return flat
    }

    /// The Reduce family other than Mean and Max (which `Ops.reduce` runs).
    static func reduce(_ x: Tensor, axes: Set<Int>, keep: Bool, _ op: String) -> Tensor {
        var outShape = x.shape
        for a in axes { outShape[a] = 1 }
        let v = values(x), target = outputPositions(x.shape, axes: axes)
        let count = outShape.reduce(1, *)
        var acc: [Double]
        switch op {
        case "ReduceMin":
            acc = Array(repeating: .infinity, count: count)
            for k in v.indices { acc[target[k]] = min(acc[target[k]], v[k]) }
        case "ReduceProd":
            acc = Array(repeating: 1, count: count)
            for k in v.indices { acc[target[k]] *= v[k] }
        case "ReduceLogSumExp":
            // Shifted by each output's maximum, so that large values do not overflow.
            var m = [Double](repeating: -.infinity, count: count)
            for k in v.indices { m[target[k]] = max(m[target[k]], v[k]) }
            acc = Array(repeating: 0, count: count)
            for k in v.indices { acc[target[k]] += exp(v[k] - m[target[k]]) }
            for o in 0..<count { acc[o] = m[o] == -.infinity ? -.infinity : m[o] + log(acc[o]) }
        default:
            acc = Array(repeating: 0, count: count)
            for k in v.indices {
                let e = v[k]
                acc[target[k]] += op == "ReduceL1" ? abs(e) : op == "ReduceL2" || op == "ReduceSumSquare" ? e * e : e
            }
            if op == "ReduceL2" { acc = acc.map { $0.squareRoot() } }
            if op == "ReduceLogSum" { acc = acc.map { log($0) } }
        }
        let shape = keep ? outShape : x.shape.enumerated().filter { !axes.contains($0.offset) }.map(\.element)
        return tensor(shape, acc, type: x.type)
    }

    /// LayerNormalization (opset 17): normalised over the axes from `axis` on, then scaled
    /// and shifted; the optional outputs Mean and InvStdDev keep the leading axes.
    static func layerNormalization(_ n: ONNXNode, _ ins: [Tensor?]) throws -> [Tensor] {
        let x = try Ops.need(ins, 0), scale = try Ops.need(ins, 1)
        let r = x.shape.count
        let axis = try Ops.axis(n.int("axis", -1), rank: r)
        let eps = Double(n.float("epsilon", 1e-5))
        let normShape = Array(x.shape[axis...])
        let outer = x.shape[..<axis].reduce(1, *), inner = normShape.reduce(1, *)
        let v = values(x)
        let sv = values(scale), si = Ops.broadcastIndex(scale.shape, to: normShape)
        let bias = ins.count > 2 ? ins[2] : nil
        let bv = bias.map(values), bi = bias.map { Ops.broadcastIndex($0.shape, to: normShape) }
        guard try Ops.broadcastShape(scale.shape, normShape) == normShape, try bias.map({ try Ops.broadcastShape($0.shape, normShape) == normShape }) ?? true else {
            throw ModelError("LayerNormalization scale \(scale.shape) or bias does not fit \(normShape)")
        }
        var y = [Double](repeating: 0, count: v.count), means = [Double](repeating: 0, count: outer), inv = means
        for o in 0..<outer {
            let base = o * inner
            let (mean, variance) = moments(v[base..<(base + inner)])
            let k = 1 / (variance + eps).squareRoot()
            for i in 0..<inner {
                y[base + i] = (v[base + i] - mean) * k * sv[si[i]] + (bv.map { $0[bi![i]] } ?? 0)
            }
            (means[o], inv[o]) = (mean, k)
        }
        let statShape = Array(x.shape[..<axis]) + Array(repeating: 1, count: r - axis)
        return [tensor(x.shape, y, type: x.type), tensor(statShape, means, type: .float32), tensor(statShape, inv, type: .float32)]
    }

    /// TopK: the k largest (or smallest) values along an axis and their indices; equal values
    /// keep their order (the lower index first).
    static func topK(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let k64 = opset >= 10 ? try Ops.need(ins, 1).asInts.first : n.int("k", -1)
        let axis = try Ops.axis(n.int("axis", -1), rank: x.shape.count)
        let len = x.shape[axis]
        guard let k64, k64 >= 0, k64 <= Int64(len) else { throw ModelError("TopK: k \(String(describing: k64)) for an axis of \(len)") }
        let k = Int(k64), largest = n.int("largest", 1) != 0
        let outer = x.shape[..<axis].reduce(1, *), inner = x.shape[(axis + 1)...].reduce(1, *)
        let v = values(x)
        var vals = [Double](repeating: 0, count: outer * k * inner), idx = [Int64](repeating: 0, count: vals.count)
        for o in 0..<outer {
            for i in 0..<inner {
                let order = (0..<len).sorted { a, b in
                    let (p, q) = (v[(o * len + a) * inner + i], v[(o * len + b) * inner + i])
                    return p == q ? a < b : largest ? p > q : p < q
                }
                for j in 0..<k {
                    vals[(o * k + j) * inner + i] = v[(o * len + order[j]) * inner + i]
                    idx[(o * k + j) * inner + i] = Int64(order[j])
                }
            }
        }
        var shape = x.shape
        shape[axis] = k
        return [tensor(shape, vals, type: x.type), Tensor(shape: shape, ints: idx)]
    }
}
