import FrameFlow

/// TFLite builtins on NHWC float tensors, as LiteRT's reference kernels define them: sizes from the
/// file or from tensor values go through `Checked`; what is unsupported is a `ModelError`.
extension NHWC {
    /// The shape builtins' kernels (`TFLiteKernels.table`).
    static let shapeKernels: [TFLiteOperator: TFLiteKernel] = [
        .pad: runPad, .reshape: runReshape, .concatenation: runConcatenation, .dequantize: runDequantize, .stridedSlice: runStridedSlice,
        .depthToSpace: runDepthToSpace, .densify: runDensify, .transpose: runTranspose,
    ]

    /// The shape builtins with several outputs (`TFLiteKernels.table`).
    static let shapeOutputsKernels: [TFLiteOperator: TFLiteOutputsKernel] = [.unpack: runUnpack]

    /// LiteRT's largest TRANSPOSE rank.
    static let transposeMaxRank = 8

    /// TRANSPOSE by the permutation in the second input (int32 or int64, one entry per axis;
    /// negative entries count from the end), of any element type, up to rank 8 as LiteRT.
    static func runTranspose(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        try TFLiteKernels.expectInputs("TRANSPOSE", inputCount, 2)
        let x = try input(0), p = try input(1)
        guard p.type == .int32 || p.type == .int64, p.shape.count == 1, p.ints.count == p.count else {
            throw ModelError("TRANSPOSE permutation must be a 1-D int32 or int64 tensor, not \(p.type) \(p.shape)")
        }
        return try transpose(x, permutation: p.ints)
    }

    /// `x` with its axes in the order `raw` names them: a permutation of 0..<rank (an entry
    /// −k stands for rank − k), checked.
    static func transpose(_ x: Tensor, permutation raw: [Int64]) throws -> Tensor {
        let r = x.shape.count
        guard r <= transposeMaxRank else { throw ModelError("TRANSPOSE of rank \(r): at most rank \(transposeMaxRank), as LiteRT") }
        guard raw.count == r else { throw ModelError("TRANSPOSE permutation \(raw) has \(raw.count) entries for rank \(r)") }
        let perm = try raw.map { try Ops.axis($0, rank: r, "TRANSPOSE permutation entry") }
        guard Set(perm).count == r else { throw ModelError("TRANSPOSE permutation \(raw) repeats an axis") }
        guard (x.isFloat ? x.floats.count : x.ints.count) == x.count else { throw ModelError("TRANSPOSE input holds too few values for \(x.shape)") }
        return Ops.transpose(x, perm)
    }

    /// UNPACK (UnpackOptions: `num`, `axis`): the input cut along `axis` into its `num`
    /// slices, that axis dropped from each; `num` must be the axis' size and the operator's
    /// output count, as LiteRT checks.
    static func runUnpack(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShapes: [[Int]]) throws -> [Tensor] {
        try TFLiteKernels.expectInputs("UNPACK", inputCount, 1)
        return try unpack(try input(0), num: Int(try op.options?.int(0) ?? 0), axis: Int64(try op.options?.int(1) ?? 0), outputs: outShapes.count)
    }

    /// The `num` slices of `x` along `axis` (negative counts from the end).
    static func unpack(_ x: Tensor, num: Int, axis rawAxis: Int64, outputs: Int) throws -> [Tensor] {
        let axis = try Ops.axis(rawAxis, rank: x.shape.count, "UNPACK axis")
        guard num == x.shape[axis] else { throw ModelError("UNPACK num \(num) for axis \(axis) of \(x.shape), which has \(x.shape[axis])") }
        guard outputs == num else { throw ModelError("UNPACK num \(num) with \(outputs) outputs") }
        guard (x.isFloat ? x.floats.count : x.ints.count) == x.count else { throw ModelError("UNPACK input holds too few values for \(x.shape)") }
        let outer = x.shape[..<axis].reduce(1, *), inner = x.shape[(axis + 1)...].reduce(1, *)
        var shape = x.shape
        shape.remove(at: axis)
        return (0..<num).map { i in
            let offsets = (0..<(outer * inner)).map { k in (k / inner * num + i) * inner + k % inner }
            return Ops.gather(x, shape: shape, offsets: offsets)
        }
    }

