import Foundation
import FrameFlow

extension NHWC {
    /// MediaPipe's `Convolution2DTransposeBias`: each input pixel spreads its channels through
    /// the `[Cout, KH, KW, Cin]` filter onto a KH × KW patch of the output, stride apart, and
    /// the output starts at the `[Cout]` bias. Output size `stride·(H − 1) + K − pad`, where SAME
    /// pads `max(0, K − (H − 1) mod stride − 1)` (the top/left part half of it) and VALID none.
    ///
    /// Where taps overlap, one matrix product gives every input pixel's contribution to every
    /// (output channel, tap); each output row then gathers its taps in input order (rows split
    /// across threads, no two writing the same output). Where they cannot (`disjointTaps`),
    /// each input pixel's dot products go straight to their outputs.
    static func transposeConvBias(
        _ x: Tensor, weights w: Tensor, bias: Tensor, _ o: TFLiteCustomOperator.TransposeConvBiasOptions
    ) throws -> Tensor {
        guard x.isFloat, w.isFloat, bias.isFloat, x.shape.count == 4, w.shape.count == 4, bias.shape.count == 1 else {
            throw ModelError("Convolution2DTransposeBias needs a 4-D input and filter and a 1-D bias, not \(x.shape), \(w.shape), \(bias.shape)")
        }
        let (n, h, wd, cin) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (cout, kh, kw) = (w.shape[0], w.shape[1], w.shape[2])
        guard w.shape[3] == cin, bias.shape[0] == cout, kh > 0, kw > 0, h > 0, wd > 0 else {
            throw ModelError("Convolution2DTransposeBias filter \(w.shape) and bias \(bias.shape) do not fit input \(x.shape)")
        }
        let (sh, sw) = (o.strideHeight, o.strideWidth)
        let padH = o.same ? max(0, kh - (h - 1) % sh - 1) : 0, padW = o.same ? max(0, kw - (wd - 1) % sw - 1) : 0
        let oh = try Checked.sum(try Checked.product(sh, h - 1, "output height"), kh - padH, "output height")
        let ow = try Checked.sum(try Checked.product(sw, wd - 1, "output width"), kw - padW, "output width")
        let (top, left) = (padH / 2, padW / 2)
        let taps = kh * kw * cout
        _ = try Checked.elements([n, oh, ow, cout], "Convolution2DTransposeBias output")
        _ = try Checked.elements([h, wd, taps], "Convolution2DTransposeBias products")
        // For each output row (column): the input rows (columns) that reach it and the filter
        // row (column) they reach it through, input ascending, as flat arrays (`start[o] ..<
        // start[o + 1]` index `input` and `tap`).
        func sources(_ outCount: Int, _ inCount: Int, _ k: Int, _ s: Int, _ pad: Int) -> (start: [Int], input: [Int], tap: [Int]) {
            var start = [0], input: [Int] = [], tap: [Int] = []
            for out in 0..<outCount {
                let first = input.count
                var i = min(inCount - 1, (out + pad) / s)
                while i >= 0 && out + pad - i * s < k {
                    input.insert(i, at: first)
                    tap.insert(out + pad - i * s, at: first)
                    i -= 1
                }
                start.append(input.count)
            }
            return (start, input, tap)
        }
        let rows = sources(oh, h, kh, sh, top), cols = sources(ow, wd, kw, sw, left)
        let xf = x.asFloats, wf = w.asFloats, bf = bias.asFloats
        var out = Scratch.uninitialized(n * oh * ow * cout)
        if kh <= sh && kw <= sw {  // the selfie models' 2 × 2, stride 2: no two taps meet
            disjointTaps(
                xf, wf, bf, into: &out, n: n, h: h, w: wd, cin: cin, cout: cout, kh: kh, kw: kw, sh: sh, sw: sw, top: top, left: left, oh: oh, ow: ow)
            return Tensor(shape: [n, oh, ow, cout], floats: out)
        }
        var products = Scratch.uninitialized(h * wd * taps)  // the product (beta 0) writes every entry
        xf.withUnsafeBufferPointer { X in
            wf.withUnsafeBufferPointer { W in
                bf.withUnsafeBufferPointer { B in
                    out.withUnsafeMutableBufferPointer { Y in
                        products.withUnsafeMutableBufferPointer { P in
                            let p = P.baseAddress!, y = Y.baseAddress!, b = B.baseAddress!
                            for batch in 0..<n {
                                // products[pixel, (oc, ky, kx)] = Σ_ic x[pixel, ic] · w[oc, ky, kx, ic]
                                GEMM.multiply(
                                    m: h * wd, n: taps, k: cin, a: X.baseAddress! + batch * h * wd * cin, lda: cin, b: W.baseAddress!, ldb: cin,
                                    transB: true, c: p, ldc: taps)
                                let yb = y + batch * oh * ow * cout
                                Scratch.parallelFor(oh, work: oh * ow * taps) { band in
                                    rows.start.withUnsafeBufferPointer { rowStart in
                                        rows.input.withUnsafeBufferPointer { rowInput in
                                            rows.tap.withUnsafeBufferPointer { rowTap in
                                                cols.start.withUnsafeBufferPointer { colStart in
                                                    cols.input.withUnsafeBufferPointer { colInput in
                                                        cols.tap.withUnsafeBufferPointer { colTap in
                                                            for oy in band {
                                                                for ox in 0..<ow {
                                                                    // Written out: a memmove call per pixel cost more than the sums.
                                                                    let yp = yb + (oy * ow + ox) * cout
                                                                    for oc in 0..<cout { yp[oc] = b[oc] }
                                                                    for r in rowStart[oy]..<rowStart[oy + 1] {
                                                                        let rowBase = rowInput[r] * wd, tapBase = rowTap[r] * kw
                                                                        for c in colStart[ox]..<colStart[ox + 1] {
                                                                            let pp = p + (rowBase + colInput[c]) * taps + tapBase + colTap[c]
                                                                            for oc in 0..<cout { yp[oc] += pp[oc * kh * kw] }
                                                                        }
                                                                    }
                                                                }
                                                            }
                                                        }
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&products)
        return Tensor(shape: [n, oh, ow, cout], floats: out)
    }

    /// `transposeConvBias` when each output pixel takes at most one tap (filter no larger than
    /// the stride): one matrix product gives each input pixel's dot products with the taps
    /// (a per-pixel loop over the channels was most of the selfie models' last layer), each
    /// stored once with its bias; outputs no tap reaches keep the bias.
    private static func disjointTaps(
        _ x: [Float], _ w: [Float], _ bias: [Float], into out: inout [Float], n: Int, h: Int, w wd: Int, cin: Int, cout: Int, kh: Int, kw: Int,
        sh: Int, sw: Int, top: Int, left: Int, oh: Int, ow: Int
    ) {
        x.withUnsafeBufferPointer { X in
            w.withUnsafeBufferPointer { W in
                bias.withUnsafeBufferPointer { B in
                    out.withUnsafeMutableBufferPointer { Y in
                        guard let xp = X.baseAddress, let wp = W.baseAddress, let b = B.baseAddress, let y = Y.baseAddress else { return }
                        // With the filter as large as the stride every output takes exactly one
                        // tap; otherwise those between the patches keep the bias.
                        if kh != sh || kw != sw { for p in 0..<(n * oh * ow) { for oc in 0..<cout { y[p * cout + oc] = b[oc] } } }
                        // Every input pixel's dot products with every tap in one matrix product
                        // (products[pixel, t] = Σ_ic x[pixel, ic] · w[t, ic], t = (oc·KH + ky)·KW + kx),
                        // then each goes to its output pixel with the bias.
                        let taps = cout * kh * kw, pixels = n * h * wd
                        var products = Scratch.uninitialized(pixels * taps)
                        let tapChannel = (0..<taps).map { $0 / (kh * kw) }, tapRow = (0..<taps).map { $0 / kw % kh }
                        let tapColumn = (0..<taps).map { $0 % kw }
                        products.withUnsafeMutableBufferPointer { P in
                            let pp = P.baseAddress!
                            GEMM.multiply(m: pixels, n: taps, k: cin, a: xp, lda: cin, b: wp, ldb: cin, transB: true, c: pp, ldc: taps)
                            for row in 0..<(n * h) {
                                let (batch, iy) = row.quotientAndRemainder(dividingBy: h)
                                for t in 0..<taps {
                                    let oy = iy * sh - top + tapRow[t], oc = tapChannel[t]
                                    if oy < 0 || oy >= oh { continue }
                                    let bias = b[oc], yr = y + (batch * oh + oy) * ow * cout + oc, pr = pp + row * wd * taps + t
                                    var ox = -left + tapColumn[t]
                                    for ix in 0..<wd {
                                        if ox >= 0 && ox < ow { yr[ox * cout] = bias + pr[ix * taps] }
                                        ox += sw
                                    }
                                }
                            }
                        }
                        Scratch.recycle(&products)
                    }
                }
            }
        }
    }
}
