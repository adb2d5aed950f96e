import Foundation
import FrameFlow

/// The ONNX graph rewrites done at load, after constant folding: fewer, larger steps.
extension ONNXPlan {
    /// Folds what follows a Conv into it, at load: a BatchNormalization with constant
    /// statistics goes into the weights and bias; then a Relu, Clip, LeakyRelu or per-channel
    /// PRelu becomes the Conv's epilogue (applied as its output tiles are stored), and Mul /
    /// Add by constants after that activation a scale and shift in the same epilogue. Each only
    /// when the Conv's output has no other reader and is not a graph output, and the weights
    /// are constant and 2-D (rank 4).
    static func fuseConvolutions(_ graph: inout ONNXModel, order: inout [Int], constants: inout [String: Tensor]) {
        var readers: [String: [Int]] = [:]
        for i in order { for name in graph.nodes[i].inputs where !name.isEmpty { readers[name, default: []].append(i) } }
        let graphOutputs = Set(graph.outputs.map(\.name))
        var removed = Set<Int>()
        for i in order where graph.nodes[i].opType == "Conv" && graph.nodes[i].domain.isEmpty {
            var conv = graph.nodes[i]
            guard conv.inputs.count >= 2, let w = constants[conv.inputs[1]], w.isFloat, w.shape.count == 4, w.count > 0 else { continue }
            let cout = w.shape[0]
            guard
                let b0 = conv.inputs.count > 2 && !conv.inputs[2].isEmpty
                    ? constants[conv.inputs[2]] : Tensor(shape: [cout], floats: [Float](repeating: 0, count: cout)),
                b0.isFloat, b0.count == cout
            else { continue }
            var bias = b0
            func soleReader(_ name: String) -> Int? {
                guard !graphOutputs.contains(name), let r = readers[name], r.count == 1, !removed.contains(r[0]) else { return nil }
                return r[0]
            }
            /// `(Sigmoid, Mul)` when `name` is read by exactly `Mul(name, Sigmoid(name))` (SiLU
            /// spelt out, as YOLO's exporters write it) and the sigmoid has no other reader.
            func siLU(after name: String) -> (Int, Int)? {
                guard !graphOutputs.contains(name), let r = readers[name], r.count == 2, r.allSatisfy({ !removed.contains($0) }) else { return nil }
                guard let s = r.first(where: { graph.nodes[$0].opType == "Sigmoid" }), let m = r.first(where: { graph.nodes[$0].opType == "Mul" }),
                    graph.nodes[s].domain.isEmpty, graph.nodes[m].domain.isEmpty, graph.nodes[s].inputs == [name],
                    graph.nodes[s].outputs.count == 1, soleReader(graph.nodes[s].outputs[0]) == m,
                    Set(graph.nodes[m].inputs) == [name, graph.nodes[s].outputs[0]], graph.nodes[m].inputs.count == 2
                else { return nil }
                return (s, m)
            }
            var weights = w, changed = false
            /// Folds node `j` into the weights (each output channel's filter times
            /// `scale(c)`, when given) and the bias (`newBias(c, bias, scale)`), and makes
            /// the Conv write `j`'s output.
            func fold(into j: Int, scale: ((Int) -> Float)?, _ newBias: (Int, Float, Float) -> Float) {
                let per = weights.count / cout
                var wf = weights.floats, bf = bias.floats
                for c in 0..<cout {
                    let k = scale?(c) ?? 1
                    if scale != nil { for q in 0..<per { wf[c * per + q] *= k } }
                    bf[c] = newBias(c, bf[c], k)
                }
                weights = Tensor(shape: weights.shape, floats: wf)
                bias = Tensor(shape: [cout], floats: bf)
                conv.outputs = [graph.nodes[j].outputs[0]]
                removed.insert(j)
                changed = true
            }
            // BatchNormalization (inference form) into the weights.
            if let j = soleReader(conv.outputs[0]), graph.nodes[j].opType == "BatchNormalization", graph.nodes[j].inputs.count == 5,
                graph.nodes[j].inputs[0] == conv.outputs[0], graph.nodes[j].int("training_mode", 0) == 0,
                graph.nodes[j].outputs.dropFirst().allSatisfy(\.isEmpty),
                let scale = constants[graph.nodes[j].inputs[1]], let beta = constants[graph.nodes[j].inputs[2]],
                let mean = constants[graph.nodes[j].inputs[3]], let variance = constants[graph.nodes[j].inputs[4]],
                [scale, beta, mean, variance].allSatisfy({ $0.isFloat && $0.count == cout })
            {
                let eps = graph.nodes[j].float("epsilon", 1e-5)
                fold(into: j, scale: { c in scale.floats[c] / (variance.floats[c] + eps).squareRoot() }) { c, b, k in
                    (b - mean.floats[c]) * k + beta.floats[c]
                }
            }
            // Then Mul / Add by a constant per channel or scalar (PP-OCR scales and shifts
            // every Conv's output by learnt scalars) into the weights and bias.
            while let j = soleReader(conv.outputs[0]), graph.nodes[j].domain.isEmpty, ["Mul", "Add"].contains(graph.nodes[j].opType),
                graph.nodes[j].inputs.count == 2, let side = graph.nodes[j].inputs.firstIndex(of: conv.outputs[0]),
                let k = constants[graph.nodes[j].inputs[1 - side]], let perChannel = Self.perChannel(k, channels: cout)
            {
                if graph.nodes[j].opType == "Mul" {
                    fold(into: j, scale: { perChannel[$0] }) { _, b, k in b * k }
                } else {
                    fold(into: j, scale: nil) { c, b, _ in b + perChannel[c] }
                }
            }
            // One activation into the epilogue.
            var activated = false
            if let (sigmoid, mul) = siLU(after: conv.outputs[0]) {
                conv.attributes[Conv.fusedSiLU] = .int(1)
                conv.outputs = [graph.nodes[mul].outputs[0]]
                removed.formUnion([sigmoid, mul])
                (changed, activated) = (true, true)
            } else if let j = soleReader(conv.outputs[0]), graph.nodes[j].domain.isEmpty, graph.nodes[j].inputs.first == conv.outputs[0] {
                let a = graph.nodes[j]
                var clamp: (Float, Float)? = nil, slopes: [Float]? = nil
                switch a.opType {
                case "Relu": clamp = (0, .infinity)
                case "Clip":
                    var lo = -Float.infinity, hi = Float.infinity
                    if graph.opsetVersion < 11 { lo = a.float("min", lo); hi = a.float("max", hi) }
                    var constantBounds = true
                    for (k, isLow) in [(1, true), (2, false)] where a.inputs.count > k && !a.inputs[k].isEmpty {
                        guard let t = constants[a.inputs[k]], t.isFloat, t.count == 1 else { constantBounds = false; continue }
                        if isLow { lo = t.floats[0] } else { hi = t.floats[0] }
                    }
                    if constantBounds { clamp = (lo, hi) }
                case "LeakyRelu": slopes = [Float](repeating: a.float("alpha", 0.01), count: cout)
                case "HardSwish": conv.attributes[Conv.fusedHardSwish] = .int(1)
                case "PRelu":
                    // Per channel only: right-aligned against N×C×H×W, every dimension but C is 1.
                    if a.inputs.count == 2, let t = constants[a.inputs[1]] { slopes = Self.perChannel(t, channels: cout) }
                default: break
                }
                if clamp != nil || slopes != nil || a.opType == "HardSwish" {
                    if let (lo, hi) = clamp { conv.attributes[Conv.fusedClamp] = .floats([lo, hi]) }
                    conv.outputs = [a.outputs[0]]
                    if let slopes {
                        let name = "frameflow.fused.\(i).slope"
                        constants[name] = Tensor(shape: [cout], floats: slopes)
                        while conv.inputs.count < 3 { conv.inputs.append("") }
                        conv.inputs.append(name)
                    }
                    removed.insert(j)
                    (changed, activated) = (true, true)
                }
            }
            // Then Mul / Add by constants after the activation (PP-OCR's learnt scale and
            // shift after each HardSwish) as a scale and shift per channel applied in the
            // same pass.
            if activated {
                var scale = [Float](repeating: 1, count: cout), shift = [Float](repeating: 0, count: cout), affine = false
                while let k = soleReader(conv.outputs[0]), graph.nodes[k].domain.isEmpty, ["Mul", "Add"].contains(graph.nodes[k].opType),
                    graph.nodes[k].inputs.count == 2, let side = graph.nodes[k].inputs.firstIndex(of: conv.outputs[0]),
                    let t = constants[graph.nodes[k].inputs[1 - side]], let perChannel = Self.perChannel(t, channels: cout)
                {
                    for c in 0..<cout {
                        if graph.nodes[k].opType == "Mul" {
                            scale[c] *= perChannel[c]
                            shift[c] *= perChannel[c]
                        } else {
                            shift[c] += perChannel[c]
                        }
                    }
                    conv.outputs = [graph.nodes[k].outputs[0]]
                    removed.insert(k)
                    affine = true
                }
                if affine { conv.attributes[Conv.fusedAffine] = .floats(scale + shift) }
            }
            if changed {
                let wName = "frameflow.fused.\(i).weights", bName = "frameflow.fused.\(i).bias"
                constants[wName] = weights
                constants[bName] = bias
                while conv.inputs.count < 3 { conv.inputs.append("") }
                conv.inputs[1] = wName
                conv.inputs[2] = bName
            }
            // A full (group 1) convolution also gets its filter in the layout the NHWC path
            // multiplies by (`PackedFilter`: K in (ky, kx, c) order × output channels), as
            // inputs 4 and 5: Conv.run then works channels-last where that is faster (see
            // `Conv.run` and `Conv.channelsLast`).
            if conv.int("group", 1) == 1, cout % 8 == 0,
                weights.shape[1] * weights.shape[2] * weights.shape[3] >= 256 && cout <= 64 || weights.shape[2] == 1 && weights.shape[3] == 1
            {
                let (cin, kh, kw) = (weights.shape[1], weights.shape[2], weights.shape[3])
                var reordered = [Float](repeating: 0, count: weights.count)
                for o in 0..<cout {
                    for c in 0..<cin {
                        for ky in 0..<kh {
                            for kx in 0..<kw {
                                reordered[((o * kh + ky) * kw + kx) * cin + c] = weights.floats[((o * cin + c) * kh + ky) * kw + kx]
                            }
                        }
                    }
                }
                let filter = PackedFilter(outputsByInputs: reordered, outputs: cout, bias: bias.floats)
                let wName = "frameflow.nhwc.\(i).weights", bName = "frameflow.nhwc.\(i).bias"
                constants[wName] = Tensor(shape: [filter.weights.count], floats: filter.weights)
                constants[bName] = Tensor(shape: [filter.bias.count], floats: filter.bias)
                while conv.inputs.count < 4 { conv.inputs.append("") }
                conv.inputs.insert(contentsOf: [wName, bName], at: 4)
            }
            graph.nodes[i] = conv
        }
        order.removeAll { removed.contains($0) }
    }

