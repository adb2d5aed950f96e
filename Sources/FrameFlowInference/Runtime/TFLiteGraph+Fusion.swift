import Foundation
import FrameFlow

/// The passes run at load, after decoding: activations, dequantised weights, packed filters
/// and residual additions folded into the ops before them.
extension TFLiteGraph {
    /// For the fusion passes: how many ops read each tensor, which op writes it, and the
    /// graph's outputs (which must stay).
    private func dataflow() -> (readers: [Int: Int], producer: [Int: Int], graphOutputs: Set<Int>) {
        var readers: [Int: Int] = [:], producer: [Int: Int] = [:]
        for (k, op) in ops.enumerated() {
            for i in op.inputs where i >= 0 { readers[i, default: 0] += 1 }
            for o in op.outputs { producer[o] = k }
        }
        return (readers, producer, Set(outputs))
    }

    private mutating func removeOps(_ removed: Set<Int>) {
        ops = ops.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }

    /// Fuses each RELU/RELU6 into the op before it when that op has no activation of its own
    /// and the RELU is the only reader of its output: one pass over the tensor instead of two.
    mutating func fuseActivations() {
        let (readers, producer, graphOutputs) = dataflow()
        var removed = Set<Int>()
        let field: [TFLiteOperator: Int] = [.add: 0, .conv2D: 3, .depthwiseConv2D: 4, .mul: 0, .fullyConnected: 0]
        for (k, op) in ops.enumerated() where op.code == .relu || op.code == .relu6 {
            guard let i = op.inputs.first, i >= 0, readers[i] == 1, !graphOutputs.contains(i), let p = producer[i],
                ops[p].outputs == [i], let f = field[ops[p].code], ops[p].fusedActivation == nil,
                (try? ops[p].options?.byte(f) ?? 0) == 0
            else { continue }
            ops[p].fusedActivation = op.code == .relu ? 1 : 3
            ops[p].outputs = op.outputs
            removed.insert(k)
        }
        removeOps(removed)
    }

    /// DENSIFY of a sparse constant (pose_detection's float16 weights) is a dense constant:
    /// it is made once here and the op goes. Only DENSIFY may read a sparse tensor.
    mutating func foldDensify(file: String) throws {
        var removed = Set<Int>()
        for (k, op) in ops.enumerated() {
            let context = "\(file): operator \(k) (\(op.name))"
            if op.code == .densify {
                guard op.inputs.count == 1, op.outputs.count == 1, op.inputs[0] >= 0 else {
                    throw ModelError("\(context) has \(op.inputs.count) inputs and \(op.outputs.count) outputs")
                }
                let i = op.inputs[0]
                if let (values, sparsity) = sparse[i] {
                    let shape = tensors[i].shape
                    let dense = try sparsity.densify(values.asFloats, shape: shape, context: "\(context): tensor '\(tensors[i].name)'")
                    constants[op.outputs[0]] = Tensor(shape: shape, floats: dense, type: values.type)
                } else if let c = constants[i] {
                    constants[op.outputs[0]] = c  // already dense
                } else {
                    continue  // a computed input: passed through when run
                }
                removed.insert(k)
            } else if let i = op.inputs.first(where: { sparse[$0] != nil }) {
                throw ModelError("\(context) reads the sparse tensor '\(tensors[i].name)'; FrameFlow densifies sparse tensors only through DENSIFY")
            }
        }
        removeOps(removed)
        sparse = [:]
    }

    /// DEQUANTIZE of a constant (float16 weights, widened when read) is a constant: its
    /// output joins the constants and the op goes, instead of copying weights every run.
    mutating func foldDequantize() {
        ops = ops.filter { op in
            guard op.code == .dequantize, op.inputs.count == 1, op.outputs.count == 1, let c = constants[op.inputs[0]], c.isFloat else { return true }
            constants[op.outputs[0]] = Tensor(shape: c.shape, floats: c.asFloats)
            return false
        }
    }

