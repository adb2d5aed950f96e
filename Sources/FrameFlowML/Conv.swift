import Foundation

/// Convolution and pooling on NCHW tensors (any number of spatial dimensions up to 3).
enum Conv {
    struct Geometry {
        var spatialIn: [Int], kernel: [Int], strides: [Int], dilations: [Int], padBegin: [Int], padEnd: [Int], spatialOut: [Int]
    }

    static func geometry(_ n: ONNXNode, input: [Int], kernel: [Int], ceil: Bool = false) throws -> Geometry {
        let d = kernel.count
        let strides = n.ints("strides")?.map { Int($0) } ?? Array(repeating: 1, count: d)
        let dil = n.ints("dilations")?.map { Int($0) } ?? Array(repeating: 1, count: d)
        var pads = n.ints("pads")?.map { Int($0) } ?? Array(repeating: 0, count: 2 * d)
        guard input.count == d, strides.count == d, dil.count == d, pads.count == 2 * d,
            (strides + dil + kernel).allSatisfy({ $0 > 0 && $0 < 1 << 16 }), pads.allSatisfy({ abs($0) < 1 << 16 })
        else { throw ModelError("strides \(strides), dilations \(dil), pads \(pads) do not fit kernel \(kernel)") }
        let auto = n.string("auto_pad", "NOTSET")
        var out = [Int](repeating: 0, count: d)
        for i in 0..<d {
            let ek = (kernel[i] - 1) * dil[i] + 1
            if auto == "SAME_UPPER" || auto == "SAME_LOWER" {
                out[i] = (input[i] + strides[i] - 1) / strides[i]
                let total = max(0, (out[i] - 1) * strides[i] + ek - input[i])
                let small = total / 2, big = total - small
                pads[i] = auto == "SAME_UPPER" ? small : big
                pads[i + d] = auto == "SAME_UPPER" ? big : small
            } else if auto == "VALID" {
                pads[i] = 0
                pads[i + d] = 0
                out[i] = (input[i] - ek) / strides[i] + 1
            } else {
                let span = input[i] + pads[i] + pads[i + d] - ek
                out[i] = ceil ? Int((Double(span) / Double(strides[i])).rounded(.up)) + 1 : span / strides[i] + 1
                // With ceil mode the last window must start inside the input or left padding.
                if ceil && (out[i] - 1) * strides[i] >= input[i] + pads[i] { out[i] -= 1 }
            }
            guard out[i] > 0 else { throw ModelError("output size \(out[i]) ≤ 0 (input \(input), kernel \(kernel))") }
        }
        return Geometry(spatialIn: input, kernel: kernel, strides: strides, dilations: dil, padBegin: Array(pads[0..<d]), padEnd: Array(pads[d..<(2 * d)]), spatialOut: out)
    }

    static func run(_ n: ONNXNode, _ ins: [Tensor?]) throws -> Tensor {
        let x = try Ops.need(ins, 0), w = try Ops.need(ins, 1)
        guard x.shape.count >= 3, w.shape.count == x.shape.count else { throw ModelError("Conv needs input and weights of the same rank ≥ 3, got \(x.shape) and \(w.shape)") }
        let bias = ins.count > 2 ? ins[2]?.floats : nil
        let batch = x.shape[0], cin = x.shape[1], cout = w.shape[0]
        let group = Int(n.int("group", 1))
        let kshape = n.ints("kernel_shape")?.map { Int($0) } ?? Array(w.shape[2...])
        guard x.shape.count >= 3, w.shape.count == x.shape.count, group > 0, cin % group == 0, cout % group == 0,
            w.shape[1] * group == cin, kshape == Array(w.shape[2...]), bias.map({ $0.count == cout }) ?? true,
            x.asFloats.count == x.count, w.asFloats.count == w.count
        else {
            throw ModelError("Conv input \(x.shape), weights \(w.shape), kernel \(kshape), group \(group) do not fit")
        }
        var spatial = Array(x.shape[2...])
        var ks = kshape
        // Treat 1-D and 2-D as 3-D with unit dimensions.
        while spatial.count < 3 { spatial.insert(1, at: 0); ks.insert(1, at: 0) }
        let g0 = try geometry(n, input: Array(x.shape[2...]), kernel: kshape)
        var g = g0
        while g.spatialIn.count < 3 {
            g.spatialIn.insert(1, at: 0); g.kernel.insert(1, at: 0); g.strides.insert(1, at: 0); g.dilations.insert(1, at: 0)
            g.padBegin.insert(0, at: 0); g.padEnd.insert(0, at: 0); g.spatialOut.insert(1, at: 0)
        }
        let (D, H, W) = (g.spatialIn[0], g.spatialIn[1], g.spatialIn[2])
        let (OD, OH, OW) = (g.spatialOut[0], g.spatialOut[1], g.spatialOut[2])
        let (KD, KH, KW) = (g.kernel[0], g.kernel[1], g.kernel[2])
        let cpg = cin / group, opg = cout / group
        var out = [Float](repeating: 0, count: batch * cout * OD * OH * OW)
        let xf = x.asFloats, wf = w.asFloats
        xf.withUnsafeBufferPointer { X in
            wf.withUnsafeBufferPointer { Wt in
                out.withUnsafeMutableBufferPointer { Y in
                    for b in 0..<batch {
                        for oc in 0..<cout {
                            let gi = oc / opg
                            let bv = bias?[oc] ?? 0
                            for od in 0..<OD { for oh in 0..<OH { for ow in 0..<OW {
                                var acc: Float = 0
                                for ic in 0..<cpg {
                                    let c = gi * cpg + ic
                                    for kd in 0..<KD {
                                        let id = od * g.strides[0] - g.padBegin[0] + kd * g.dilations[0]
                                        if id < 0 || id >= D { continue }
                                        for kh in 0..<KH {
                                            let ih = oh * g.strides[1] - g.padBegin[1] + kh * g.dilations[1]
                                            if ih < 0 || ih >= H { continue }
                                            for kw in 0..<KW {
                                                let iw = ow * g.strides[2] - g.padBegin[2] + kw * g.dilations[2]
                                                if iw < 0 || iw >= W { continue }
                                                acc += X[(((b * cin + c) * D + id) * H + ih) * W + iw] * Wt[(((oc * cpg + ic) * KD + kd) * KH + kh) * KW + kw]
                                            }
                                        }
                                    }
                                }
                                Y[(((b * cout + oc) * OD + od) * OH + oh) * OW + ow] = acc + bv
                            } } }
                        }
                    }
                }
            }
        }
        return Tensor(shape: [batch, cout] + g0.spatialOut, floats: out)
    }