    /// `t`'s values per output channel when it broadcasts against N×C×H×W along C only
    /// (or is a scalar); nil otherwise.
    static func perChannel(_ t: Tensor, channels: Int) -> [Float]? {
        guard t.isFloat, t.shape.count <= 4 else { return nil }
        if t.count == 1 { return [Float](repeating: t.floats[0], count: channels) }
        let dims = [Int](repeating: 1, count: 4 - t.shape.count) + t.shape
        return dims == [1, channels, 1, 1] ? t.floats : nil
    }

    /// Rewrites `Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)` — HardSwish spelt out, as PP-OCR's
    /// exporter writes it 24 times — into one HardSwish node: one pass instead of four (and
    /// a HardSwish right after a Conv then goes into its epilogue).
    static func fuseHardSwish(_ graph: inout ONNXModel, order: inout [Int], constants: [String: Tensor]) {
        var readers: [String: Int] = [:], producer: [String: Int] = [:]
        for i in order {
            for name in graph.nodes[i].inputs where !name.isEmpty { readers[name, default: 0] += 1 }
            for name in graph.nodes[i].outputs { producer[name] = i }
        }
        let graphOutputs = Set(graph.outputs.map(\.name))
        func scalar(_ name: String) -> Float? { constants[name].flatMap { $0.isFloat && $0.count == 1 ? $0.floats[0] : nil } }
        /// The node making `name` when it is an `op` whose output only one node reads.
        func sole(_ name: String, _ op: String) -> ONNXNode? {
            guard let p = producer[name], readers[name] == 1, !graphOutputs.contains(name), graph.nodes[p].opType == op,
                graph.nodes[p].domain.isEmpty, graph.nodes[p].outputs.count == 1
            else { return nil }
            return graph.nodes[p]
        }
        var removed = Set<Int>()
        for d in order where graph.nodes[d].opType == "Div" && graph.nodes[d].domain.isEmpty {
            let div = graph.nodes[d]
            guard div.inputs.count == 2, scalar(div.inputs[1]) == 6, let mul = sole(div.inputs[0], "Mul"), mul.inputs.count == 2 else { continue }
            for side in 0..<2 {
                guard let clip = sole(mul.inputs[1 - side], "Clip"), clip.inputs.count == 3, scalar(clip.inputs[1]) == 0, scalar(clip.inputs[2]) == 6,
                    let add = sole(clip.inputs[0], "Add"), add.inputs.count == 2
                else { continue }
                let x = mul.inputs[side]
                guard (add.inputs[0] == x && scalar(add.inputs[1]) == 3) || (add.inputs[1] == x && scalar(add.inputs[0]) == 3),
                    graph.opsetVersion >= 11, let m = producer[div.inputs[0]], let c = producer[mul.inputs[1 - side]],
                    let a = producer[clip.inputs[0]]
                else { continue }
                graph.nodes[d] = ONNXNode(name: div.name, opType: "HardSwish", domain: "", inputs: [x], outputs: div.outputs, attributes: [:])
                removed.formUnion([m, c, a])
                break
            }
        }
        order.removeAll { removed.contains($0) }
    }
}