    /// Folds a PAD of zeros around height and width only into the VALID CONV_2D and
    /// DEPTHWISE_CONV_2D that read it (all its readers must be such): they read outside their
    /// input as zeros anyway, so the padded copy goes (the pose models write TensorFlow's
    /// "same" padding of their stride-2 convolutions out as PAD then VALID: 13 copies a run).
    mutating func foldSpatialPads() {
        let graphOutputs = Set(outputs)
        var readersOf: [Int: [Int]] = [:]
        for (k, op) in ops.enumerated() { for i in op.inputs where i >= 0 { readersOf[i, default: []].append(k) } }
        var removed = Set<Int>()
        for (k, pad) in ops.enumerated() where pad.code == .pad && pad.inputs.count == 2 && pad.outputs.count == 1 {
            let o = pad.outputs[0], x = pad.inputs[0]
            guard x >= 0, !graphOutputs.contains(o), tensors[x].shape.count == 4, tensors[x].type == .float32,
                let p = constants[pad.inputs[1]]?.asInts, p.count == 8, p[0] == 0, p[1] == 0, p[6] == 0, p[7] == 0,
                p.allSatisfy({ $0 >= 0 && $0 < 1 << 16 }), let users = readersOf[o]
            else { continue }
            let valid = users.allSatisfy { u in
                [.conv2D, .depthwiseConv2D].contains(ops[u].code) && ops[u].inputs.first == o && ops[u].inputs.filter({ $0 == o }).count == 1
                    && ops[u].spatialPadding == nil && (try? ops[u].options?.byte(0)) == 1  // Padding.VALID
            }
            guard valid else { continue }
            for u in users {
                ops[u].inputs[0] = x
                ops[u].spatialPadding = [Int(p[2]), Int(p[3]), Int(p[4]), Int(p[5])]
            }
            removed.insert(k)
        }
        removeOps(removed)
    }

    /// Lays out the constant filters of CONV_2D for `Microkernel` (FULLY_CONNECTED runs
    /// through `Ops.matmul` and does not read one).
    mutating func packFilters() {
        for k in ops.indices where ops[k].code == .conv2D {
            let op = ops[k]
            guard op.inputs.count >= 2, let w = constants[op.inputs[1]], w.isFloat, w.shape.count == 4, w.count > 0 else { continue }
            var bias: [Float]? = nil
            if op.inputs.count > 2, op.inputs[2] >= 0 {
                guard let b = constants[op.inputs[2]], b.isFloat, b.count == w.shape[0] else { continue }
                bias = b.asFloats
            }
            ops[k].filter = PackedFilter(outputsByInputs: w.asFloats, outputs: w.shape[0], bias: bias)
        }
    }

    /// Fuses `ADD(CONV_2D(…), r)` — and `ADD(CONV_2D(…), PAD(r))` where the PAD only adds
    /// zero channels at the end — into the convolution, which adds `r` as it stores each
    /// tile (BlazeFace's blocks: the separate PAD and ADD passes over the tensor go).
    mutating func fuseResiduals() {
        let (readers, producer, graphOutputs) = dataflow()
        var removed = Set<Int>()
        for (k, add) in ops.enumerated() where add.code == .add && add.inputs.count == 2 && add.outputs.count == 1 {
            guard let act = try? add.activation(field: 0), act == 0 || NHWC.clampRange(act) != nil else { continue }
            for side in 0..<2 {
                let ci = add.inputs[side], other = add.inputs[1 - side]
                guard ci >= 0, other >= 0, readers[ci] == 1, !graphOutputs.contains(ci), let p = producer[ci], !removed.contains(p),
                    ops[p].code == .conv2D, ops[p].filter != nil, ops[p].residual == nil, ops[p].outputs == [ci],
                    ops[p].fusedActivation == nil, (try? ops[p].options?.byte(3) ?? 0) == 0
                else { continue }
                let outShape = tensors[ci].shape
                guard outShape.count == 4, tensors[add.outputs[0]].shape == outShape else { continue }
                var residual = other, padOp: Int? = nil
                if let q = producer[other], ops[q].code == .pad, readers[other] == 1, !graphOutputs.contains(other),
                    ops[q].inputs.count == 2, let pads = constants[ops[q].inputs[1]]?.asInts, pads.count == 8,
                    pads.dropLast().allSatisfy({ $0 == 0 }), ops[q].inputs[0] >= 0
                {
                    residual = ops[q].inputs[0]
                    padOp = q
                }
                let rs = tensors[residual].shape
                // The residual must exist before the convolution runs.
                guard rs.count == 4, Array(rs.prefix(3)) == Array(outShape.prefix(3)), rs[3] <= outShape[3],
                    padOp != nil || rs == outShape, tensors[residual].type == .float32,
                    producer[residual].map({ $0 < p }) ?? true
                else { continue }
                while ops[p].inputs.count < 3 { ops[p].inputs.append(-1) }
                ops[p].inputs.append(residual)
                ops[p].residual = ops[p].inputs.count - 1
                ops[p].outputs = add.outputs
                if act != 0 { ops[p].fusedActivation = act }
                removed.insert(k)
                if let q = padOp { removed.insert(q) }
                break
            }
        }
        removeOps(removed)
    }

