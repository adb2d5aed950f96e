import FrameFlow

/// TFLite's SUM, REDUCE_MAX and REDUCE_MIN over the axes of their second input (int32 or
/// int64; negative axes count from the end, repeats count once, none leaves the input as it
/// is), with ReducerOptions' `keep_dims`, as LiteRT's reference kernels: values are
/// accumulated in input order, in Float for float tensors (wrapping in the integer type for
/// int32 / int64 ones); an empty reduction gives 0, or the type's lowest / highest finite value
/// for REDUCE_MAX / REDUCE_MIN. Each value replaces the running maximum unless the maximum is
/// larger (smaller for the minimum), so a NaN takes the place until a later value replaces it,
/// as in LiteRT. Out-of-range axes, other types and wrong input counts are a `ModelError`
/// naming the operator.
extension NHWC {
    /// What a reducer keeps of the values it meets.
    enum Reduction {
        case sum, max, min
    }

    /// SUM, REDUCE_MAX and REDUCE_MIN.
    static func runReduce(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let name = op.code.name
        try TFLiteKernels.expectInputs(name, inputCount, 2)
        let axes = try input(1)
        guard axes.type == .int32 || axes.type == .int64, axes.ints.count == axes.count else {
            throw ModelError("\(name) axes must be int32 or int64, not \(axes.type)")
        }
        let kind: Reduction = op.code == .sum ? .sum : op.code == .reduceMax ? .max : .min
        return try reduce(name, try input(0), axes: axes.ints, keepDims: try op.options?.byte(0) ?? 0 != 0, kind)
    }

    /// The reduction of `x` over `rawAxes`: the axes dropped from the shape, or kept as 1
    /// with `keepDims`.
    static func reduce(_ name: String, _ x: Tensor, axes rawAxes: [Int64], keepDims: Bool, _ kind: Reduction) throws -> Tensor {
        let r = x.shape.count
        let axes = Set(try rawAxes.map { try Ops.axis($0, rank: r, "\(name) axis") })
        let kept = x.shape.enumerated().map { axes.contains($0.offset) ? 1 : $0.element }
        let shape = keepDims ? kept : x.shape.enumerated().filter { !axes.contains($0.offset) }.map(\.element)
        let count = try Checked.elements(kept, "\(name) output")
        // Where each input element goes: its coordinate with the reduced axes at 0.
        let targets = Ops.stridedOffsets(x.shape, strides: Ops.broadcastStrides(kept, rank: r))
        if x.isFloat {
            guard x.floats.count == x.count else { throw ModelError("\(name) input holds \(x.floats.count) values for \(x.shape)") }
            let start: Float = kind == .sum ? 0 : kind == .max ? -.greatestFiniteMagnitude : .greatestFiniteMagnitude
            var acc = [Float](repeating: start, count: count)
            x.floats.withUnsafeBufferPointer { v in
                acc.withUnsafeMutableBufferPointer { a in
                    for k in 0..<v.count {
                        let t = targets[k], e = v[k]
                        switch kind {
                        case .sum: a[t] += e
                        case .max: a[t] = a[t] > e ? a[t] : e
                        case .min: a[t] = a[t] < e ? a[t] : e
                        }
                    }
                }
            }
            return Tensor(shape: shape, floats: acc)
        }
        guard x.type == .int32 || x.type == .int64, x.ints.count == x.count else {
            throw ModelError("\(name) needs a float, int32 or int64 input, not \(x.type) \(x.shape)")
        }
        let narrow = x.type == .int32
        let start: Int64 =
            switch kind {
            case .sum: 0
            case .max: narrow ? Int64(Int32.min) : .min
            case .min: narrow ? Int64(Int32.max) : .max
            }
        var acc = [Int64](repeating: start, count: count)
        for k in 0..<x.ints.count {
            let t = targets[k], e = x.ints[k]
            switch kind {
            case .sum: acc[t] = acc[t] &+ e
            case .max: acc[t] = Swift.max(acc[t], e)
            case .min: acc[t] = Swift.min(acc[t], e)
            }
        }
        if narrow { acc = acc.map { Int64(Int32(truncatingIfNeeded: $0)) } }
        return Tensor(shape: shape, ints: acc, type: x.type)
    }
}
