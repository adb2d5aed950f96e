import Foundation
import FrameFlow

/// Reductions: the Reduce family, ArgMax / ArgMin, CumSum and TopK.
extension Ops {
    /// Reduction ops by op type (one kernel tells the Reduce family's ops apart).
    static let reduceKernels = kernels(
        ["ReduceSum", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"], runReduce
    )
    .merging(kernels(["ReduceMean", "ReduceMax"], runReduceMeanMax), uniquingKeysWith: twice)
    .merging(["ArgMax": runArgMax, "ArgMin": runArgMin, "CumSum": runCumSum, "TopK": runTopK], uniquingKeysWith: twice)

    static func runReduceMeanMax(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        let x = try need(ins, 0)
        let axesIn = opset >= 18 ? (ins.count > 1 ? ins[1]?.asInts : nil) : n.ints("axes")
        let axes = axesIn ?? (ins.count > 1 ? ins[1]?.asInts : nil)
        if let axes, axes.isEmpty, n.int("noop_with_empty_axes", 0) != 0 { return [x] }
        let checked = try axes?.map { try axis($0, rank: x.shape.count) } ?? Array(0..<x.shape.count)
        return [reduce(x, axes: checked, keep: n.int("keepdims", 1) != 0, max: n.opType == "ReduceMax")]
    }

    static func runArgMax(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try need(ins, 0)
        let axis = try axis(n.int("axis", 0), rank: x.shape.count)
        guard x.shape[axis] > 0 else { throw ModelError("ArgMax over an empty axis") }
        return [argmax(x, axis: axis, keep: n.int("keepdims", 1) != 0, last: n.int("select_last_index", 0) != 0)]
    }

    static func runReduce(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let opset = context.opset
        let x = try Ops.need(ins, 0)
        // Axes: an attribute until opset 13 (ReduceSum) or 18 (the others), then an input.
        let axesFromInput = op == "ReduceSum" ? opset >= 13 : opset >= 18
        let raw = axesFromInput ? (ins.count > 1 ? ins[1]?.asInts : nil) : n.ints("axes")
        if raw?.isEmpty ?? true, n.int("noop_with_empty_axes", 0) != 0 { return [x] }
        let axes = try (raw.flatMap { $0.isEmpty ? nil : $0 } ?? (0..<Int64(x.shape.count)).map { $0 }).map { try Ops.axis($0, rank: x.shape.count) }
        return [reduce(x, axes: Set(axes), keep: n.int("keepdims", 1) != 0, op)]
    }

    static func runArgMin(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let axis = try Ops.axis(n.int("axis", 0), rank: x.shape.count)
        guard x.shape[axis] > 0 else { throw ModelError("ArgMin over an empty axis") }
        let negated = Tensor(shape: x.shape, floats: values(x).map { Float(-$0) })
        return [Ops.argmax(negated, axis: axis, keep: n.int("keepdims", 1) != 0, last: n.int("select_last_index", 0) != 0)]
    }

    static func runCumSum(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
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
    }

    static func runTopK(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        return try topK(n, ins, opset: opset)
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
            for k in v.indices { acc[target[k]] += Foundation.exp(v[k] - m[target[k]]) }
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
