import Foundation
import FrameFlow

/// Normalisations: Softmax / LogSoftmax and Hardmax, BatchNormalization (inference and
/// training form), LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization.
extension Ops {
    /// Normalisation ops by op type.
    static let normalizationKernels: [String: OpKernel] = [
        "Softmax": runSoftmax,
        "LogSoftmax": runSoftmax,
        "BatchNormalization": runBatchNormalization,
        "LayerNormalization": runLayerNormalization,
        "InstanceNormalization": runInstanceNormalization,
        "LRN": runLRN,
        "MeanVarianceNormalization": runMeanVarianceNormalization,
        "Hardmax": runHardmax,
    ]

    static func runSoftmax(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        return [try softmax(try need(ins, 0), n, opset: opset, log: n.opType == "LogSoftmax")]
    }

    static func runBatchNormalization(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
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
    }

    static func runLayerNormalization(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        return try layerNormalization(n, ins)
    }

    /// BatchNormalization with `training_mode` = 1 (opset 14+): normalised by the batch's own
    /// mean and (population) variance per channel; outputs Y, then the running mean and
    /// variance updated with `momentum` (input · momentum + batch value · (1 − momentum)).
    static func batchNormTraining(_ x: Tensor, scale: [Float], bias: [Float], mean: [Float], variance: [Float], eps: Float, momentum: Float) throws
        -> [Tensor]
    {
        guard x.shape.count >= 2, x.count > 0 else {
            throw ModelError("training-mode BatchNormalization needs a non-empty input of rank ≥ 2, got \(x.shape)")
        }
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
        guard x.isFloat, x.floats.count == x.count else {
            throw ModelError("\(n.opType) needs a floating-point tensor, not \(x.type) \(x.shape)")
        }
        let r = x.shape.count
        let axis = try axis(n.int("axis", opset >= 13 ? -1 : 1), rank: r)
        // Before opset 13 the input is flattened to 2-D at `axis`; from 13 it is per axis.
        let outer: Int, inner: Int, len: Int
        if opset < 13 {
            outer = x.shape[..<axis].reduce(1, *); len = x.shape[axis...].reduce(1, *); inner = 1
        } else {
            outer = x.shape[..<axis].reduce(1, *); len = x.shape[axis]; inner = x.shape[(axis + 1)...].reduce(1, *)
        }
        if !log && outer > 0 && len > 0 && inner > 0 { return Tensor(shape: x.shape, floats: softmaxRows(x.floats, outer, len, inner)) }
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

    /// Softmax over the middle axis of `[outer, len, inner]`: the maxima and sums run along
    /// contiguous rows of `inner` values, and eˣ once per value in vector lanes (a YOLOv8 head's
    /// DFL softmax is `[1, 16, 4·8400]` over axis 1).
    static func softmaxRows(_ x: [Float], _ outer: Int, _ len: Int, _ inner: Int) -> [Float] {
        var shifted = Scratch.uninitialized(x.count)
        var sums = [Float](repeating: 0, count: inner), maxima = [Float](repeating: 0, count: inner)
        x.withUnsafeBufferPointer { X in
            shifted.withUnsafeMutableBufferPointer { Y in
                for o in 0..<outer {
                    let base = o * len * inner
                    for i in 0..<inner { maxima[i] = X[base + i] }
                    for k in 1..<len {
                        let row = base + k * inner
                        for i in 0..<inner { maxima[i] = max(maxima[i], X[row + i]) }
                    }
                    for k in 0..<len {
                        let row = base + k * inner
                        for i in 0..<inner { Y[row + i] = X[row + i] - maxima[i] }
                    }
                }
            }
        }
        var out = exponential(shifted, sigmoid: false)
        out.withUnsafeMutableBufferPointer { Y in
            for o in 0..<outer {
                let base = o * len * inner
                for i in 0..<inner { sums[i] = 0 }
                for k in 0..<len {
                    let row = base + k * inner
                    for i in 0..<inner { sums[i] += Y[row + i] }
                }
                for k in 0..<len {
                    let row = base + k * inner
                    for i in 0..<inner { Y[row + i] /= sums[i] }
                }
            }
        }
        return out
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
        guard try Ops.broadcastShape(scale.shape, normShape) == normShape,
            try bias.map({ try Ops.broadcastShape($0.shape, normShape) == normShape }) ?? true
        else {
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

    static func runInstanceNormalization(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
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
    }

    static func runLRN(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try Ops.need(ins, 0)
        let size = Int(n.int("size", 0))
        guard x.shape.count >= 3, size > 0 else { throw ModelError("LRN needs a size and an input of rank ≥ 3, got \(size), \(x.shape)") }
        let alpha = Double(n.float("alpha", 1e-4)), beta = Double(n.float("beta", 0.75)), bias = Double(n.float("bias", 1))
        let c = x.shape[1], plane = x.shape[2...].reduce(1, *), v = values(x)
        let below = (size - 1) / 2, above = size - 1 - below
        var out = v
        for b in 0..<x.shape[0] {
            for ch in 0..<c {
                for i in 0..<plane {
                    var sum = 0.0
                    for j in max(0, ch - below)...min(c - 1, ch + above) { let e = v[(b * c + j) * plane + i]; sum += e * e }
                    let k = (b * c + ch) * plane + i
                    out[k] = v[k] / pow(bias + alpha / Double(size) * sum, beta)
                }
            }
        }
        return [tensor(x.shape, out, type: x.type)]
    }

    static func runMeanVarianceNormalization(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
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
    }

    static func runHardmax(_ n: ONNXNode, _ ins: [Tensor?], _ context: OpContext) throws -> [Tensor] {
        let opset = context.opset
        let x = try Ops.need(ins, 0)
        let r = x.shape.count
        // Before opset 13 the input is seen as 2-D, split at `axis` (default 1).
        let axis = try Ops.axis(n.int("axis", opset >= 13 ? -1 : 1), rank: r, inclusive: opset < 13)
        let (outer, len, inner) =
            opset >= 13
            ? (x.shape[..<axis].reduce(1, *), x.shape[axis], x.shape[(axis + 1)...].reduce(1, *))
            : (x.shape[..<axis].reduce(1, *), x.shape[axis...].reduce(1, *), 1)
        let v = values(x)
        var out = [Double](repeating: 0, count: v.count)
        for o in 0..<outer {
            for i in 0..<inner where len > 0 {
                var best = 0
                for k in 1..<len where v[(o * len + k) * inner + i] > v[(o * len + best) * inner + i] { best = k }
                out[(o * len + best) * inner + i] = 1
            }
        }
        return [tensor(x.shape, out, type: x.type)]
    }
}