    /// PAD: constant zeros, as ONNX Pad with the paddings reordered.
    static func runPad(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let x = try input(0), p = try input(1).asInts
        var node = ONNXNode(name: "", opType: "Pad", domain: "", inputs: [], outputs: [], attributes: [:])
        let r = x.shape.count
        guard p.count == 2 * r else { throw ModelError("paddings \(p.count) for rank \(r)") }
        node.attributes["mode"] = .string("constant")
        let onnxPads = (0..<r).map { p[2 * $0] } + (0..<r).map { p[2 * $0 + 1] }
        return try Ops.pad(node, [x, Tensor(shape: [2 * r], ints: onnxPads)], opset: 13)
    }

    /// RESHAPE: the shape from the second input, else the options, else the declared output.
    static func runReshape(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        let x = try input(0)
        var shape = try o?.ints(0).map { Int64($0) } ?? []
        if inputCount > 1, let s = try? input(1) { shape = s.asInts }
        if shape.isEmpty { shape = outShape.map { Int64($0) } }
        return try Ops.reshape(x, shape, allowZero: true)
    }

    /// CONCATENATION along the options' axis, with the fused activation.
    static func runConcatenation(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        let ts = try (0..<inputCount).map { try input($0) }
        var t = try Ops.concat(ts, axis: Int64(try o?.int(0) ?? 0))
        activation(try op.activation(field: 1), &t.floats)
        return t
    }

    /// DEQUANTIZE: float16 to float32 here; weights were widened at load.
    static func runDequantize(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let x = try input(0)
        return Tensor(shape: x.shape, floats: x.asFloats)
    }

    /// STRIDED_SLICE; StridedSliceOptions: begin, end, ellipsis, new-axis and shrink masks,
    /// `offset`.
    static func runStridedSlice(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        let masks = SliceMasks(
            begin: Int(try o?.int(0) ?? 0), end: Int(try o?.int(1) ?? 0), ellipsis: Int(try o?.int(2) ?? 0),
            newAxis: Int(try o?.int(3) ?? 0), shrinkAxis: Int(try o?.int(4) ?? 0), offset: try o?.byte(5) ?? 0 != 0)
        return try stridedSlice(try input(0), begin: try input(1).asInts, end: try input(2).asInts, strides: try input(3).asInts, masks: masks)
    }

    /// DEPTH_TO_SPACE; DepthToSpaceOptions' `block_size`.
    static func runDepthToSpace(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        return try depthToSpace(try input(0), blockSize: Int(try o?.int(0) ?? 0))
    }

    /// DENSIFY: a sparse constant is folded at load, so a dense input passes through.
    static func runDensify(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        return try input(0)
    }

    /// STRIDED_SLICE's masks (`StridedSliceOptions`), one bit per entry of begin/end/strides.
    struct SliceMasks {
        var begin = 0, end = 0, ellipsis = 0, newAxis = 0, shrinkAxis = 0
        /// `end` counts from `begin` (end = begin + end).
        var offset = false
    }

