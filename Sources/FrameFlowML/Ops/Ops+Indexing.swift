import Foundation

/// More ONNX ops beyond the list: detection post-processing (NonMaxSuppression),
/// normalisations (InstanceNormalization, LRN, MeanVarianceNormalization), indexing and
/// scattering (GatherND, ScatterND, ScatterElements, OneHot, Compress, Hardmax, EyeLike,
/// ReverseSequence), quantisation (QuantizeLinear, DequantizeLinear), BitShift and the
/// signal windows. Same style as `ExtraOps`: plain loops in Double, checked against ONNX's
/// node tests.
extension ExtraOps {
    static let indexingNames: Set<String> = [
        "NonMaxSuppression", "InstanceNormalization", "LRN", "MeanVarianceNormalization", "Hardmax", "OneHot", "GatherND",
        "ScatterND", "ScatterElements", "Scatter", "Compress", "EyeLike", "ReverseSequence", "QuantizeLinear",
        "DequantizeLinear", "BitShift", "HannWindow", "HammingWindow", "BlackmanWindow",
    ]

    static func runIndexing(_ n: ONNXNode, _ ins: [Tensor?], opset: Int64) throws -> [Tensor] {
        let op = n.opType
        switch op {
        case "NonMaxSuppression": return [try nonMaxSuppression(n, ins)]
        case "InstanceNormalization":
            let x = try Ops.need(ins, 0), scale = values(try Ops.need(ins, 1)), bias = values(try Ops.need(ins, 2))
            guard x.shape.count >= 3, scale.count == x.shape[1], bias.count == x.shape[1] else {
                throw ModelError("InstanceNormalization: scale \(scale.count) and bias \(bias.count) values for input \(x.shape)")
            }
            let eps = Double(n.float("epsilon", 1e-5)), c = x.shape[1], plane = x.shape[2...].reduce(1, *)
            var v = values(x)
            for p in 0..<(x.shape[0] * c) {
                let r = (p * plane)..<((p + 1) * plane)
                let (mean, variance) = moments(v[r])
                let k = scale[p % c] / (variance + eps).squareRoot()
                for i in r { v[i] = (v[i] - mean) * k + bias[p % c] }
            }
            return [tensor(x.shape, v, type: x.type)]
        case "LRN":
            let x = try Ops.need(ins, 0)
            let size = Int(n.int("size", 0))
            guard x.shape.count >= 3, size > 0 else { throw ModelError("LRN needs a size and an input of rank ≥ 3, got \(size), \(x.shape)") }
            let alpha = Double(n.float("alpha", 1e-4)), beta = Double(n.float("beta", 0.75)), bias = Double(n.float("bias", 1))
            let c = x.shape[1], plane = x.shape[2...].reduce(1, *), v = values(x)
            let below = (size - 1) / 2, above = size - 1 - below
            var out = v
            for b in 0..<x.shape[0] { for ch in 0..<c { for i in 0..<plane {
                var sum = 0.0
                for j in max(0, ch - below)...min(c - 1, ch + above) { let e = v[(b * c + j) * plane + i]; sum += e * e }
                let k = (b * c + ch) * plane + i
                out[k] = v[k] / pow(bias + alpha / Double(size) * sum, beta)
            } } }
            return [tensor(x.shape, out, type: x.type)]
        case "MeanVarianceNormalization":
            let x = try Ops.need(ins, 0)
            let axes = Set(try (n.ints("axes") ?? [0, 2, 3]).map { try Ops.axis($0, rank: x.shape.count) })
            let v = values(x)
            let mean = values(reduce(x, axes: axes, keep: true, "ReduceSum"))
            let groups = axes.reduce(1) { $0 * x.shape[$1] }
            let target = outputPositions(x.shape, axes: axes)
            var sq = [Double](repeating: 0, count: mean.count)
            for k in v.indices { let d = v[k] - mean[target[k]] / Double(groups); sq[target[k]] += d * d }
            let y = v.indices.map { k in (v[k] - mean[target[k]] / Double(groups)) / ((sq[target[k]] / Double(groups)).squareRoot() + 1e-9) }
            return [tensor(x.shape, y, type: x.type)]
        case "Hardmax":
            let x = try Ops.need(ins, 0)
            let r = x.shape.count
            // Before opset 13 the input is seen as 2-D, split at `axis` (default 1).
            let axis = try Ops.axis(n.int("axis", opset >= 13 ? -1 : 1), rank: r, inclusive: opset < 13)
            let (outer, len, inner) = opset >= 13
                ? (x.shape[..<axis].reduce(1, *), x.shape[axis], x.shape[(axis + 1)...].reduce(1, *))
                : (x.shape[..<axis].reduce(1, *), x.shape[axis...].reduce(1, *), 1)
            let v = values(x)
            var out = [Double](repeating: 0, count: v.count)
            for o in 0..<outer { for i in 0..<inner where len > 0 {
                var best = 0
                for k in 1..<len where v[(o * len + k) * inner + i] > v[(o * len + best) * inner + i] { best = k }
                out[(o * len + best) * inner + i] = 1
            } }
            return [tensor(x.shape, out, type: x.type)]
        case "OneHot":
            let indices = try Ops.need(ins, 0), onOff = try Ops.need(ins, 2)
            guard let depthValue = values(try Ops.need(ins, 1)).first, depthValue >= 1, depthValue < Double(1 << 24), onOff.count == 2 else {
                throw ModelError("OneHot needs a positive depth and two values (off, on)")
            }
            let depth = Int(depthValue), r = indices.shape.count + 1
            let axis = try Ops.axis(n.int("axis", -1), rank: r)
            var shape = indices.shape
            shape.insert(depth, at: axis)
            guard let count = ONNXModel.elementCount(shape) else { throw ModelError("OneHot output \(shape) is too large") }
            let (off, on) = (values(onOff)[0], values(onOff)[1])
            let idx = values(indices)
            let outer = indices.shape[..<axis].reduce(1, *), inner = indices.shape[axis...].reduce(1, *)
            var out = [Double](repeating: off, count: count)
            for o in 0..<outer { for i in 0..<inner {
                let value = idx[o * inner + i]
                // A NaN or huge index (untrusted) is out of range, not a trapping conversion.
                var k = abs(value) < Double(1 << 40) ? Int(value.rounded(.towardZero)) : depth
                if k < 0 { k += depth }
                if k >= 0 && k < depth { out[(o * depth + k) * inner + i] = on }
            } }
            return [tensor(shape, out, type: onOff.type)]
        case "GatherND": return [try gatherND(n, try Ops.need(ins, 0), try Ops.need(ins, 1))]
        case "ScatterND": return [try scatterND(n, try Ops.need(ins, 0), try Ops.need(ins, 1), try Ops.need(ins, 2))]
        case "ScatterElements", "Scatter":
            let x = try Ops.need(ins, 0), indices = try Ops.need(ins, 1), updates = try Ops.need(ins, 2)
            let axis = try Ops.axis(n.int("axis", 0), rank: x.shape.count)
            guard indices.shape == updates.shape else { throw ModelError("\(op): indices \(indices.shape) and updates \(updates.shape) differ") }
            let flat = try elementOffsets(op, x, indices, axis: axis)
            var v = values(x)
            let u = values(updates), combine = try reduction(n.string("reduction", "none"))
            for k in flat.indices { v[flat[k]] = combine(v[flat[k]], u[k]) }
            return [tensor(x.shape, v, type: x.type)]
        case "Compress":
            let x = try Ops.need(ins, 0), condition = values(try Ops.need(ins, 1))
            if n.attributes["axis"] == nil {
                let v = values(x), keep = v.indices.filter { $0 < condition.count && condition[$0] != 0 }
                return [gather(x, shape: [keep.count], offsets: keep)]
            }
            let axis = try Ops.axis(n.int("axis", 0), rank: x.shape.count)
            let kept = (0..<x.shape[axis]).filter { $0 < condition.count && condition[$0] != 0 }
            return [try Ops.gather(x, Tensor(shape: [kept.count], ints: kept.map(Int64.init)), axis: axis)]
        case "EyeLike":
            let x = try Ops.need(ins, 0)
            guard x.shape.count == 2 else { throw ModelError("EyeLike needs a 2-D input, got \(x.shape)") }
            let k = Int(n.int("k", 0)), (rows, cols) = (x.shape[0], x.shape[1])
            let type = n.attributes["dtype"] == nil ? x.type : ElementType(rawValue: Int(n.int("dtype", 1))) ?? .float32
            return [tensor(x.shape, (0..<(rows * cols)).map { $0 % cols - $0 / cols == k ? 1 : 0 }, type: type)]
        case "ReverseSequence":
            let x = try Ops.need(ins, 0), lens = try Ops.need(ins, 1).asInts
            let batchAxis = try Ops.axis(n.int("batch_axis", 1), rank: x.shape.count), timeAxis = try Ops.axis(n.int("time_axis", 0), rank: x.shape.count)
            guard batchAxis != timeAxis, lens.count == x.shape[batchAxis], lens.allSatisfy({ $0 >= 0 && $0 <= Int64(x.shape[timeAxis]) }) else {
                throw ModelError("ReverseSequence: lengths \(lens) do not fit input \(x.shape)")
            }
            let strides = x.strides
            return [gather(x, shape: x.shape, offsets: offsets(x.shape) { c in
                let len = Int(lens[c[batchAxis]]), t = c[timeAxis]
                return zip(c.indices, c).reduce(0) { $0 + ($1.0 == timeAxis && t < len ? len - 1 - t : $1.1) * strides[$1.0] }
            })]
        case "QuantizeLinear", "DequantizeLinear":
            let x = try Ops.need(ins, 0), scale = try Ops.need(ins, 1), zero = ins.count > 2 ? ins[2] : nil
            // A scale (and zero point) per element of `axis`, or one for the tensor.
            let perAxis = scale.count > 1
            let axis = perAxis ? try Ops.axis(n.int("axis", 1), rank: x.shape.count) : 0
            guard !perAxis || (x.shape.count > axis && scale.count == x.shape[axis]), zero.map({ $0.count == scale.count }) ?? true else {
                throw ModelError("\(op): scale \(scale.shape) does not fit input \(x.shape) on axis \(axis)")
            }
            let s = values(scale), z = zero.map(values) ?? Array(repeating: 0, count: s.count), v = values(x)
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
        case "BitShift":
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
        case "HannWindow", "HammingWindow", "BlackmanWindow":
            guard let sizeValue = values(try Ops.need(ins, 0)).first, sizeValue >= 0, sizeValue < Double(1 << 24) else {
                throw ModelError("\(op) needs a size")
            }
            let size = Int(sizeValue)
            let periodic = n.int("periodic", 1) != 0
            let N = Double(periodic ? size : size - 1)
            let w = (0..<size).map { i -> Double in
                let t = 2 * Double.pi * Double(i) / N
                switch op {
                case "HannWindow": return 0.5 - 0.5 * cos(t)
                case "HammingWindow": return 25.0 / 46 - 21.0 / 46 * cos(t)
                default: return 0.42 - 0.5 * cos(t) + 0.08 * cos(2 * t)
                }
            }
            return [tensor([size], w, type: ElementType(rawValue: Int(n.int("output_datatype", 1))) ?? .float32)]
        default:
            throw ModelError("op '\(op)' is not implemented")
        }
    }

