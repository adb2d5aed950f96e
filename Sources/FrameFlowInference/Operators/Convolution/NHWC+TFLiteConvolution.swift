import FrameFlow

extension NHWC {
    /// The convolution builtins' kernels (`TFLiteKernels.table`).
    static let convolutionKernels: [TFLiteOperator: TFLiteKernel] = [.conv2D: runConvolution, .depthwiseConv2D: runConvolution]

    /// CONV_2D and DEPTHWISE_CONV_2D: GEMM tiles, depthwise pixel or channel-block loops, or the
    /// plain loop; with what fusion folded in at load (1 × 1 convolutions, a PAD, a PRELU, a
    /// residual ADD).
    static func runConvolution(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        let x = try input(0), w = try input(1)
        let bias = inputCount > 2 ? try? input(2) : nil
        let depthwise = op.code == .depthwiseConv2D
        let same = try o?.byte(0) == 0
        let sw = Int(try o?.int(1) ?? 1), sh = Int(try o?.int(2) ?? 1)
        let act = try op.activation(field: depthwise ? 4 : 3)
        let dw = Int(try o?.int(depthwise ? 5 : 4, 1) ?? 1), dh = Int(try o?.int(depthwise ? 6 : 5, 1) ?? 1)
        guard x.shape.count == 4, w.shape.count == 4 else { throw ModelError("conv needs 4-D input and filter") }
        // A 1 × 1 convolution folded in at load (`fuseExpansions`): x is its input.
        let (n, h, wd, c) = (x.shape[0], x.shape[1], x.shape[2], op.expansion?.filter.outputs ?? x.shape[3])
        let kh = w.shape[1], kw = w.shape[2]
        let oc = depthwise ? w.shape[3] : w.shape[0]
        // Strides and dilations from the file: 0 would divide by zero.
        guard [sw, sh, dw, dh].allSatisfy({ $0 > 0 && $0 < 1 << 16 }), kh > 0, kw > 0 else {
            throw ModelError("conv strides (\(sh), \(sw)), dilations (\(dh), \(dw)) or filter \(w.shape) out of range")
        }
        // A PAD folded at load (`foldSpatialPads`): VALID over the padded size, the window
        // starting that far before the input (the kernels read outside it as zeros).
        let pads = op.spatialPadding ?? [0, 0, 0, 0]
        let (oh, samePt) = padding(same, h + pads[0] + pads[1], kh, sh, dh), (ow, samePl) = padding(same, wd + pads[2] + pads[3], kw, sw, dw)
        let pt = samePt + pads[0], pl = samePl + pads[2]
        guard oh > 0, ow > 0 else { throw ModelError("conv output \(oh) × \(ow) of input \(x.shape), filter \(w.shape)") }
        _ = try Checked.elements([n, oh, ow, oc], "conv output")
        _ = try Checked.elements([oh, ow, kh, kw, c], "conv im2col matrix")
        let mult = depthwise ? oc / max(c, 1) : 1
        guard depthwise ? oc == c * mult : w.shape[3] == c else { throw ModelError("filter \(w.shape) does not fit input \(x.shape)") }
        if op.expansion != nil || op.projection != nil {
            // 1 × 1 convolutions folded in at load; their conditions checked again on this run's shapes.
            guard depthwise, mult == 1, n >= 1, dh == 1, dw == 1, c >= 8, x.shape[3] == op.expansion?.filter.k ?? c, h * wd > 0,
                op.projection.map({ $0.filter.k == c }) ?? true
            else {
                throw ModelError("input \(x.shape) does not fit the 1 × 1 convolutions fused into this depthwise one")
            }
            let g = Window(h: h, w: wd, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl)
            if n == 1 { return try runBanded(op, input, g, x: x, weights: w, bias: bias?.asFloats, clamp: clampRange(act)) }
            // A batch (`Model.batched`): the banded kernels take one image, so each in turn,
            // with its slice of the input and of the residual.
            let residualIndex = op.projection?.residual
            var parts: [Tensor] = []
            for b in 0..<n {
                func image(_ t: Tensor) -> Tensor {
                    let per = t.count / n
                    return Tensor(shape: [1] + t.shape.dropFirst(), floats: Array(t.asFloats[b * per..<(b + 1) * per]))
                }
                let xb = image(x)
                let inputB: (Int) throws -> Tensor = { i in i == 0 ? xb : i == residualIndex ? image(try input(i)) : try input(i) }
                parts.append(try runBanded(op, inputB, g, x: xb, weights: w, bias: bias?.asFloats, clamp: clampRange(act)))
            }
            return Tensor(shape: [n] + parts[0].shape.dropFirst(), floats: parts.flatMap(\.floats))
        }
        // The GEMM (beta 0) and depthwise paths write every output; the generic loop adds.
        var out = Scratch.uninitialized(n * oh * ow * oc)
        let xf = x.asFloats, wf = w.asFloats, bf = bias?.asFloats
        if !depthwise && !out.isEmpty && !xf.isEmpty && !wf.isEmpty {
            let K = kh * kw * c, P = oh * ow
            let packed = op.filter.flatMap { $0.k == K && $0.outputs == oc ? $0 : nil }
            let residualTensor = try op.residual.map { try input($0) }
            let rc = try residualChannels(residualTensor, output: [n, oh, ow, oc], usable: packed != nil)
            let rf = residualTensor?.floats ?? []
            let window = Window(h: h, w: wd, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl)
            // A PRELU fused at load (`fusePRelu`): in the tile epilogue with a packed filter.
            let slopes = op.channelSlopes.flatMap { $0.count >= (oc + 15) / 16 * 16 ? $0 : nil }
            if let s = op.channelSlopes, slopes == nil { throw ModelError("fused PRELU has \(s.count) slopes for \(oc) channels") }
            let fusedSlopes = packed != nil ? slopes : nil
            // A residual, or a PRELU before a clamp, needs the tiles' epilogue.
            let epilogueOnly = rc > 0 || fusedSlopes != nil && clampRange(act) != nil
            let narrow = takesNarrow(window, outputs: oc, residual: epilogueOnly)
            let colCount = narrow ? 0 : NHWC.im2colCount(window, packed: packed != nil, residual: epilogueOnly)
            var col = colCount == 0 ? [] : Scratch.uninitialized(colCount)  // im2col writes every entry
            rf.withUnsafeBufferPointer { R in
                let residual = rc > 0 ? R.baseAddress : nil  // no channels: nothing to add
                (fusedSlopes ?? []).withUnsafeBufferPointer { S in
                    xf.withUnsafeBufferPointer { X in
                        wf.withUnsafeBufferPointer { W in
                            out.withUnsafeMutableBufferPointer { Y in
                                col.withUnsafeMutableBufferPointer { C in
                                    let g = Window(
                                        h: h, w: wd, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl)
                                    for b in 0..<n where narrow {
                                        convolveNarrow(
                                            g, x: X.baseAddress! + b * h * wd * c, weights: W.baseAddress!,
                                            bias: packed.map { Array($0.bias.prefix(oc)) } ?? bf, outputs: oc, y: Y.baseAddress! + b * P * oc,
                                            clamp: clampRange(act))
                                        // A fused PRELU after, over the output just written.
                                        if let s = S.isEmpty ? nil : S.baseAddress {
                                            preluRows(Y.baseAddress! + b * P * oc, alpha: s, rows: P, channels: oc, Y.baseAddress! + b * P * oc)
                                        }
                                    }
                                    for b in 0..<n where !narrow {
                                        convolve(
                                            g, x: X.baseAddress! + b * h * wd * c, filter: packed, weights: W.baseAddress!, bias: bf, outputs: oc,
                                            y: Y.baseAddress! + b * P * oc, residual: residual.map { $0 + b * P * rc }, residualChannels: rc,
                                            clamp: clampRange(act), im2col: C.baseAddress, slope: S.isEmpty ? nil : S.baseAddress)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Scratch.recycle(&col)
            if packed == nil || clampRange(act) == nil { activation(act, &out) }
            if let s = slopes, fusedSlopes == nil {
                s.withUnsafeBufferPointer { S in
                    out.withUnsafeMutableBufferPointer { Y in
                        preluRows(Y.baseAddress!, alpha: S.baseAddress!, rows: n * P, channels: oc, Y.baseAddress!)
                    }
                }
            }
            return Tensor(shape: [n, oh, ow, oc], floats: out)
        }
        if depthwise && mult == 1 && !out.isEmpty && !xf.isEmpty && !wf.isEmpty {
            // Pixel by pixel (`depthwisePixels`, whole cache lines) or in channel blocks.
            let undilated = dh == 1 && dw == 1 && c >= 8
            let pixels = undilated && depthwiseTakesPixels(kh: kh, kw: kw, sw: sw, ow: ow)
            let blocks = undilated && !pixels
            xf.withUnsafeBufferPointer { X in
                wf.withUnsafeBufferPointer { W in
                    out.withUnsafeMutableBufferPointer { Y in
                        let g = Window(h: h, w: wd, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: sh, sw: sw, dh: dh, dw: dw, pt: pt, pl: pl)
                        for b in 0..<n {
                            let xb = X.baseAddress! + b * h * wd * c, yb = Y.baseAddress! + b * oh * ow * c
                            if pixels {
                                depthwisePixels(g, x: xb, w: W.baseAddress!, bias: bf, y: yb, clamp: clampRange(act))
                            } else if blocks {
                                depthwiseBlocks(g, x: xb, w: W.baseAddress!, bias: bf, y: yb, clamp: clampRange(act))
                            } else {
                                depthwise3(g, x: xb, w: W.baseAddress!, bias: bf, y: yb)
                            }
                        }
                    }
                }
            }
            if !(pixels || blocks) || clampRange(act) == nil { activation(act, &out) }  // these two clamp as they store
            return Tensor(shape: [n, oh, ow, oc], floats: out)
        }
        xf.withUnsafeBufferPointer { X in
            wf.withUnsafeBufferPointer { W in
                out.withUnsafeMutableBufferPointer { Y in
                    Y.update(repeating: 0)
                    for b in 0..<n {
                        for y in 0..<oh {
                            for xo in 0..<ow {
                                let ybase = ((b * oh + y) * ow + xo) * oc
                                for ky in 0..<kh {
                                    let iy = y * sh - pt + ky * dh
                                    if iy < 0 || iy >= h { continue }
                                    for kx in 0..<kw {
                                        let ix = xo * sw - pl + kx * dw
                                        if ix < 0 || ix >= wd { continue }
                                        let xbase = ((b * h + iy) * wd + ix) * c
                                        if depthwise {
                                            let wbase = (ky * kw + kx) * oc
                                            for ch in 0..<oc { Y[ybase + ch] += X[xbase + ch / mult] * W[wbase + ch] }
                                        } else {
                                            for f in 0..<oc {
                                                let wbase = ((f * kh + ky) * kw + kx) * c
                                                var acc: Float = 0
                                                for ch in 0..<c { acc += X[xbase + ch] * W[wbase + ch] }
                                                Y[ybase + f] += acc
                                            }
                                        }
                                    }
                                }
                                if let bf { for f in 0..<oc { Y[ybase + f] += bf[f] } }
                            }
                        }
                    }
                }
            }
        }
        activation(act, &out)
        return Tensor(shape: [n, oh, ow, oc], floats: out)
    }
}