    /// TFLite's strided slice: entry i of `begin`/`end`/`strides` applies to one input
    /// dimension, except under the ellipsis bit (as many whole dimensions as the entries
    /// leave over) and new-axis bits (a new dimension of 1). A masked begin/end is the
    /// whole range in the stride's direction; negative indices count from the end and are
    /// clamped to the dimension; a shrink bit takes the one element at begin, which must be
    /// inside the dimension, and drops it. Entries after the last cover whole dimensions.
    static func stridedSlice(_ x: Tensor, begin: [Int64], end: [Int64], strides: [Int64], masks m: SliceMasks) throws -> Tensor {
        let n = begin.count, r = x.shape.count
        guard end.count == n, strides.count == n else {
            throw ModelError("STRIDED_SLICE begin, end and strides have \(n), \(end.count) and \(strides.count) entries")
        }
        guard n <= 32, r <= 8 else { throw ModelError("STRIDED_SLICE of rank \(r) with \(n) entries: at most rank 8 and 32 entries") }
        func bit(_ mask: Int, _ i: Int) -> Bool { mask >> i & 1 == 1 }
        let ellipses = (0..<n).filter { bit(m.ellipsis, $0) }
        guard ellipses.count <= 1 else { throw ModelError("STRIDED_SLICE has more than one ellipsis bit (\(m.ellipsis))") }
        // Per input dimension: (start, count, step), and whether the output keeps it; new
        // axes are output dimensions of 1 that read no input dimension.
        struct Axis { var start = 0, count = 0, step = 1, keep = true }
        var axes: [Axis] = [], outShape: [Int] = []
        let consuming = (0..<n).filter { !bit(m.ellipsis, $0) && !bit(m.newAxis, $0) }.count
        guard consuming <= r else { throw ModelError("STRIDED_SLICE has \(consuming) index entries for rank \(r)") }
        func whole(_ d: Int) {
            axes.append(Axis(start: 0, count: x.shape[d], step: 1))
            outShape.append(x.shape[d])
        }
        for i in 0..<n {
            if bit(m.ellipsis, i) {
                for _ in 0..<(r - consuming) { whole(axes.count) }
                continue
            }
            if bit(m.newAxis, i) {
                outShape.append(1)
                continue
            }
            let d = axes.count, size = x.shape[d]
            let s = strides[i]
            guard s != 0, s > Int64(Int32.min), s <= Int64(Int32.max) else { throw ModelError("STRIDED_SLICE stride \(s) on axis \(d)") }
            guard abs(begin[i]) < 1 << 40, abs(end[i]) < 1 << 40 else {
                throw ModelError("STRIDED_SLICE begin \(begin[i]) / end \(end[i]) on axis \(d) out of range")
            }
            var b = begin[i], e = m.offset ? begin[i] + end[i] : end[i]
            let size64 = Int64(size)
            if bit(m.shrinkAxis, i) {
                if bit(m.begin, i) { b = s > 0 ? 0 : size64 - 1 }
                let k = b < 0 ? b + size64 : b
                guard k >= 0, k < size64 else { throw ModelError("STRIDED_SLICE shrinks axis \(d) of \(size) at index \(b)") }
                axes.append(Axis(start: Int(k), count: 1, step: 1, keep: false))
                continue
            }
            let (lo, hi) = s > 0 ? (Int64(0), size64) : (Int64(-1), size64 - 1)
            if bit(m.begin, i) { b = s > 0 ? lo : hi } else { b = min(max(b < 0 ? b + size64 : b, lo), hi) }
            if bit(m.end, i) { e = s > 0 ? hi : lo } else { e = min(max(e < 0 ? e + size64 : e, lo), hi) }
            let span = s > 0 ? e - b : b - e, step = abs(s)
            let count = span <= 0 ? 0 : Int((span + step - 1) / step)
            axes.append(Axis(start: Int(b), count: count, step: Int(s)))
            outShape.append(count)
        }
        while axes.count < r { whole(axes.count) }
        let total = try Checked.elements(outShape, "STRIDED_SLICE output")
        // Gather: the input offset of each output element, the last axis innermost.
        let inStrides = x.strides
        var offsets = [Int](repeating: 0, count: total)
        if total > 0 {
            var index = [Int](repeating: 0, count: r)
            for k in 0..<total {
                var o = 0
                for d in 0..<r { o += (axes[d].start + index[d] * axes[d].step) * inStrides[d] }
                offsets[k] = o
                var d = r - 1
                while d >= 0 {
                    index[d] += 1
                    if index[d] < axes[d].count { break }
                    index[d] = 0
                    d -= 1
                }
            }
        }
        if x.isFloat {
            guard x.floats.count == x.count else { throw ModelError("STRIDED_SLICE input holds \(x.floats.count) values for \(x.shape)") }
            return Tensor(shape: outShape, floats: offsets.map { x.floats[$0] }, type: x.type)
        }
        guard x.ints.count == x.count else { throw ModelError("STRIDED_SLICE input holds \(x.ints.count) values for \(x.shape)") }
        return Tensor(shape: outShape, ints: offsets.map { x.ints[$0] }, type: x.type)
    }
}