    /// The scatter reduction of an existing value and an update.
    static func reduction(_ name: String) throws -> (Double, Double) -> Double {
        switch name {
        case "none": return { $1 }
        case "add": return { $0 + $1 }
        case "mul": return { $0 * $1 }
        case "max": return { max($0, $1) }
        case "min": return { min($0, $1) }
        default: throw ModelError("scatter reduction '\(name)' is not known")
        }
    }

    /// GatherND: each index tuple (the last axis of `indices`) picks an element or a slice of
    /// `x`, after `batch_dims` leading axes shared by both.
    static func gatherND(_ n: ONNXNode, _ x: Tensor, _ indices: Tensor) throws -> Tensor {
        let b = Int(n.int("batch_dims", 0))
        guard let q = indices.shape.last, b >= 0, b < min(x.shape.count, indices.shape.count), q >= 1, q <= x.shape.count - b,
            x.shape[..<b] == indices.shape[..<b]
        else { throw ModelError("GatherND: indices \(indices.shape) do not fit data \(x.shape) with batch_dims \(b)") }
        let slice = Array(x.shape[(b + q)...]), sliceSize = slice.reduce(1, *)
        let tuples = indices.shape.dropLast().reduce(1, *), batch = x.shape[..<b].reduce(1, *), perBatch = tuples / max(batch, 1)
        let strides = x.strides, batchStride = b > 0 ? strides[b - 1] : 0, idx = indices.asInts
        var offsetsOut: [Int] = []
        offsetsOut.reserveCapacity(tuples * sliceSize)
        for t in 0..<tuples {
            var o = (t / max(perBatch, 1)) * batchStride
            for j in 0..<q {
                let len = x.shape[b + j]
                let i = idx[t * q + j] < 0 ? Int(idx[t * q + j]) + len : Int(idx[t * q + j])
                guard i >= 0 && i < len else { throw ModelError("GatherND index \(idx[t * q + j]) is out of range for axis of size \(len)") }
                o += i * strides[b + j]
            }
            for s in 0..<sliceSize { offsetsOut.append(o + s) }
        }
        return gather(x, shape: Array(indices.shape.dropLast()) + slice, offsets: offsetsOut)
    }