    /// Fuses a PRELU with one constant slope per channel into the CONV_2D before it (after
    /// `fuseResiduals`, so also one whose residual ADD was fused) when the convolution has a
    /// packed filter, no activation of its own and the PRELU is the only reader of its
    /// output: the slopes go to the tile epilogue (MediaPipe's face mesh and palm detector
    /// follow most convolutions with a PRELU: a separate pass over each tensor).
    mutating func fusePRelu() {
        let (readers, producer, graphOutputs) = dataflow()
        var removed = Set<Int>()
        for (k, op) in ops.enumerated() where op.code == .prelu && op.inputs.count == 2 && op.outputs.count == 1 {
            let i = op.inputs[0]
            guard i >= 0, readers[i] == 1, !graphOutputs.contains(i), let p = producer[i], ops[p].code == .conv2D, ops[p].outputs == [i],
                let filter = ops[p].filter, ops[p].channelSlopes == nil, (try? ops[p].activation(field: 3)) == 0,
                let alpha = constants[op.inputs[1]], alpha.isFloat, alpha.shape.last == filter.outputs,
                alpha.shape.dropLast().allSatisfy({ $0 == 1 }), tensors[i].shape.last == filter.outputs,
                tensors[op.outputs[0]].shape == tensors[i].shape
            else { continue }
            let slopes = alpha.asFloats
            guard slopes.count == filter.outputs else { continue }
            ops[p].channelSlopes = slopes + [Float](repeating: 0, count: (slopes.count + 15) / 16 * 16 - slopes.count)
            ops[p].outputs = op.outputs
            removed.insert(k)
        }
        removeOps(removed)
    }

    /// Fuses each HARD_SWISH into the CONV_2D or DEPTHWISE_CONV_2D before it (after the residual
    /// and PRELU passes) when that op has no activation of its own and the HARD_SWISH is the
    /// only reader of its output: the convolution applies it to its output in place, instead
    /// of a separate op and tensor (the selfie segmentation models follow eleven convolutions
    /// with one).
    mutating func fuseHardSwish() {
        let (readers, producer, graphOutputs) = dataflow()
        var removed = Set<Int>()
        for (k, op) in ops.enumerated() where op.code == .hardSwish && op.inputs.count == 1 && op.outputs.count == 1 {
            let i = op.inputs[0]
            guard i >= 0, readers[i] == 1, !graphOutputs.contains(i), let p = producer[i], [.conv2D, .depthwiseConv2D].contains(ops[p].code),
                ops[p].outputs == [i], !ops[p].hardSwish, ops[p].channelSlopes == nil,
                (try? ops[p].activation(field: ops[p].code == .conv2D ? 3 : 4)) == 0, tensors[op.outputs[0]].shape == tensors[i].shape
            else { continue }
            ops[p].hardSwish = true
            ops[p].outputs = op.outputs
            removed.insert(k)
        }
        removeOps(removed)
    }

    /// The packed filter and activation of a 1 × 1, stride-1 CONV_2D that `NHWC.bandedDepthwise`
    /// can apply band by band (a clamp or no activation, no HARD_SWISH or folded PAD); nil for
    /// any other op.
    private func pointwise(_ conv: Op) -> (filter: PackedFilter, activation: UInt8)? {
        guard conv.code == .conv2D, conv.inputs.count >= 2, conv.inputs[0] >= 0, let filter = conv.filter, !conv.hardSwish,
            conv.spatialPadding == nil, let act = try? conv.activation(field: 3), act == 0 || NHWC.clampRange(act) != nil,
            let w = constants[conv.inputs[1]], w.shape.count == 4, w.shape[1] == 1, w.shape[2] == 1,
            (try? conv.options?.int(1) ?? 1) == 1, (try? conv.options?.int(2) ?? 1) == 1
        else { return nil }
        return (filter, act)
    }

