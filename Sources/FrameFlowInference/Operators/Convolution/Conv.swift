import CFrameFlowKernels
import Foundation
import FrameFlow

/// Convolution and pooling on NCHW tensors (any number of spatial dimensions up to 3).
enum Conv {
    /// The attribute `Model` sets on a Conv whose Relu / Clip was fused into it: [min, max].
    static let fusedClamp = "frameflow.fused_clamp"
    /// The attribute `Model` sets on a Conv whose HardSwish was fused into it.
    static let fusedHardSwish = "frameflow.fused_hardswish"
    /// The attribute `Model` sets on a Conv whose SiLU (`Mul(x, Sigmoid(x))`) was fused into it.
    static let fusedSiLU = "frameflow.fused_silu"
    /// The attribute `Model` sets on a Conv whose activation was followed by a Mul and Add by
    /// constants, fused after it: [scale per output channel…, shift per output channel…].
    static let fusedAffine = "frameflow.fused_affine"

    struct Geometry {
        var spatialIn: [Int], kernel: [Int], strides: [Int], dilations: [Int], padBegin: [Int], padEnd: [Int], spatialOut: [Int]

        /// The same geometry with 1-D and 2-D treated as 3-D: unit dimensions in front.
        var threeD: Geometry {
            var g = self
            while g.spatialIn.count < 3 {
                g.spatialIn.insert(1, at: 0); g.kernel.insert(1, at: 0); g.strides.insert(1, at: 0); g.dilations.insert(1, at: 0)
                g.padBegin.insert(0, at: 0); g.padEnd.insert(0, at: 0); g.spatialOut.insert(1, at: 0)
            }
            return g
        }
    }

    /// A pooling node's geometry on input `x` (checked), as declared and as 3-D.
    static func poolGeometry(_ n: ONNXNode, _ x: Tensor) throws -> (declared: Geometry, threeD: Geometry) {
        guard let k = n.ints("kernel_shape")?.map({ Int($0) }) else { throw ModelError("pooling without kernel_shape") }
        guard x.shape.count == k.count + 2, (1...3).contains(k.count), k.allSatisfy({ $0 > 0 }), x.asFloats.count == x.count else {
            throw ModelError("pooling input \(x.shape) does not fit kernel \(k)")
        }
        let g = try geometry(n, input: Array(x.shape[2...]), kernel: k, ceil: n.int("ceil_mode", 0) != 0)
        _ = try Checked.elements(Array(x.shape[..<2]) + g.spatialOut, "pooling output")
        return (g, g.threeD)
    }

