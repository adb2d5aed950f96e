import Foundation
import FrameFlow

/// Ops over the spatial axes of N×C×… tensors: convolutions, pooling, resize. Thin: the work
/// is in `Conv`, `ShiftedConvolution` and the resize kernels.
extension Ops {
    /// Spatial ops by op type.
    static let spatialKernels: [String: OpKernel] = [
        "Conv": { n, ins, c in [try Conv.run(n, ins, memo: c.memo)] },
        "ConvTranspose": { n, ins, _ in [try convTranspose(n, ins)] },
        "MaxPool": runMaxPool,
        "AveragePool": { n, ins, _ in [try Conv.pool(n, try need(ins, 0), max: false)] },
        "GlobalAveragePool": runGlobalPool,
        "GlobalMaxPool": runGlobalPool,
        "Resize": { n, ins, c in [try resize(n, ins, opset: c.opset)] },
        "Upsample": { n, ins, c in [try resize(n, ins, opset: c.opset)] },
    ]

    /// MaxPool; with the Indices output asked for, the plain loop that tracks where each
    /// maximum is.
    static func runMaxPool(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        if n.outputs.count > 1 && !n.outputs[1].isEmpty {
            let (y, indices) = try Conv.maxPoolWithIndices(n, try need(ins, 0))
            return [y, indices]
        }
        return [try Conv.pool(n, try need(ins, 0), max: true)]
    }

    static func runGlobalPool(_ n: ONNXNode, _ ins: [Tensor?], _: OpContext) throws -> [Tensor] {
        let x = try need(ins, 0)
        let nc = x.shape[0] * x.shape[1], sp = x.shape[2...].reduce(1, *)
        var out = [Float](repeating: 0, count: nc)
        let average = n.opType == "GlobalAveragePool"
        x.floats.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return }
            for i in 0..<nc {
                let s = base + i * sp
                out[i] = average ? sum(s, count: sp) / Float(sp) : maximum(s, count: sp)
            }
        }
        return [Tensor(shape: [x.shape[0], x.shape[1]] + Array(repeating: 1, count: x.shape.count - 2), floats: out)]
    }
}
