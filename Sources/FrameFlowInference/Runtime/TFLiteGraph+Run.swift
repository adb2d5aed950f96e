import Foundation
import FrameFlow

extension TFLiteGraph {
    /// Runs the ops in order on `feeds` (by tensor index); returns the graph outputs by index.
    func run(_ feeds: [Int: Tensor], timing: Model.Timing? = nil) throws -> [Int: Tensor] {
        var values = constants
        for (k, v) in feeds { values[k] = v }
        for (k, op) in ops.enumerated() {
            func input(_ i: Int) throws -> Tensor {
                guard i < op.inputs.count, op.inputs[i] >= 0, let t = values[op.inputs[i]] else {
                    throw ModelError("input \(i) is missing")  // the catch below names the operator
                }
                return t
            }
            let outs: [Tensor]
            do {
                let start = timing == nil ? 0 : monotonicNanoseconds()
                outs = try TFLiteKernels.run(op, input, inputCount: op.inputs.count, outShapes: op.outputs.map { tensors[$0].shape })
                if let timing {
                    let ns = monotonicNanoseconds() - start
                    timing(op.name, { "#\(k) \(tensors[op.outputs[0]].shape)" }, ns)
                }
            } catch let e as ModelError {
                throw ModelError("operator \(k) (\(op.name)): \(e.message)")
            }
            for (o, t) in zip(op.outputs, outs) { values[o] = t }
            for i in lastUses[k] where !op.outputs.contains(i) {
                if var t = values.removeValue(forKey: i) { Scratch.recycle(&t.floats) }
            }
        }
        var result: [Int: Tensor] = [:]
        for o in outputs { result[o] = values[o] }
        return result
    }

    /// Runs the graph on `feeds` by input name, checking each against the file's shape; every
    /// graph output by name.
    func run(named feeds: [String: Tensor], timing: Model.Timing?) throws -> [String: Tensor] {
        var f: [Int: Tensor] = [:]
        for i in inputs {
            let name = tensors[i].name
            guard let v = feeds[name] else {
                throw ModelError("missing input '\(name)' (inputs: \(inputs.map { tensors[$0].name }.joined(separator: ", ")))")
            }
            guard v.shape == tensors[i].shape else {
                throw ModelError("input '\(name)' has shape \(v.shape), the model expects \(tensors[i].shape)")
            }
            try Model.checkValueCount(v, name)
            f[i] = v
        }
        let r = try run(f, timing: timing)
        var out: [String: Tensor] = [:]
        for (k, v) in r { out[tensors[k].name] = v }
        return out
    }
}
