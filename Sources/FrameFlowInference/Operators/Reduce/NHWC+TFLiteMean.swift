import CFrameFlowKernels
import FrameFlow

/// TFLite builtins on NHWC float tensors, as LiteRT's reference kernels define them: sizes from the
/// file or from tensor values go through `Checked`; what is unsupported is a `ModelError`.
extension NHWC {
    /// The reduction builtins' kernels (`TFLiteKernels.table`).
    static let reductionKernels: [TFLiteOperator: TFLiteKernel] = [.mean: runMean, .sum: runReduce, .reduceMax: runReduce, .reduceMin: runReduce]

    /// MEAN over the axes of the second input; ReducerOptions' `keep_dims`.
    static func runMean(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        return try mean(try input(0), axes: try input(1).asInts, keepDims: try o?.byte(0) ?? 0 != 0)
    }

    /// The mean over the axes in `axes` (negative counts from the end; repeats count once),
    /// dropping them unless `keepDims`. The spatial mean of an NHWC tensor (axes 1 and 2:
    /// the hand landmark model's global pooling) sums channel vectors row by row.
    static func mean(_ x: Tensor, axes rawAxes: [Int64], keepDims: Bool) throws -> Tensor {
        guard x.isFloat, x.floats.count == x.count else { throw ModelError("MEAN needs a float input, not \(x.type)") }
        let r = x.shape.count
        let axes = Set(try rawAxes.map { try Ops.axis($0, rank: r, "MEAN axis") })
        let kept = x.shape.enumerated().map { axes.contains($0.offset) ? 1 : $0.element }
        let shape = keepDims ? kept : x.shape.enumerated().filter { !axes.contains($0.offset) }.map(\.element)
        let n = axes.reduce(1) { $0 * x.shape[$1] }
        if axes.isEmpty { return Tensor(shape: x.shape, floats: x.floats) }
        if r == 4 && axes == [1, 2] && n > 0 {
            let (b, c) = (x.shape[0], x.shape[3])
            var out = Scratch.filled(b * c, 0)
            let scale = 1 / Float(n)
            x.floats.withUnsafeBufferPointer { X in
                out.withUnsafeMutableBufferPointer { Y in
                    for i in 0..<b {
                        let y = Y.baseAddress! + i * c
                        for p in 0..<n {
                            let xr = X.baseAddress! + (i * n + p) * c
                            for ch in 0..<c { y[ch] += xr[ch] }
                        }
                        for ch in 0..<c { y[ch] *= scale }
                    }
                }
            }
            return Tensor(shape: shape, floats: out)
        }
        if n > 0, axes == Set((r - axes.count)..<r) {
            return Tensor(shape: shape, floats: trailingMean(x.floats, rows: x.count / n, n: n))
        }
        var y = Ops.reduce(x, axes: axes.sorted(), keep: true, max: false)
        y.shape = shape
        return y
    }

    /// The mean of each run of `n` consecutive values (a reduction over the trailing axes:
    /// the layer norms of the face blendshapes model), summed in order and divided by `n` as
    /// the general path does, so the results are the same bits; eight rows at a time, so
    /// that eight independent sums are in flight.
    static func trailingMean(_ x: [Float], rows: Int, n: Int) -> [Float] {
        var out = Scratch.filled(rows, 0)
        let d = Float(n)
        x.withUnsafeBufferPointer { X in
            out.withUnsafeMutableBufferPointer { Y in
                let x = X.baseAddress!, y = Y.baseAddress!
                var row = 0
                while row + 8 <= rows {
                    var s = SIMD8<Float>(repeating: 0)
                    let p = x + row * n
                    for j in 0..<n {
                        s += SIMD8<Float>(p[j], p[n + j], p[2 * n + j], p[3 * n + j], p[4 * n + j], p[5 * n + j], p[6 * n + j], p[7 * n + j])
                    }
                    for i in 0..<8 { y[row + i] = s[i] / d }
                    row += 8
                }
                while row < rows {
                    var s: Float = 0
                    for j in 0..<n { s += x[row * n + j] }
                    y[row] = s / d
                    row += 1
                }
            }
        }
        return out
    }

    // MARK: RESIZE_BILINEAR
}
