import Foundation

/// Indexing and scattering: Gather, GatherElements, GatherND, ScatterND, ScatterElements,
/// OneHot, Compress, NonZero, ReverseSequence; and generated tensors (EyeLike, the signal
/// windows). Gather copies values as they are; the rest are plain loops in Double, checked
/// against ONNX's node tests.
extension Ops {
    /// Indexing and scattering ops, and the generated tensors (EyeLike, windows), by op type.
    static let indexingKernels = kernels(["HannWindow", "HammingWindow", "BlackmanWindow"], runWindow)
        .merging(kernels(["ScatterElements", "Scatter"], runScatterElements), uniquingKeysWith: twice)
        .merging(
            [
                "OneHot": runOneHot, "GatherND": runGatherND, "ScatterND": runScatterND, "Compress": runCompress, "EyeLike": runEyeLike,
                "ReverseSequence": runReverseSequence, "Gather": runGather, "GatherElements": runGatherElements, "NonZero": runNonZero,
            ], uniquingKeysWith: twice)

    static func runOneHot(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
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
        for o in 0..<outer {
            for i in 0..<inner {
                let value = idx[o * inner + i]
                // A NaN or huge index (untrusted) is out of range, not a trapping conversion.
                var k = abs(value) < Double(1 << 40) ? Int(value.rounded(.towardZero)) : depth  // checked: |value| < 2⁴⁰, not NaN
                if k < 0 { k += depth }
                if k >= 0 && k < depth { out[(o * depth + k) * inner + i] = on }
            }
        }
        return [tensor(shape, out, type: onOff.type)]
    }

    static func runGatherND(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try gatherND(n, try Ops.need(ins, 0), try Ops.need(ins, 1))]
    }

    static func runScatterND(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try scatterND(n, try Ops.need(ins, 0), try Ops.need(ins, 1), try Ops.need(ins, 2))]
    }

    static func runScatterElements(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let x = try Ops.need(ins, 0), indices = try Ops.need(ins, 1), updates = try Ops.need(ins, 2)
        let axis = try Ops.axis(n.int("axis", 0), rank: x.shape.count)
        guard indices.shape == updates.shape else { throw ModelError("\(op): indices \(indices.shape) and updates \(updates.shape) differ") }
        let flat = try elementOffsets(op, x, indices, axis: axis)
        var v = values(x)
        let u = values(updates), combine = try reduction(n.string("reduction", "none"))
        for k in flat.indices { v[flat[k]] = combine(v[flat[k]], u[k]) }
        return [tensor(x.shape, v, type: x.type)]
    }

    static func runCompress(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0), condition = values(try Ops.need(ins, 1))
        if n.attributes["axis"] == nil {
            let v = values(x), keep = v.indices.filter { $0 < condition.count && condition[$0] != 0 }
            return [gather(x, shape: [keep.count], offsets: keep)]
        }
        let axis = try Ops.axis(n.int("axis", 0), rank: x.shape.count)
        let kept = (0..<x.shape[axis]).filter { $0 < condition.count && condition[$0] != 0 }
        return [try Ops.gather(x, Tensor(shape: [kept.count], ints: kept.map(Int64.init)), axis: axis)]
    }

    static func runEyeLike(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        guard x.shape.count == 2 else { throw ModelError("EyeLike needs a 2-D input, got \(x.shape)") }
        let k = Int(n.int("k", 0)), (rows, cols) = (x.shape[0], x.shape[1])
        let type = n.attributes["dtype"] == nil ? x.type : ElementType(rawValue: Int(n.int("dtype", 1))) ?? .float32
        return [tensor(x.shape, (0..<(rows * cols)).map { $0 % cols - $0 / cols == k ? 1 : 0 }, type: type)]
    }

    static func runReverseSequence(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0), lens = try Ops.need(ins, 1).asInts
        let batchAxis = try Ops.axis(n.int("batch_axis", 1), rank: x.shape.count), timeAxis = try Ops.axis(n.int("time_axis", 0), rank: x.shape.count)
        guard batchAxis != timeAxis, lens.count == x.shape[batchAxis], lens.allSatisfy({ $0 >= 0 && $0 <= Int64(x.shape[timeAxis]) }) else {
            throw ModelError("ReverseSequence: lengths \(lens) do not fit input \(x.shape)")
        }
        let strides = x.strides
        return [
            gather(
                x, shape: x.shape,
                offsets: offsets(x.shape) { c in
                    let len = Int(lens[c[batchAxis]]), t = c[timeAxis]
                    return zip(c.indices, c).reduce(0) { $0 + ($1.0 == timeAxis && t < len ? len - 1 - t : $1.1) * strides[$1.0] }
                })
        ]
    }

    static func runWindow(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
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

    static func runGather(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return [try gather(try need(ins, 0), try need(ins, 1), axis: Int(n.int("axis", 0)))]
    }

    static func runGatherElements(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let op = n.opType
        let x = try Ops.need(ins, 0), indices = try Ops.need(ins, 1)
        let axis = try Ops.axis(n.int("axis", 0), rank: x.shape.count)
        return [gather(x, shape: indices.shape, offsets: try elementOffsets(op, x, indices, axis: axis))]
    }

    static func runNonZero(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let v = values(x), strides = x.strides
        let hits = v.indices.filter { v[$0] != 0 }
        var out = [Int64](repeating: 0, count: x.shape.count * hits.count)
        for (j, flat) in hits.enumerated() {
            for d in x.shape.indices { out[d * hits.count + j] = Int64((flat / strides[d]) % x.shape[d]) }
        }
        return [Tensor(shape: [x.shape.count, hits.count], ints: out)]
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
}
