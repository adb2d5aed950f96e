import Foundation
import FrameFlow

/// ConvTranspose (a convolution's gradient as a layer: decoders' upsampling).
extension Ops {
    static func convTranspose(_ n: ONNXNode, _ ins: [Tensor?]) throws -> Tensor {
        let x = try Ops.need(ins, 0), w = try Ops.need(ins, 1)
        let bias = ins.count > 2 ? ins[2]?.asFloats : nil
        guard x.shape.count >= 3, w.shape.count == x.shape.count else {
            throw ModelError("ConvTranspose input \(x.shape) and weights \(w.shape) need the same rank ≥ 3")
        }
        let group = Int(n.int("group", 1))
        let spatial = Array(x.shape[2...])
        let d = spatial.count
        let k = n.ints("kernel_shape")?.map { Int($0) } ?? Array(w.shape[2...])
        let strides = n.ints("strides")?.map { Int($0) } ?? Array(repeating: 1, count: d)
        let dil = n.ints("dilations")?.map { Int($0) } ?? Array(repeating: 1, count: d)
        let outPad = n.ints("output_padding")?.map { Int($0) } ?? Array(repeating: 0, count: d)
        var pads = n.ints("pads")?.map { Int($0) } ?? Array(repeating: 0, count: 2 * d)
        let auto = n.string("auto_pad", "NOTSET")
        var outSpatial = [Int](repeating: 0, count: d)
        let requested = n.ints("output_shape")?.map { Int($0) }
        // Attributes from the model, checked before any arithmetic on them.
        guard (1...3).contains(d), w.shape.count == d + 2, group > 0, k.count == d, strides.count == d, dil.count == d, outPad.count == d,
            pads.count == 2 * d,
            requested.map({ $0.count == d || $0.count == d + 2 }) ?? true,
            (k + strides + dil).allSatisfy({ $0 > 0 && $0 < 1 << 16 }), (outPad + pads + (requested ?? [])).allSatisfy({ $0.magnitude < 1 << 31 })
        else {
            throw ModelError(
                "ConvTranspose attributes (kernel \(k), strides \(strides), dilations \(dil), pads \(pads)) do not fit input \(x.shape), weights \(w.shape)"
            )
        }
        for i in 0..<d {
            let full = strides[i] * (spatial[i] - 1) + outPad[i] + (k[i] - 1) * dil[i] + 1
            if let requested {
                let o = requested.count == d ? requested[i] : requested[i + 2]
                let total = full - o
                // Floor division, as ONNX's reference computes it (totals can be negative).
                let half = total >> 1  // ⌊total / 2⌋, negative totals included
                if auto == "SAME_UPPER" { pads[i] = half; pads[i + d] = total - half } else { pads[i] = total - half; pads[i + d] = half }
                outSpatial[i] = o
            } else if auto == "SAME_UPPER" || auto == "SAME_LOWER" {
                let o = spatial[i] * strides[i]
                let total = full - o
                if auto == "SAME_UPPER" {
                    pads[i] = total / 2; pads[i + d] = total - total / 2
                } else {
                    pads[i] = total - total / 2; pads[i + d] = total / 2
                }
                outSpatial[i] = o
            } else {
                outSpatial[i] = full - pads[i] - pads[i + d]
            }
            guard outSpatial[i] > 0 else { throw ModelError("ConvTranspose output size \(outSpatial[i]) ≤ 0") }
        }
        let batch = x.shape[0], cin = x.shape[1], opg = w.shape[1], cout = try Checked.product(opg, group, "ConvTranspose output channels"),
            ipg = cin / group
        _ = try Checked.elements([batch, cout] + outSpatial, "ConvTranspose output")
        guard w.shape[0] == cin, cin % group == 0 else {
            throw ModelError("ConvTranspose weights \(w.shape) do not fit \(cin) channels, group \(group)")
        }
        // Pad to 3 spatial dims.
        func three(_ a: [Int], _ fill: Int) -> [Int] { Array(repeating: fill, count: 3 - a.count) + a }
        let S = three(spatial, 1), O = three(outSpatial, 1), K = three(k, 1), ST = three(strides, 1), DL = three(dil, 1)
        let PB = three(Array(pads[0..<d]), 0)
        let inVol = S[0] * S[1] * S[2], outVol = O[0] * O[1] * O[2], kVol = K[0] * K[1] * K[2]
        let xf = x.asFloats, wf = w.asFloats
        let planar = S[0] == 1 && K[0] == 1 && batch * cout * outVol > 0 && !xf.isEmpty && !wf.isEmpty
        // Kernel = stride, no padding (PP-OCR's 2 × 2 stride-2 upsampling): the taps of
        // different input pixels never overlap, so each (output channel, tap) row of the product
        // is stored straight into its places with the bias — no zero fill, no adding into the
        // output, no second pass for the bias.
        let direct =
            planar && K[1] == ST[1] && K[2] == ST[2] && DL[1] == 1 && DL[2] == 1 && PB[1] == 0 && PB[2] == 0
            && O[1] == S[1] * K[1] && O[2] == S[2] * K[2]
        var out = direct ? Scratch.uninitialized(batch * cout * outVol) : Scratch.filled(batch * cout * outVol)
        if planar {
            // 2-D: one matrix product per group gives every (output channel, tap) row for
            // every input pixel; col2im adds those rows into place.
            let (H, W, OH, OW, KH, KW) = (S[1], S[2], O[1], O[2], K[1], K[2])
            let rows = opg * kVol, HW = H * W
            var col = Scratch.uninitialized(rows * HW)  // GEMM (beta 0) writes every entry
            xf.withUnsafeBufferPointer { X in
                wf.withUnsafeBufferPointer { Wt in
                    out.withUnsafeMutableBufferPointer { Y in
                        col.withUnsafeMutableBufferPointer { C in
                            for b in 0..<batch {
                                for g in 0..<group {
                                    GEMM.multiply(
                                        m: rows, n: HW, k: ipg, a: Wt.baseAddress! + g * ipg * rows, lda: rows, transA: true,
                                        b: X.baseAddress! + (b * cin + g * ipg) * HW, ldb: HW, c: C.baseAddress!, ldc: HW)
                                    for oc in 0..<opg {
                                        let yo = Y.baseAddress! + (b * cout + g * opg + oc) * outVol, bv = bias?[g * opg + oc] ?? 0
                                        for kh in 0..<KH {
                                            for kw in 0..<KW {
                                                let row = C.baseAddress! + ((oc * KH + kh) * KW + kw) * HW
                                                if direct {
                                                    for ih in 0..<H {
                                                        let yr = yo + (ih * KH + kh) * OW + kw, xr = row + ih * W
                                                        for iw in 0..<W { yr[iw &* KW] = xr[iw] + bv }
                                                    }
                                                    continue
                                                }
                                                let off = kw * DL[2] - PB[2]
                                                // Input columns whose output column iw·stride + off is inside.
                                                let cols = Conv.stridedRange(count: W, stride: ST[2], offset: off, limit: OW)
                                                if cols.isEmpty { continue }
                                                for ih in 0..<H {
                                                    let oh = ih * ST[1] - PB[1] + kh * DL[1]
                                                    if oh < 0 || oh >= OH { continue }
                                                    let yr = yo + oh * OW + off, xr = row + ih * W
                                                    for iw in cols { yr[iw * ST[2]] += xr[iw] }
                                                }
                                            }
                                        }
                                    }
                                }
                                if let bias, !direct {
                                    for oc in 0..<cout { let r = Y.baseAddress! + (b * cout + oc) * outVol; for i in 0..<outVol { r[i] += bias[oc] } }
                                }
                            }
                        }
                    }
                }
            }
            Scratch.recycle(&col)
            return Tensor(shape: [batch, cout] + outSpatial, floats: out)
        }
        for b in 0..<batch {
            for ic in 0..<cin {
                let g = ic / ipg
                for oc in 0..<opg {
                    let ocAbs = g * opg + oc
                    let wBase = (ic * opg + oc) * kVol
                    let oBase = (b * cout + ocAbs) * outVol
                    let iBase = (b * cin + ic) * inVol
                    for id in 0..<S[0] {
                        for ih in 0..<S[1] {
                            for iw in 0..<S[2] {
                                let v = xf[iBase + (id * S[1] + ih) * S[2] + iw]
                                if v == 0 { continue }
                                for kd in 0..<K[0] {
                                    let od = id * ST[0] - PB[0] + kd * DL[0]
                                    if od < 0 || od >= O[0] { continue }
                                    for kh in 0..<K[1] {
                                        let oh = ih * ST[1] - PB[1] + kh * DL[1]
                                        if oh < 0 || oh >= O[1] { continue }
                                        for kw in 0..<K[2] {
                                            let ow = iw * ST[2] - PB[2] + kw * DL[2]
                                            if ow < 0 || ow >= O[2] { continue }
                                            out[oBase + (od * O[1] + oh) * O[2] + ow] += v * wf[wBase + (kd * K[1] + kh) * K[2] + kw]
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if let bias { for oc in 0..<cout { for i in 0..<outVol { out[(b * cout + oc) * outVol + i] += bias[oc] } } }
        }
        return Tensor(shape: [batch, cout] + outSpatial, floats: out)
    }
}