    static func pool(_ n: ONNXNode, _ x: Tensor, max isMax: Bool) throws -> Tensor {
        guard let k = n.ints("kernel_shape")?.map({ Int($0) }) else { throw ModelError("pooling without kernel_shape") }
        guard x.shape.count == k.count + 2, (1...3).contains(k.count), k.allSatisfy({ $0 > 0 }), x.asFloats.count == x.count else {
            throw ModelError("pooling input \(x.shape) does not fit kernel \(k)")
        }
        let g0 = try geometry(n, input: Array(x.shape[2...]), kernel: k, ceil: n.int("ceil_mode", 0) != 0)
        var g = g0
        while g.spatialIn.count < 3 {
            g.spatialIn.insert(1, at: 0); g.kernel.insert(1, at: 0); g.strides.insert(1, at: 0); g.dilations.insert(1, at: 0)
            g.padBegin.insert(0, at: 0); g.padEnd.insert(0, at: 0); g.spatialOut.insert(1, at: 0)
        }
        let countPad = n.int("count_include_pad", 0) != 0
        let nc = x.shape[0] * x.shape[1]
        let (D, H, W) = (g.spatialIn[0], g.spatialIn[1], g.spatialIn[2])
        let (OD, OH, OW) = (g.spatialOut[0], g.spatialOut[1], g.spatialOut[2])
        var out = [Float](repeating: 0, count: nc * OD * OH * OW)
        let xf = x.asFloats
        for c in 0..<nc {
            for od in 0..<OD { for oh in 0..<OH { for ow in 0..<OW {
                var acc: Float = isMax ? -.infinity : 0
                var count = 0, padCount = 0
                for kd in 0..<g.kernel[0] {
                    let id = od * g.strides[0] - g.padBegin[0] + kd * g.dilations[0]
                    for kh in 0..<g.kernel[1] {
                        let ih = oh * g.strides[1] - g.padBegin[1] + kh * g.dilations[1]
                        for kw in 0..<g.kernel[2] {
                            let iw = ow * g.strides[2] - g.padBegin[2] + kw * g.dilations[2]
                            let inPadded = id >= -g.padBegin[0] && id < D + g.padEnd[0] && ih >= -g.padBegin[1] && ih < H + g.padEnd[1] && iw >= -g.padBegin[2] && iw < W + g.padEnd[2]
                            if id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W {
                                if inPadded { padCount += 1 }
                                continue
                            }
                            let v = xf[((c * D + id) * H + ih) * W + iw]
                            if isMax { acc = max(acc, v) } else { acc += v }
                            count += 1
                        }
                    }
                }
                out[((c * OD + od) * OH + oh) * OW + ow] = isMax ? acc : acc / Float(countPad ? count + padCount : max(count, 1))
            } } }
        }
        if !x.isFloat { return Tensor(shape: [x.shape[0], x.shape[1]] + g0.spatialOut, ints: out.map(toInt64), type: x.type) }
        return Tensor(shape: [x.shape[0], x.shape[1]] + g0.spatialOut, floats: out)
    }
}
