import FrameFlow

extension Model {
    /// This model with a leading batch dimension of `n`: its inputs and every activation
    /// that led with 1 lead with `n`, so one run takes `n` images stacked on axis 0
    /// (`[n, 128, 128, 3]` for BlazeFace) and its outputs hold `n` results on axis 0.
    ///
    /// TFLite models only (their shapes are fixed in the file); a RESHAPE whose target
    /// leads with 1 gets `n` there. An ONNX model whose first input dimension is symbolic
    /// takes a batch as it is. The kernels walk the batch image by image, so a batch shares
    /// the per-operator work (dispatch, shape checks, storage) but not the arithmetic.
    public func batched(_ n: Int) throws -> Model {
        guard n >= 1, n <= 4096 else { throw ModelError("batch size \(n): must be 1…4096") }
        switch program {
        case .onnx:
            throw ModelError("batched(\(n)): ONNX models are not rewritten; feed a model with a symbolic batch dimension directly")
        case .tflite(let graph):
            if n == 1 { return self }
            return Model(tflite: try graph.batched(n), sourceBytes: nil)
        }
    }

    /// Runs a model made by `batched(feeds.count)` on `feeds`, one feed per image (each of
    /// the single-image shape, leading 1): the images stacked on axis 0, one run, and each
    /// output split back per image, in the order of `feeds`.
    public func runBatch(_ feeds: [[String: Tensor]], parallelism: Parallelism? = nil) throws -> [[String: Tensor]] {
        let n = feeds.count
        guard n >= 1 else { return [] }
        var stacked: [String: Tensor] = [:]
        for name in feeds[0].keys {
            let parts = try feeds.enumerated().map { i, f -> Tensor in
                guard let t = f[name] else { throw ModelError("batch image \(i) has no input '\(name)'") }
                guard t.shape.first == 1, t.shape == feeds[0][name]!.shape, t.type == feeds[0][name]!.type else {
                    throw ModelError("batch image \(i): input '\(name)' has shape \(t.shape); every image needs \(feeds[0][name]!.shape), leading 1")
                }
                try Model.checkValueCount(t, name)
                return t
            }
            var shape = parts[0].shape
            shape[0] = n
            stacked[name] =
                parts[0].isFloat
                ? Tensor(shape: shape, floats: parts.flatMap(\.floats), type: parts[0].type)
                : Tensor(shape: shape, ints: parts.flatMap(\.ints), type: parts[0].type)
        }
        let out = try run(stacked, parallelism: parallelism)
        var result = [[String: Tensor]](repeating: [:], count: n)
        for (name, t) in out {
            guard t.shape.first == n, t.count % n == 0 else {
                throw ModelError("output '\(name)' has shape \(t.shape): no batch of \(n) on axis 0 to split")
            }
            var shape = t.shape
            shape[0] = 1
            let per = t.count / n
            for i in 0..<n {
                result[i][name] =
                    t.isFloat
                    ? Tensor(shape: shape, floats: Array(t.floats[i * per..<(i + 1) * per]), type: t.type)
                    : Tensor(shape: shape, ints: Array(t.ints[i * per..<(i + 1) * per]), type: t.type)
            }
        }
        return result
    }
}

extension TFLiteGraph {
    /// The graph with batch `n`: every non-constant tensor whose shape leads with 1 leads
    /// with `n`, and each RESHAPE gets its target (the rewritten output shape) as a constant
    /// second input, so a literal leading 1 in its options does not fold the batch away.
    func batched(_ n: Int) throws -> TFLiteGraph {
        var g = self
        for i in inputs where tensors[i].shape.first != 1 {
            throw ModelError("input '\(tensors[i].name)' has shape \(tensors[i].shape): batching needs a leading dimension of 1")
        }
        for i in g.tensors.indices where g.constants[i] == nil && g.sparse[i] == nil && g.tensors[i].shape.first == 1 {
            g.tensors[i].shape[0] = n
        }
        for k in g.ops.indices where g.ops[k].code == .reshape {
            guard let out = g.ops[k].outputs.first, out >= 0, let x = g.ops[k].inputs.first, x >= 0 else { continue }
            let target = g.tensors[out].shape
            guard target.first == n, g.tensors[x].shape.first == n else {
                throw ModelError("operator \(k) (RESHAPE) to \(tensors[out].shape): its batch axis cannot be kept")
            }
            let index = g.tensors.count
            g.tensors.append((name: "\(tensors[out].name)/batched_shape", shape: [target.count], type: .int32))
            g.constants[index] = Tensor(shape: [target.count], ints: target.map { Int64($0) }, type: .int32)
            g.ops[k].inputs = [x, index]
        }
        return g
    }
}
