import Foundation
import FrameFlow

/// The rewrites of QDQ models (onnxruntime's `quantize_static` output) at load: their
/// convolutions run on integers (`QuantizedConv`), the quantize-dequantize pairs between other
/// ops as one float pass.
extension ONNXPlan {
    /// A QuantizeLinear / DequantizeLinear's scalar scale and zero point (constants).
    struct QuantParams: Equatable {
        var scale: Float, zero: Float, lower: Float, upper: Float
    }

    /// The scalar quantisation of node `n` (a QuantizeLinear or DequantizeLinear) when its
    /// scale and zero point are constants; nil when they are not (the node runs as it is). A
    /// scale that is not positive and finite, or a zero point not 8-bit, is an error naming it.
    static func scalarQuantization(_ n: ONNXNode, _ constants: [String: Tensor], file: String) throws -> QuantParams? {
        guard n.inputs.count >= 2, let s = constants[n.inputs[1]], s.isFloat else { return nil }
        let zName = n.inputs.count > 2 ? n.inputs[2] : ""
        let z = zName.isEmpty ? Tensor(shape: [], ints: [0], type: .uint8) : constants[zName]
        guard let z, s.count == 1 else { return nil }
        guard s.floats[0].isFinite, s.floats[0] > 0 else {
            throw ModelError("\(file): node '\(n.name)' (\(n.opType)): scale \(s.floats[0]) is not a positive finite number")
        }
        guard z.count == 1, let (lo, hi) = QuantizedConv.range(z.type) else { return nil }
        return QuantParams(scale: s.floats[0], zero: Float(z.ints.first ?? 0), lower: lo, upper: hi)
    }