    /// ScatterND: `x` with the elements or slices named by each index tuple replaced by (or
    /// combined with) the matching part of `updates`.
    static func scatterND(_ n: ONNXNode, _ x: Tensor, _ indices: Tensor, _ updates: Tensor) throws -> Tensor {
        guard let q = indices.shape.last, q >= 1, q <= x.shape.count,
            updates.shape == Array(indices.shape.dropLast()) + Array(x.shape[q...])
        else { throw ModelError("ScatterND: indices \(indices.shape), updates \(updates.shape) do not fit data \(x.shape)") }
        let combine = try reduction(n.string("reduction", "none"))
        var v = values(x)
        let u = values(updates), idx = indices.asInts, strides = x.strides
        let sliceSize = x.shape[q...].reduce(1, *), tuples = indices.shape.dropLast().reduce(1, *)
        for t in 0..<tuples {
            var o = 0
            for j in 0..<q {
                let len = x.shape[j]
                let i = idx[t * q + j] < 0 ? Int(idx[t * q + j]) + len : Int(idx[t * q + j])
                guard i >= 0 && i < len else { throw ModelError("ScatterND index \(idx[t * q + j]) is out of range for axis of size \(len)") }
                o += i * strides[j]
            }
            for s in 0..<sliceSize { v[o + s] = combine(v[o + s], u[t * sliceSize + s]) }
        }
        return tensor(x.shape, v, type: x.type)
    }

