import FrameFlow

/// TFLite's GATHER (GatherOptions: `axis`, `batch_dims`), as LiteRT: with params of shape
/// P and indices of shape I, the output is P[..<axis] + I[batch_dims...] + P[(axis + 1)...],
/// each index picking a slice of params along `axis`, the first `batch_dims` axes of params
/// and indices walked together. Negative `axis` counts from params' rank and negative
/// `batch_dims` from indices' rank; indices (int32 or int64) must lie in 0..<P[axis] — a
/// negative or too large one is a `ModelError` naming the operator, as LiteRT refuses it.
extension NHWC {
    /// The indexing builtins' kernels (`TFLiteKernels.table`).
    static let indexingKernels: [TFLiteOperator: TFLiteKernel] = [.gather: runGather]

    /// GATHER: params, then indices.
    static func runGather(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        try TFLiteKernels.expectInputs("GATHER", inputCount, 2)
        let o = op.options
        return try gather(try input(0), indices: try input(1), axis: Int64(try o?.int(0) ?? 0), batchDims: Int64(try o?.int(1) ?? 0))
    }

    /// The slices of `x` along `axis` that `indices` name, batched over the first `batchDims` axes.
    static func gather(_ x: Tensor, indices: Tensor, axis rawAxis: Int64, batchDims rawBatch: Int64) throws -> Tensor {
        guard indices.type == .int32 || indices.type == .int64, indices.ints.count == indices.count else {
            throw ModelError("GATHER indices must be int32 or int64, not \(indices.type)")
        }
        guard (x.isFloat ? x.floats.count : x.ints.count) == x.count else { throw ModelError("GATHER params hold too few values for \(x.shape)") }
        let p = x.shape, q = indices.shape
        let axis = try Ops.axis(rawAxis, rank: p.count, "GATHER axis")
        let batch = rawBatch < 0 ? rawBatch + Int64(q.count) : rawBatch
        guard batch >= 0, batch <= Int64(q.count), batch <= Int64(axis) else {
            throw ModelError("GATHER batch_dims \(rawBatch) does not fit axis \(axis) and indices of rank \(q.count)")
        }
        let b = Int(batch)
        guard p.prefix(b) == q.prefix(b) else { throw ModelError("GATHER params \(p) and indices \(q) differ in their first \(b) (batch) axes") }
        let shape = Array(p[..<axis]) + Array(q[b...]) + Array(p[(axis + 1)...])
        let total = try Checked.elements(shape, "GATHER output")
        let n = p[axis], batches = p[..<b].reduce(1, *), middle = p[b..<axis].reduce(1, *), inner = p[(axis + 1)...].reduce(1, *)
        let perBatch = q[b...].reduce(1, *)
        for v in indices.ints where v < 0 || v >= Int64(n) {
            throw ModelError("GATHER index \(v) is out of range for axis \(axis) of \(p), size \(n)")
        }
        // Output rows of `inner` values: (batch, middle, index) → params row (batch, middle, indices[batch, index]).
        var offsets = [Int](repeating: 0, count: total)
        var k = 0
        for bi in 0..<batches {
            for m in 0..<middle {
                for j in 0..<perBatch {
                    let row = ((bi * middle + m) * n + Int(indices.ints[bi * perBatch + j])) * inner
                    for e in 0..<inner { offsets[k + e] = row + e }
                    k += inner
                }
            }
        }
        return Ops.gather(x, shape: shape, offsets: offsets)
    }
}