    static func geometry(_ n: ONNXNode, input: [Int], kernel: [Int], ceil: Bool = false) throws -> Geometry {
        let d = kernel.count
        let strides = n.ints("strides")?.map { Int($0) } ?? Array(repeating: 1, count: d)
        let dil = n.ints("dilations")?.map { Int($0) } ?? Array(repeating: 1, count: d)
        var pads = n.ints("pads")?.map { Int($0) } ?? Array(repeating: 0, count: 2 * d)
        // Pads by magnitude: abs(Int.min) traps.
        guard input.count == d, strides.count == d, dil.count == d, pads.count == 2 * d,
            (strides + dil + kernel).allSatisfy({ $0 > 0 && $0 < 1 << 16 }), pads.allSatisfy({ $0.magnitude < 1 << 16 })
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
                out[i] = (ceil && span % strides[i] > 0 ? span / strides[i] + 1 : span / strides[i]) + 1  // integer ⌈span / stride⌉ (strides > 0)
                // With ceil mode the last window must start inside the input or left padding.
                if ceil && (out[i] - 1) * strides[i] >= input[i] + pads[i] { out[i] -= 1 }
            }
            guard out[i] > 0 else { throw ModelError("output size \(out[i]) ≤ 0 (input \(input), kernel \(kernel))") }
        }
        return Geometry(
            spatialIn: input, kernel: kernel, strides: strides, dilations: dil, padBegin: Array(pads[0..<d]), padEnd: Array(pads[d..<(2 * d)]),
            spatialOut: out)
    }

    /// What a Conv node's attributes and its input and weight shapes decide: checked and
    /// derived once, then kept in the node's `SetupMemo` for every run with the same shapes
    /// (the attribute lookups and small arrays cost more than a small convolution's work).
    /// A class, so that handing it out is one retain, not one per array. `@unchecked
    /// Sendable`: immutable, and its epilogue's pointers are all nil.
    final class Setup: @unchecked Sendable {
        let xShape: [Int], wShape: [Int]
        let batch, cin, cout, group: Int
        /// The output's shape, shared by every output tensor (no array per run).
        let outShape: [Int]
        /// The geometry padded to three spatial dimensions.
        let g: Geometry
        let plane: Plane2D
        /// The fused clamp and HardSwish (pointers are set per run).
        let epilogue: GEMMEpilogue
        /// The fused scale and shift per output channel, or empty.
        let affine: [Float]

        init(_ n: ONNXNode, x: [Int], w: [Int]) throws {
            guard x.count >= 3, w.count == x.count else { throw ModelError("Conv needs input and weights of the same rank ≥ 3, got \(x) and \(w)") }
            let batch = x[0], cin = x[1], cout = w[0]
            let group = Int(n.int("group", 1))
            let kshape = n.ints("kernel_shape")?.map { Int($0) } ?? Array(w[2...])
            guard group > 0, cin % group == 0, cout % group == 0, w[1] * group == cin, kshape == Array(w[2...]) else {
                throw ModelError("Conv input \(x), weights \(w), kernel \(kshape), group \(group) do not fit")
            }
            let g0 = try geometry(n, input: Array(x[2...]), kernel: kshape), g = g0.threeD
            var e = GEMMEpilogue()
            if case .floats(let r)? = n.attributes[fusedClamp], r.count == 2 { (e.lower, e.upper) = (r[0], r[1]) }
            if case .int(1)? = n.attributes[fusedHardSwish] { e.hardSwish = true }
            if case .int(1)? = n.attributes[fusedSiLU] { e.silu = true }
            var affine: [Float] = []
            if case .floats(let a)? = n.attributes[fusedAffine] {
                guard a.count == 2 * cout else { throw ModelError("fused affine has \(a.count) values for \(cout) channels") }
                affine = a
            }
            (xShape, wShape, self.batch, self.cin, self.cout, self.group) = (x, w, batch, cin, cout, group)
            outShape = [batch, cout] + g0.spatialOut
            // Padding up to 2¹⁶ on a small input can ask for far more than the model's tensors
            // hold: the output and the im2col matrix are checked against the budget.
            _ = try Checked.elements(outShape, "Conv output")
            _ = try Checked.elements([w[1]] + kshape + g0.spatialOut, "Conv im2col matrix")
            self.g = g
            plane = Plane2D(
                batch: batch, cin: cin, h: g.spatialIn[1], w: g.spatialIn[2], cout: cout, group: group, kh: g.kernel[1], kw: g.kernel[2],
                strideH: g.strides[1], strideW: g.strides[2], dilationH: g.dilations[1], dilationW: g.dilations[2],
                padTop: g.padBegin[1], padLeft: g.padBegin[2], oh: g.spatialOut[1], ow: g.spatialOut[2])
            (epilogue, self.affine) = (e, affine)
        }
    }

    /// One node's `Setup` for the shapes it last ran with (a model may run on several threads
    /// at once: the slot is locked).
    final class SetupMemo: Sendable {
        private let slot = Locked<Setup?>(nil)

        /// The setup for these shapes: the kept one, or a new one (then kept).
        func setup(_ n: ONNXNode, x: [Int], w: [Int]) throws -> Setup {
            if let s = slot.withLock({ $0 }), s.xShape == x, s.wShape == w { return s }
            let s = try Setup(n, x: x, w: w)
            slot.withLock { $0 = s }
            return s
        }
    }

    static func run(_ n: ONNXNode, _ ins: [Tensor?], memo: SetupMemo? = nil) throws -> Tensor {
        let x = try Ops.need(ins, 0), w = try Ops.need(ins, 1)
        let s = try memo?.setup(n, x: x.shape, w: w.shape) ?? Setup(n, x: x.shape, w: w.shape)
        let bias = ins.count > 2 ? ins[2]?.floats : nil
        let (batch, cin, cout, group, g) = (s.batch, s.cin, s.cout, s.group, s.g)
        guard bias.map({ $0.count == cout }) ?? true, x.asFloats.count == x.count, w.asFloats.count == w.count else {
            throw ModelError("Conv input \(x.shape), weights \(w.shape), bias \(bias?.count ?? 0) values, do not fit")
        }
        let (D, H, W) = (g.spatialIn[0], g.spatialIn[1], g.spatialIn[2])
        let (OD, OH, OW) = (g.spatialOut[0], g.spatialOut[1], g.spatialOut[2])
        let (KD, KH, KW) = (g.kernel[0], g.kernel[1], g.kernel[2])
        let cpg = cin / group, opg = cout / group
        var out = Scratch.uninitialized(batch * cout * OD * OH * OW)  // every path below writes every output
        let xf = x.asFloats, wf = w.asFloats
        // An activation fused at load (`ONNXPlan.fuseConvolutions`): a clamp, and a per-channel
        // slope for negatives as input 3.
        let e = s.epilogue
        let slopes = ins.count > 3 ? ins[3]?.asFloats : nil
        guard slopes.map({ $0.count == cout }) ?? true else { throw ModelError("fused slope has \(slopes!.count) values for \(cout) channels") }
        let slopeFloats = slopes ?? []
        let affine = s.affine
        let fused = slopes != nil || e.lower > -.infinity || e.upper < .infinity || e.hardSwish || e.silu || !affine.isEmpty
        /// `e` with its per-channel slope, scale and shift pointers set, for the length of `body`.
        func withRowPointers(_ body: (GEMMEpilogue) -> Void) {
            slopeFloats.withUnsafeBufferPointer { S in
                affine.withUnsafeBufferPointer { A in
                    var e = e
                    if slopes != nil { e.rowSlope = S.baseAddress }
                    if !affine.isEmpty { (e.rowScale, e.rowShift) = (A.baseAddress, A.baseAddress! + cout) }
                    body(e)
                }
            }
        }
        /// The fused activation of channel `oc` on one value (the paths without tiles).
        func activate(_ v: Float, _ oc: Int) -> Float {
            guard fused else { return v }
            let u = min(max(v < 0 && slopes != nil ? v * slopeFloats[oc] : v, e.lower), e.upper)
            var a = e.hardSwish ? u * min(max(u / 6 + 0.5, 0), 1) : u
            if e.silu {
                // The kernels' sigmoid (one value), so these paths equal the tiled ones.
                var s: Float = 0
                ff_sigmoid_f32(&a, &s, 1)
                a *= s
            }
            return affine.isEmpty ? a : a * affine[oc] + affine[cout + oc]
        }
        // Inputs 4 and 5: the filter packed at load for the channels-last path, taken where
        // it measured faster (`channelsLastPays`): deep im2col (K ≥ 256) into few channels
        // (a multiple of 8, ≤ 64) on ≥ 64 pixels, and 1×1 convolutions of ≤ 16 pixels (one
        // pass over filter panels packed at load, where OpenBLAS packs the weights on every
        // call). Elsewhere, single-pixel 1×1 convolutions included, OpenBLAS on the NCHW im2col.
        let plane = s.plane
        if D == 1 && KD == 1 && group == 1 && !out.isEmpty && !xf.isEmpty && ins.count > 5, let fw = ins[4], let fb = ins[5],
            cout % 8 == 0, !shiftedRowsApply(plane),
            Self.channelsLastPays(k: cin * KH * KW, outputs: cout, pixels: OH * OW, pointwise: KH == 1 && KW == 1)
        {
            guard let filter = PackedFilter(k: cin * KH * KW, outputs: cout, weights: fw.floats, bias: fb.floats) else {
                throw ModelError("the packed filter (\(fw.shape), \(fb.shape)) does not fit weights \(w.shape)")
            }
            let window = NHWC.Window(
                h: H, w: W, c: cin, oh: OH, ow: OW, kh: KH, kw: KW, sh: g.strides[1], sw: g.strides[2], dh: g.dilations[1], dw: g.dilations[2],
                pt: g.padBegin[1], pl: g.padBegin[2])
            xf.withUnsafeBufferPointer { X in
                out.withUnsafeMutableBufferPointer { Y in
                    withRowPointers { e in
                        channelsLast(window, batch: batch, x: X.baseAddress!, filter: filter, y: Y.baseAddress!, epilogue: e)
                    }
                }
            }
            return Tensor(shape: s.outShape, floats: out)
        }
        if D == 1 && KD == 1 && !out.isEmpty && !xf.isEmpty && !wf.isEmpty {
            xf.withUnsafeBufferPointer { X in
                wf.withUnsafeBufferPointer { Wt in
                    out.withUnsafeMutableBufferPointer { Y in
                        withRowPointers { e in
                            conv2D(plane, x: X.baseAddress!, w: Wt.baseAddress!, bias: bias, y: Y.baseAddress!, epilogue: e)
                        }
                    }
                }
            }
            return Tensor(shape: s.outShape, floats: out)
        }
        if xf.isEmpty || wf.isEmpty {
            // Nothing to multiply (an empty input seen through padding): each output is its
            // channel's bias. Without this, the loop below walks every padded tap for nothing.
            let plane = OD * OH * OW
            out.withUnsafeMutableBufferPointer { Y in
                guard let y = Y.baseAddress else { return }
                for b in 0..<batch {
                    for oc in 0..<cout { (y + (b * cout + oc) * plane).update(repeating: activate(bias?[oc] ?? 0, oc), count: plane) }
                }
            }
            return Tensor(shape: s.outShape, floats: out)
        }
        xf.withUnsafeBufferPointer { X in
            wf.withUnsafeBufferPointer { Wt in
                out.withUnsafeMutableBufferPointer { Y in
                    for b in 0..<batch {
                        for oc in 0..<cout {
                            let gi = oc / opg
                            let bv = bias?[oc] ?? 0
                            for od in 0..<OD {
                                for oh in 0..<OH {
                                    for ow in 0..<OW {
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
                                                        acc +=
                                                            X[(((b * cin + c) * D + id) * H + ih) * W + iw]
                                                            * Wt[(((oc * cpg + ic) * KD + kd) * KH + kh) * KW + kw]
                                                    }
                                                }
                                            }
                                        }
                                        Y[(((b * cout + oc) * OD + od) * OH + oh) * OW + ow] = activate(acc + bv, oc)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return Tensor(shape: s.outShape, floats: out)
    }

    /// The shape of a 2-D convolution on NCHW data.
    struct Plane2D {
        var batch, cin, h, w, cout, group, kh, kw, strideH, strideW, dilationH, dilationW, padTop, padLeft, oh, ow: Int
        var cpg: Int { cin / group }
        var opg: Int { cout / group }
        /// The shape as `NHWC.Window` (one group's channels).
        var window: NHWC.Window { window(channels: cpg) }
        /// The shape as `NHWC.Window` with `channels` channels (all of them for a depthwise
        /// convolution, whose groups are one channel each).
        func window(channels: Int) -> NHWC.Window {
            NHWC.Window(
                h: h, w: w, c: channels, oh: oh, ow: ow, kh: kh, kw: kw, sh: strideH, sw: strideW, dh: dilationH, dw: dilationW, pt: padTop,
                pl: padLeft)
        }

        /// Output columns `ow` whose input column `ow·strideW − padLeft + kx·dilationW` lies
        /// inside the image.
        func validColumns(kx: Int) -> Range<Int> {
            Conv.stridedRange(count: ow, stride: strideW, offset: kx * dilationW - padLeft, limit: w)
        }
    }

    /// The indices `i` in `0..<count` for which `i·stride + offset` lies in `0..<limit`:
    /// the columns a filter tap or a transposed-conv tap touches inside the image.
    static func stridedRange(count: Int, stride: Int, offset: Int, limit: Int) -> Range<Int> {
        let lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride
        let hi = limit - 1 - offset < 0 ? 0 : min(count, (limit - 1 - offset) / stride + 1)
        return lo < hi ? lo..<hi : 0..<0
    }

    /// Where the channels-last path measured faster than OpenBLAS on the NCHW im2col. With
    /// the 16-lane tiles (AVX-512) that includes deep filters on small images and 1 × 1
    /// convolutions on up to 32 pixels with k ≥ 96 (docs/performance.md has the figures).
    static func channelsLastPays(k: Int, outputs: Int, pixels: Int, pointwise: Bool) -> Bool {
        if Microkernel.wide {
            return k >= 256 && outputs <= 64 && pixels >= 2 || pointwise && pixels >= 2 && (pixels <= 16 || pixels <= 32 && k >= 96)
        }
        return k >= 256 && outputs <= 64 && pixels >= 64 || pointwise && (2...16).contains(pixels)
    }

    /// A full convolution run channels-last: the input transposed to H×W×C, the NHWC path's
    /// im2col and microkernel (`NHWC.convolve`, bias in its epilogue) with a filter packed
    /// at load, the result transposed back with the fused activation. For PP-OCR's 3×3
    /// convolutions into 24 channels (K = 864) this is the skinny product the microkernel
    /// is fast at (pixels × 24), where OpenBLAS on 24 × pixels packed a megabyte of im2col.
    static func channelsLast(
        _ g: NHWC.Window, batch: Int, x: UnsafePointer<Float>, filter: PackedFilter, y: UnsafeMutablePointer<Float>, epilogue: GEMMEpilogue
    ) {
        let c = g.c, oc = filter.outputs, HW = g.h * g.w, P = g.oh * g.ow
        var xt = Scratch.uninitialized(HW * c), yt = Scratch.uninitialized(P * oc)
        let colCount = NHWC.im2colCount(g, packed: true)
        var col = colCount == 0 ? [] : Scratch.uninitialized(colCount)
        let activates = epilogue.activates
        xt.withUnsafeMutableBufferPointer { XT in
            yt.withUnsafeMutableBufferPointer { YT in
                col.withUnsafeMutableBufferPointer { C in
                    let xtp = XT.baseAddress!, ytp = YT.baseAddress!
                    for b in 0..<batch {
                        let xb = x + b * c * HW, yb = y + b * oc * P
                        Microkernel.transpose(xb, rows: c, columns: HW, into: xtp)
                        filter.weights.withUnsafeBufferPointer { W in
                            NHWC.convolve(
                                g, x: xtp, filter: filter, weights: W.baseAddress!, bias: nil, outputs: oc, y: ytp, residual: nil,
                                residualChannels: 0,
                                clamp: nil, im2col: C.baseAddress)
                        }
                        Microkernel.transpose(ytp, rows: P, columns: oc, into: yb)
                        if activates { activateRows(yb, rows: oc, count: P, bias: nil, epilogue) }
                    }
                }
            }
        }
        Scratch.recycle(&xt)
        Scratch.recycle(&yt)
        Scratch.recycle(&col)
    }

    /// Depthwise convolution (multiplier 1, ≥ 8 channels) with the channels innermost:
    /// the input is transposed to H×W×C, each output pixel adds its taps eight channels at
    /// a time (`ff_depthwise_dilated_rows`; the last block overlapping the one before), and
    /// the result is transposed back. Channel by channel, PP-OCR's 5×5 depthwise layers on
    /// 2×3 images spent their time setting up 25 taps per channel for six outputs each.
    static func depthwiseChannelsLast(
        _ s: Plane2D, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, epilogue: GEMMEpilogue
    ) {
        let c = s.cout, P = s.oh * s.ow, HW = s.h * s.w, taps = s.kh * s.kw
        var xt = Scratch.uninitialized(HW * c), yt = Scratch.uninitialized(P * c), wt = Scratch.uninitialized(taps * c)
        let bf = bias ?? [Float](repeating: 0, count: c)
        xt.withUnsafeMutableBufferPointer { XT in
            yt.withUnsafeMutableBufferPointer { YT in
                wt.withUnsafeMutableBufferPointer { WT in
                    bf.withUnsafeBufferPointer { B in
                        let xtp = XT.baseAddress!, ytp = YT.baseAddress!, wtp = WT.baseAddress!, bp = B.baseAddress!
                        Microkernel.transpose(w, rows: c, columns: taps, into: wtp)
                        for b in 0..<s.batch {
                            let xb = x + b * c * HW, yb = y + b * c * P
                            Microkernel.transpose(xb, rows: c, columns: HW, into: xtp)
                            if s.kh == 3 && s.kw == 3 && s.dilationH == 1 && s.dilationW == 1 {
                                // The NHWC kernel, pixel by pixel with two columns per step at stride 1.
                                let g = NHWC.Window(
                                    h: s.h, w: s.w, c: c, oh: s.oh, ow: s.ow, kh: 3, kw: 3, sh: s.strideH, sw: s.strideW, dh: 1, dw: 1, pt: s.padTop,
                                    pl: s.padLeft)
                                NHWC.depthwisePixels(g, x: xtp, w: wtp, bias: bias, y: ytp, clamp: nil)
                            } else {
                                // Each output pixel sums its taps inside the image, 32 channels at a time
                                // (four independent chains: one chain of 25 for a 5 × 5 window waits on
                                // each result; PP-OCR's 5 × 5 layers on 4 × 6 and 2 × 3 images).
                                let k = s.window(channels: c).kernelWindow(inner: 0..<0)
                                Scratch.parallelFor(s.oh, work: P * c * taps) { rows in
                                    withUnsafePointer(to: k) { ff_depthwise_dilated_rows($0, rows.lowerBound, rows.upperBound, xtp, wtp, bp, ytp) }
                                }
                            }
                            Microkernel.transpose(ytp, rows: P, columns: c, into: yb)
                            if epilogue.activates { activateRows(yb, rows: c, count: P, bias: nil, epilogue) }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&xt)
        Scratch.recycle(&yt)
        Scratch.recycle(&wt)
    }

    /// `r[i] = activation(r[i] + bias)` over `range` for output channel `row`: the fused
    /// slope and clamp of `e` (or its HardSwish or SiLU), then its scale and shift, in one pass of
    /// `ff_bias_activate_f32`.
    @inline(__always)
    static func activate(_ r: UnsafeMutablePointer<Float>, _ range: Range<Int>, bias: Float, _ e: GEMMEpilogue, row: Int) {
        // HardSwish alone (`Model` fuses it without a clamp), else a slope and the clamp.
        let slope = e.hardSwish || e.silu ? nil : e.rowSlope?[row]
        let mode = e.hardSwish ? FF_ACTIVATE_HARD_SWISH : e.silu ? FF_ACTIVATE_SILU : slope != nil ? FF_ACTIVATE_SLOPE : FF_ACTIVATE_CLAMP
        if let sc = e.rowScale?[row], let sh = e.rowShift?[row] {
            let affine = (sc, sh)
            withUnsafeBytes(of: affine) { a in
                ff_bias_activate_f32(
                    r + range.lowerBound, range.count, bias, mode, slope ?? 0, e.lower, e.upper, a.baseAddress!.assumingMemoryBound(to: Float.self))
            }
        } else {
            ff_bias_activate_f32(r + range.lowerBound, range.count, bias, mode, slope ?? 0, e.lower, e.upper, nil)
        }
    }

    /// `activate` on `rows` rows of `count` floats (`count` apart, NCHW planes) with row `i`'s
    /// bias from `bias` (none: 0), in one `ff_bias_activate_rows_f32` call: a convolution's
    /// planes are many and small, so a call per plane costs more than its arithmetic.
    static func activateRows(_ r: UnsafeMutablePointer<Float>, rows: Int, count: Int, bias: [Float]?, _ e: GEMMEpilogue) {
        withRowActivation(bias: bias, e) { ff_bias_activate_rows_f32(r, rows, count, count, $0) }
    }

    /// `e` and `bias` (none: 0) as the per-row activation of `ff_bias_activate_rows_f32`,
    /// for the length of `body`.
    static func withRowActivation(bias: [Float]?, _ e: GEMMEpilogue, _ body: (UnsafePointer<ff_row_activation>) -> Void) {
        func run(_ b: UnsafePointer<Float>?) {
            let a = ff_row_activation(
                bias: b, slope: e.hardSwish || e.silu ? nil : e.rowSlope, scale: e.rowScale, shift: e.rowShift, lower: e.lower,
                upper: e.upper, hard_swish: e.hardSwish ? 1 : 0, silu: e.silu ? 1 : 0)
            withUnsafePointer(to: a) { body($0) }
        }
        if let bias { bias.withUnsafeBufferPointer { run($0.baseAddress) } } else { run(nil) }
    }

    /// 2-D convolution: depthwise channels directly, everything else as one matrix product
    /// per group over an im2col copy of the input (none for 1×1, stride 1, unpadded).
    static func conv2D(
        _ s: Plane2D, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>,
        epilogue: GEMMEpilogue = GEMMEpilogue()
    ) {
        let P = s.oh * s.ow, HW = s.h * s.w
        if s.cpg == 1 && s.opg == 1 && s.cout >= 8 {
            if shiftedDepthwiseApply(s) {
                shiftedDepthwise(s, x: x, w: w, bias: bias, y: y, epilogue: epilogue)
            } else {
                depthwiseChannelsLast(s, x: x, w: w, bias: bias, y: y, epilogue: epilogue)
            }
            return
        }
        if s.cpg == 1 && s.opg == 1 {
            for b in 0..<s.batch {
                for c in 0..<s.cout {
                    let xc = x + (b * s.cin + c) * HW, yc = y + (b * s.cout + c) * P
                    yc.update(repeating: bias?[c] ?? 0, count: P)
                    for ky in 0..<s.kh {
                        for kx in 0..<s.kw {
                            let wv = w[(c * s.kh + ky) * s.kw + kx]
                            let cols = s.validColumns(kx: kx)
                            let colOff = kx * s.dilationW - s.padLeft
                            for oy in 0..<s.oh {
                                let iy = oy * s.strideH - s.padTop + ky * s.dilationH
                                if iy < 0 || iy >= s.h { continue }
                                let xr = xc + iy * s.w + colOff, yr = yc + oy * s.ow
                                if s.strideW == 1 {
                                    for ox in cols { yr[ox] += wv * xr[ox] }
                                } else {
                                    for ox in cols { yr[ox] += wv * xr[ox * s.strideW] }
                                }
                            }
                        }
                    }
                    if epilogue.activates { activate(yc, 0..<P, bias: 0, epilogue, row: c) }
                }
            }
            return
        }
        if shiftedRowsApply(s) {
            shiftedRows(s, x: x, w: w, bias: bias, y: y, epilogue: epilogue)
            return
        }
        let K = s.cpg * s.kh * s.kw
        let activates = epilogue.activates
        let direct = s.kh == 1 && s.kw == 1 && s.strideH == 1 && s.strideW == 1 && s.padTop == 0 && s.padLeft == 0 && s.oh == s.h && s.ow == s.w
        var col = direct ? [] : Scratch.uninitialized(K * P)  // im2col writes every entry
        col.withUnsafeMutableBufferPointer { C in
            for b in 0..<s.batch {
                for gi in 0..<s.group {
                    let xg = x + (b * s.cin + gi * s.cpg) * HW
                    var src = UnsafePointer(xg)
                    if !direct {
                        let cp = C.baseAddress!
                        Scratch.parallelFor(s.cpg, work: K * P) { channels in
                            for c in channels {
                                for ky in 0..<s.kh {
                                    for kx in 0..<s.kw {
                                        let row = cp + ((c * s.kh + ky) * s.kw + kx) * P
                                        let cols = s.validColumns(kx: kx)
                                        let colOff = kx * s.dilationW - s.padLeft
                                        for oy in 0..<s.oh {
                                            let r = row + oy * s.ow
                                            let iy = oy * s.strideH - s.padTop + ky * s.dilationH
                                            if iy < 0 || iy >= s.h || cols.isEmpty {
                                                r.update(repeating: 0, count: s.ow)
                                                continue
                                            }
                                            let xr = xg + c * HW + iy * s.w + colOff
                                            // Inline copies: a memmove call per 20-float row cost
                                            // as much as a third of MTCNN's largest convolution.
                                            for ox in 0..<cols.lowerBound { r[ox] = 0 }
                                            if s.strideW == 1 {
                                                Microkernel.copy(r + cols.lowerBound, from: xr + cols.lowerBound, count: cols.count)
                                            } else {
                                                for ox in cols { r[ox] = xr[ox * s.strideW] }
                                            }
                                            for ox in cols.upperBound..<s.ow { r[ox] = 0 }
                                        }
                                    }
                                }
                            }
                        }
                        src = UnsafePointer(cp)
                    }
                    // Bands of output columns, each its own matrix product.
                    let yg = y + (b * s.cout + gi * s.opg) * P, wg = w + gi * s.opg * K, b0 = src
                    Scratch.parallelFor(P, work: s.opg * K * P) { band in
                        let i0 = band.lowerBound
                        GEMM.multiply(m: s.opg, n: band.count, k: K, a: wg, lda: K, b: b0 + i0, ldb: P, c: yg + i0, ldc: P)
                        // Bias and the fused activation in one pass over the band.
                        for o in 0..<s.opg {
                            let oc = gi * s.opg + o, bv = bias?[oc] ?? 0
                            let r = yg + o * P
                            if activates {
                                activate(r, band, bias: bv, epilogue, row: oc)
                            } else if bias != nil {
                                for i in band { r[i] += bv }
                            }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&col)
    }

    /// Whether `conv2D` runs `s` through `ShiftedConvolution`: group 1 and the shapes it
    /// takes, where it measured faster than the other paths. AVX-512: all of them. AVX2 (the
    /// 8-lane tiles): stride 1, and stride 2 into few input channels, where OpenBLAS on the
    /// im2col is slower; deeper stride-2 layers were as fast or faster on OpenBLAS
    /// (docs/performance.md, 2026-12-05).
    static func shiftedRowsApply(_ s: Plane2D) -> Bool {
        guard s.group == 1 && ShiftedConvolution.fits(s.window) else { return false }
        if ShiftedConvolution.built { return true }
        return ShiftedConvolution.eightLane && (s.strideH == 1 && s.strideW == 1 || s.cin <= 32)
    }

    /// Whether `conv2D` runs a depthwise convolution through `ShiftedConvolution.depthwise`
    /// (AVX-512 builds): stride 1 on rows of at least 8 outputs, where it beats the
    /// channels-last path. Not stride 2 (filling the phase planes element by element costs
    /// more than the transposes) nor rows that waste half of the 16-lane runs.
    static func shiftedDepthwiseApply(_ s: Plane2D) -> Bool {
        ShiftedConvolution.built && s.strideH == 1 && s.strideW == 1 && s.ow >= 8 && ShiftedConvolution.fits(s.window(channels: s.cin))
    }

    /// `ShiftedConvolution.depthwise` on each image; the activation added per channel after.
    static func shiftedDepthwise(
        _ s: Plane2D, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, epilogue: GEMMEpilogue
    ) {
        let g = s.window(channels: s.cin), P = s.oh * s.ow
        for b in 0..<s.batch {
            let yb = y + b * s.cout * P
            ShiftedConvolution.depthwise(g, x: x + b * s.cin * s.h * s.w, weights: w, bias: bias, y: yb)
            if epilogue.activates { activateRows(yb, rows: s.cout, count: P, bias: nil, epilogue) }
        }
    }

    /// `ShiftedConvolution` on NCHW input; bias and activation added per block of outputs.
    static func shiftedRows(
        _ s: Plane2D, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, epilogue: GEMMEpilogue
    ) {
        let P = s.oh * s.ow
        withRowActivation(bias: bias, epilogue) { a in
            for b in 0..<s.batch {
                let yb = y + b * s.cout * P
                ShiftedConvolution.run(
                    s.window, layout: .channelsFirst, x: x + b * s.cin * s.h * s.w, weights: w, outputs: s.cout, y: yb, activation: a)
            }
        }
    }
}