    /// Whether `dw` is a DEPTHWISE_CONV_2D that `NHWC.bandedDepthwise` runs (multiplier 1, no
    /// dilation, a clamp or no activation) and `shape`, the tensor beside it to fold away, is
    /// large enough to pay (`NHWC.expansionFloats`; batch 1, 8 or more channels).
    private func bandable(_ dw: Op, beside shape: [Int]) -> Bool {
        guard dw.code == .depthwiseConv2D, dw.inputs.count >= 2, dw.inputs[0] >= 0, shape.count == 4, shape[0] == 1, shape[3] >= 8,
            shape[1] * shape[2] * shape[3] >= NHWC.expansionFloats, let f = constants[dw.inputs[1]], f.shape.count == 4,
            (dw.expansion?.filter.outputs ?? tensors[dw.inputs[0]].shape.last) == f.shape[3],  // multiplier 1
            (try? dw.options?.int(5, 1) ?? 1) == 1, (try? dw.options?.int(6, 1) ?? 1) == 1,  // no dilation
            let act = try? dw.activation(field: 4), act == 0 || NHWC.clampRange(act) != nil
        else { return false }
        return true
    }

    /// Folds each 1 × 1, stride-1 CONV_2D (`pointwise`; PRELU slopes allowed, no residual)
    /// into the DEPTHWISE_CONV_2D that alone reads its output, where that output is large
    /// (`bandable`): the depthwise op then computes it a band of rows at a time, so the
    /// expanded tensor (the hand model's 112 × 112 × 64, 3.2 MB) is never written out past L2
    /// and read back.
    mutating func fuseExpansions() {
        let (readers, producer, graphOutputs) = dataflow()
        var removed = Set<Int>()
        for (k, dw) in ops.enumerated() where dw.code == .depthwiseConv2D && dw.expansion == nil && dw.inputs.count >= 2 {
            let e = dw.inputs[0]
            guard e >= 0, readers[e] == 1, !graphOutputs.contains(e), let p = producer[e], p < k, !removed.contains(p) else { continue }
            let conv = ops[p], shape = tensors[e].shape
            guard case let (filter, act)? = pointwise(conv), conv.outputs == [e], conv.residual == nil,
                bandable(dw, beside: shape), shape[3] == filter.outputs, tensors[conv.inputs[0]].shape.count == 4,
                Array(tensors[conv.inputs[0]].shape.prefix(3)) == Array(shape.prefix(3))
            else { continue }
            ops[k].expansion = Expansion(filter: filter, activation: act, slopes: conv.channelSlopes)
            ops[k].inputs[0] = conv.inputs[0]
            removed.insert(p)
        }
        removeOps(removed)
    }

    /// Folds each 1 × 1, stride-1 CONV_2D (`pointwise`; PRELU slopes and a fused residual
    /// allowed) into the DEPTHWISE_CONV_2D whose output it alone reads, where that output is
    /// large (`bandable`): the depthwise op then projects its output a band of rows at a time
    /// (the palm detector's 96 × 96 × 32 blocks, the hand model's 56 × 56 × 144), so that
    /// tensor is never written out past L2. After `fuseExpansions`: a block's expansion,
    /// depthwise and projection run as one op.
    mutating func fuseProjections() {
        let (readers, producer, graphOutputs) = dataflow()
        var removed = Set<Int>()
        for (k, conv) in ops.enumerated() where conv.code == .conv2D && conv.inputs.count >= 2 {
            let d = conv.inputs[0]
            guard d >= 0, readers[d] == 1, !graphOutputs.contains(d), let p = producer[d], p < k, !removed.contains(p) else { continue }
            let dw = ops[p], shape = tensors[d].shape
            guard case let (filter, act)? = pointwise(conv), dw.outputs == [d], dw.projection == nil, !dw.hardSwish,
                bandable(dw, beside: shape), filter.k == shape[3]
            else { continue }
            var residual: Int? = nil
            if let r = conv.residual {
                // The residual must exist before the depthwise op runs.
                let t = conv.inputs[r]
                guard t >= 0, producer[t].map({ $0 < p }) ?? true else { continue }
                while ops[p].inputs.count < 3 { ops[p].inputs.append(-1) }
                ops[p].inputs.append(t)
                residual = ops[p].inputs.count - 1
            }
            ops[p].projection = Projection(filter: filter, activation: act, slopes: conv.channelSlopes, residual: residual)
            ops[p].outputs = conv.outputs
            removed.insert(k)
        }
        removeOps(removed)
    }
}