    /// NonMaxSuppression: per image and class, boxes above `score_threshold` taken by
    /// descending score (equal scores by index), each kept unless its IoU with a kept box
    /// exceeds `iou_threshold`, at most `max_output_boxes_per_class` of them. Rows of the
    /// result: (image, class, box).
    static func nonMaxSuppression(_ n: ONNXNode, _ ins: [Tensor?]) throws -> Tensor {
        let boxes = try Ops.need(ins, 0), scores = try Ops.need(ins, 1)
        guard boxes.shape.count == 3, boxes.shape[2] == 4, scores.shape.count == 3, scores.shape[0] == boxes.shape[0], scores.shape[2] == boxes.shape[1] else {
            throw ModelError("NonMaxSuppression: boxes \(boxes.shape) and scores \(scores.shape) do not fit")
        }
        let maxOut = ins.count > 2 ? ins[2]?.asInts.first ?? 0 : 0
        let iouThreshold = ins.count > 3 ? ins[3].flatMap { values($0).first } ?? 0 : 0
        let scoreThreshold = ins.count > 4 ? ins[4].flatMap { values($0).first } : nil
        let center = n.int("center_point_box", 0) != 0
        let (images, count, classes) = (boxes.shape[0], boxes.shape[1], scores.shape[1])
        let bv = values(boxes), sv = values(scores)
        /// Box k of image b as (y1, x1, y2, x2) with y1 ≤ y2, x1 ≤ x2.
        func corners(_ b: Int, _ k: Int) -> (Double, Double, Double, Double) {
            let p = (b * count + k) * 4
            if center {
                let (xc, yc, w, h) = (bv[p], bv[p + 1], bv[p + 2], bv[p + 3])
                return (yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2)
            }
            return (min(bv[p], bv[p + 2]), min(bv[p + 1], bv[p + 3]), max(bv[p], bv[p + 2]), max(bv[p + 1], bv[p + 3]))
        }
        func iou(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Double {
            let ih = max(0, min(a.2, b.2) - max(a.0, b.0)), iw = max(0, min(a.3, b.3) - max(a.1, b.1))
            let inter = ih * iw, union = (a.2 - a.0) * (a.3 - a.1) + (b.2 - b.0) * (b.3 - b.1) - inter
            return union > 0 ? inter / union : 0
        }
        var rows: [Int64] = []
        guard maxOut > 0 else { return Tensor(shape: [0, 3], ints: []) }
        for b in 0..<images {
            for c in 0..<classes {
                let base = (b * classes + c) * count
                let order = (0..<count).filter { scoreThreshold == nil || sv[base + $0] > scoreThreshold! }
                    .sorted { sv[base + $0] == sv[base + $1] ? $0 < $1 : sv[base + $0] > sv[base + $1] }
                var kept: [(Double, Double, Double, Double)] = []
                for k in order where Int64(kept.count) < maxOut {
                    let box = corners(b, k)
                    if kept.allSatisfy({ iou($0, box) <= iouThreshold }) {
                        kept.append(box)
                        rows += [Int64(b), Int64(c), Int64(k)]
                    }
                }
            }
        }
        return Tensor(shape: [rows.count / 3, 3], ints: rows)
    }
}