    /// DequantizeLinear(x) → Conv (weights DequantizeLinear of constant int8, per output channel
    /// or one scale; bias DequantizeLinear of constant int32 or a float constant) →
    /// QuantizeLinear, and the DequantizeLinear after it when its only reader, becomes one
    /// `QuantizedConv.fusedOp` node with its weights packed now. Only 2-D convolutions whose
    /// intermediate values have no other reader and are not graph outputs.
    static func fuseQuantizedConvolutions(_ graph: inout ONNXModel, order: inout [Int], constants: inout [String: Tensor], file: String) throws {
        var readers: [String: [Int]] = [:], producer: [String: Int] = [:]
        for i in graph.nodes.indices { for name in graph.nodes[i].outputs where !name.isEmpty { producer[name] = i } }
        for i in order { for name in graph.nodes[i].inputs where !name.isEmpty { readers[name, default: []].append(i) } }
        let graphOutputs = Set(graph.outputs.map(\.name))
        func sole(_ name: String, _ op: String) -> Int? {
            guard !graphOutputs.contains(name), let r = readers[name], r.count == 1, graph.nodes[r[0]].opType == op, graph.nodes[r[0]].domain.isEmpty
            else { return nil }
            return r[0]
        }
        func made(_ name: String, _ op: String) -> ONNXNode? {
            guard let p = producer[name], graph.nodes[p].opType == op, graph.nodes[p].domain.isEmpty else { return nil }
            return graph.nodes[p]
        }
        var removed = Set<Int>()
        for i in order where graph.nodes[i].opType == "Conv" && graph.nodes[i].domain.isEmpty {
            let conv = graph.nodes[i]
            let label = "\(file): node '\(conv.name)' (Conv)"
            guard conv.inputs.count >= 2, let xdq = made(conv.inputs[0], "DequantizeLinear"), let wdq = made(conv.inputs[1], "DequantizeLinear"),
                let x = try scalarQuantization(xdq, constants, file: file), let q = sole(conv.outputs[0], "QuantizeLinear"),
                let y = try scalarQuantization(graph.nodes[q], constants, file: file), wdq.inputs.count >= 2,
                let w = constants[wdq.inputs[0]], w.type == .int8, w.shape.count == 4, let ws = constants[wdq.inputs[1]]
            else { continue }
            let cout = w.shape[0]
            // The weights' scales and zero points: one, or one per output channel (axis 0).
            let wz = wdq.inputs.count > 2 && !wdq.inputs[2].isEmpty ? constants[wdq.inputs[2]] : Tensor(shape: [], ints: [0], type: .int8)
            guard let wz else { continue }
            let axis = wdq.int("axis", 1)
            guard ws.isFloat, ws.count == 1 || (ws.count == cout && (axis == 0 || axis == -4)), wz.count == ws.count, wz.type == .int8,
                w.ints.count == w.count
            else {
                throw ModelError(
                    "\(label): weight scale \(ws.shape) and zero point \(wz.type) \(wz.shape) do not fit int8 weights \(w.shape) per output channel (axis \(axis))"
                )
            }
            try QuantizedConv.checkScale(ws.floats, "\(label): weight scale")
            let wScale = (0..<cout).map { ws.floats[ws.count == 1 ? 0 : $0] }
            let multipliers = wScale.map { x.scale * $0 / y.scale }
            // The bias as int32 at scale x·w (onnxruntime's form); a float bias is quantised so.
            var bias = [Int64](repeating: 0, count: cout)
            if conv.inputs.count > 2, !conv.inputs[2].isEmpty {
                if let bdq = made(conv.inputs[2], "DequantizeLinear"), let bq = constants[bdq.inputs[0]], bq.type == .int32, bq.count == cout,
                    bdq.inputs.count >= 2, let bs = constants[bdq.inputs[1]], bs.isFloat, bs.count == cout || bs.count == 1,
                    bdq.inputs.count < 3 || bdq.inputs[2].isEmpty || constants[bdq.inputs[2]].map({ $0.ints.allSatisfy { $0 == 0 } }) == true,
                    (0..<cout).allSatisfy({ bs.floats[bs.count == 1 ? 0 : $0] == x.scale * wScale[$0] })
                {
                    bias = bq.ints
                } else if let b = constants[conv.inputs[2]], b.isFloat, b.count == cout {
                    bias = (0..<cout).map { c in
                        let q = Int64(saturating: (b.floats[c] / (x.scale * wScale[c])).rounded(.toNearestOrEven))
                        return min(max(q, Int64(Int32.min)), Int64(Int32.max))  // int32, as onnxruntime's quantised bias
                    }
                } else {
                    continue
                }
            }
            let group = Int(conv.int("group", 1))
            guard group > 0, cout % group == 0, cout > 0 else { throw ModelError("\(label): group \(group) does not divide \(cout) output channels") }
            // A depthwise convolution (one input channel per group) stays float, on the
            // dequantised weights: the float depthwise kernels are faster than a GEMM per channel.
            if group > 1 && w.shape[1] == 1 { continue }
            var p = QuantizedConv.Params(
                xScale: x.scale, xZero: x.zero, xLower: x.lower, xUpper: x.upper, yZero: y.zero, yLower: y.lower, yUpper: y.upper)
            (p.cout, p.cinPerGroup, p.kh, p.kw) = (cout, w.shape[1], w.shape[2], w.shape[3])
            var output = graph.nodes[q].outputs[0]
            removed.insert(q)
            if let d = sole(output, "DequantizeLinear"), let dq = try scalarQuantization(graph.nodes[d], constants, file: file), dq == y {
                (p.dequantZero, p.dequantScale) = (y.zero, y.scale)
                output = graph.nodes[d].outputs[0]
                removed.insert(d)
            } else {
                p.integerOutput = true
            }
            let names = ["weights", "bias", "multipliers"].map { "frameflow.qconv.\(i).\($0)" }
            constants[names[0]] = Tensor(shape: [], ints: QuantizedConv.pack(weights: w.ints, zero: wz.ints, cout: cout, group: group))
            constants[names[0]]!.shape = [constants[names[0]]!.ints.count]
            constants[names[1]] = Tensor(shape: [cout], ints: bias)
            constants[names[2]] = Tensor(shape: [cout], floats: multipliers)
            var fused = conv
            fused.opType = QuantizedConv.fusedOp
            fused.inputs = [conv.inputs[0]] + names
            fused.outputs = [output]
            fused.attributes[QuantizedConv.paramsKey] = .floats(p.encoded)
            graph.nodes[i] = fused
        }
        order.removeAll { removed.contains($0) }
    }

    /// QuantizeLinear → DequantizeLinear with the same scalar scale and zero point, where the
    /// DequantizeLinear is the only reader, becomes one float pass (`Ops.fakeQuantizeOp`).
    static func fuseQuantizeDequantize(_ graph: inout ONNXModel, order: inout [Int], constants: [String: Tensor], file: String) throws {
        var readers: [String: [Int]] = [:]
        for i in order { for name in graph.nodes[i].inputs where !name.isEmpty { readers[name, default: []].append(i) } }
        let graphOutputs = Set(graph.outputs.map(\.name))
        var removed = Set<Int>()
        for i in order where graph.nodes[i].opType == "QuantizeLinear" && graph.nodes[i].domain.isEmpty {
            let q = graph.nodes[i]
            guard let out = q.outputs.first, !graphOutputs.contains(out), let r = readers[out], r.count == 1,
                graph.nodes[r[0]].opType == "DequantizeLinear", graph.nodes[r[0]].domain.isEmpty,
                let a = try scalarQuantization(q, constants, file: file), let b = try scalarQuantization(graph.nodes[r[0]], constants, file: file),
                a == b
            else { continue }
            graph.nodes[r[0]] = ONNXNode(
                name: graph.nodes[r[0]].name, opType: Ops.fakeQuantizeOp, domain: "", inputs: [q.inputs[0]], outputs: graph.nodes[r[0]].outputs,
                attributes: [Ops.fakeQuantizeKey: .floats([a.scale, a.zero, a.lower, a.upper])])
            removed.insert(i)
        }
        order.removeAll { removed.contains($0) }
    }
}
