import FrameFlow
@testable import FrameFlowInference
import Testing

/// The NHWC kernels behind the TFLite builtins, against the convolution written out in the test.
@Suite struct TFLiteModelTests {
    /// 3×3 depthwise: channel counts that are and are not multiples of 8 (the last block
    /// overlaps), strides 1 and 2, SAME and VALID padding, images down to 1×1.
    /// Every kernel level this machine runs.
    @Test(arguments: [(8, 1, true), (12, 1, true), (28, 2, true), (36, 1, false), (42, 2, false), (9, 2, true)], KernelLevel.available)
    func depthwise3x3MatchesTheFormula(_ shape: (channels: Int, stride: Int, same: Bool), level: KernelLevel) {
        let (c, s, same) = shape
        for (h, w) in [(1, 1), (5, 7), (16, 9)] {
            let (oh, pt) = NHWC.padding(same, h, 3, s, 1), (ow, pl) = NHWC.padding(same, w, 3, s, 1)
            guard oh > 0, ow > 0 else { continue }
            let x = GEMMTests.random(h * w * c, seed: 21), wt = GEMMTests.random(9 * c, seed: 22), bias = GEMMTests.random(c, seed: 23)
            var y = [Float](repeating: .nan, count: oh * ow * c)
            let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: 3, kw: 3, sh: s, sw: s, dh: 1, dw: 1, pt: pt, pl: pl)
            KernelLevel.withThreadLevel(level) {
                x.withUnsafeBufferPointer { X in
                    wt.withUnsafeBufferPointer { W in
                        y.withUnsafeMutableBufferPointer { Y in
                            NHWC.depthwisePixels(g, x: X.baseAddress!, w: W.baseAddress!, bias: bias, y: Y.baseAddress!, clamp: (-1, 3))
                        }
                    }
                }
            }
            var worst: Float = 0
            for oy in 0..<oh {
                for ox in 0..<ow {
                    for ch in 0..<c {
                        var v = bias[ch]
                        for ky in 0..<3 {
                            for kx in 0..<3 {
                                let iy = oy * s - pt + ky, ix = ox * s - pl + kx
                                if iy >= 0 && iy < h && ix >= 0 && ix < w { v += x[(iy * w + ix) * c + ch] * wt[(ky * 3 + kx) * c + ch] }
                            }
                        }
                        let got = y[(oy * ow + ox) * c + ch]
                        worst = max(worst, got.isNaN ? .infinity : abs(min(3, max(-1, v)) - got))
                    }
                }
            }
            #expect(worst <= 1e-4, "\(level): \(h)×\(w)×\(c) stride \(s) same \(same): max error \(worst)")
        }
    }

    /// A convolution through the packed filter (`NHWC.convolve`), against the formula: wide
    /// filter rows (3 × 96: on AVX-512 builds the im2col-free `convolveInPlace`, whose k of
    /// 288 also crosses the microkernel's k blocks), narrow ones (3 × 3 × 3: im2col), strides
    /// 1 and 2, SAME and VALID, a row dilation, outputs narrower than 8, a residual with
    /// fewer channels than the output and with it a PRELU's slopes, and a clamp. Without a residual, narrow filters take
    /// `ShiftedConvolution` on AVX-512 builds (3 × 5 × 5, stride 2: BlazeFace's first layer).
    @Test(arguments: [
        (96, 24, 3, 1, 1, true, true), (96, 24, 3, 2, 1, true, true), (96, 24, 3, 1, 1, false, true), (3, 16, 3, 2, 1, true, true),
        (32, 40, 5, 1, 1, true, true), (24, 28, 3, 1, 2, true, true), (64, 17, 1, 2, 1, false, true), (3, 24, 5, 2, 1, true, false),
        (8, 12, 3, 1, 2, false, false), (5, 20, 3, 1, 1, true, false),
    ])
    func convolutionMatchesTheFormula(
        channels c: Int, outputs oc: Int, kernel k: Int, stride s: Int, rowDilation dh: Int, same: Bool, withResidual: Bool
    ) {
        for (h, w) in [(16, 24), (5, 7), (9, 20)] {
            let (oh, pt) = NHWC.padding(same, h, k, s, dh), (ow, pl) = NHWC.padding(same, w, k, s, 1)
            guard oh > 0, ow > 0 else { continue }
            let K = k * k * c, rc = withResidual ? max(1, oc - 4) : 0
            let x = GEMMTests.random(h * w * c, seed: 31), wt = GEMMTests.random(oc * K, seed: 32), bias = GEMMTests.random(oc, seed: 33)
            let residual = GEMMTests.random(max(1, oh * ow * rc), seed: 34)
            // With the residual, a fused PRELU too: one slope per output channel, padded to 16.
            let slope = GEMMTests.random((oc + 15) / 16 * 16, seed: 35)
            let filter = PackedFilter(outputsByInputs: wt, outputs: oc, bias: bias)
            var y = [Float](repeating: .nan, count: oh * ow * oc)
            var col = [Float](repeating: .nan, count: oh * ow * K)
            let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: k, kw: k, sh: s, sw: s, dh: dh, dw: 1, pt: pt, pl: pl)
            x.withUnsafeBufferPointer { X in
                wt.withUnsafeBufferPointer { W in
                    y.withUnsafeMutableBufferPointer { Y in
                        residual.withUnsafeBufferPointer { R in
                            col.withUnsafeMutableBufferPointer { C in
                                slope.withUnsafeBufferPointer { S in
                                    Scratch.$pool.withValue(ScratchTests.poisonedPool()) {
                                        NHWC.convolve(
                                            g, x: X.baseAddress!, filter: filter, weights: W.baseAddress!, bias: nil, outputs: oc, y: Y.baseAddress!,
                                            residual: withResidual ? R.baseAddress : nil, residualChannels: rc, clamp: (-2, 3), im2col: C.baseAddress,
                                            slope: withResidual ? S.baseAddress : nil)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            var worst: Float = 0
            for oy in 0..<oh {
                for ox in 0..<ow {
                    for o in 0..<oc {
                        var v = bias[o] + (o < rc ? residual[(oy * ow + ox) * rc + o] : 0)
                        for ky in 0..<k {
                            for kx in 0..<k {
                                for ch in 0..<c {
                                    let iy = oy * s - pt + ky * dh, ix = ox * s - pl + kx
                                    if iy >= 0 && iy < h && ix >= 0 && ix < w { v += x[(iy * w + ix) * c + ch] * wt[o * K + (ky * k + kx) * c + ch] }
                                }
                            }
                        }
                        if withResidual && v < 0 { v *= slope[o] }
                        let got = y[(oy * ow + ox) * oc + o]
                        worst = max(worst, got.isNaN ? .infinity : abs(min(3, max(-2, v)) - got))
                    }
                }
            }
            #expect(worst <= 1e-3, "\(h)×\(w)×\(c) → \(oc), \(k)×\(k) stride \(s) dilation \(dh) same \(same): max error \(worst)")
        }
    }

    /// NHWC max and average pooling against the formula: channel counts below 8 (one by one),
    /// a multiple of 8, and between (the last vector overlapping), windows cut by SAME
    /// padding (the average over the taps inside only); every kernel level this machine runs.
    @Test(arguments: [(3, 2, 2, false), (8, 3, 2, true), (13, 3, 1, true), (28, 2, 2, true), (20, 3, 2, false)], KernelLevel.available)
    func poolMatchesTheFormula(_ shape: (channels: Int, kernel: Int, stride: Int, same: Bool), level: KernelLevel) {
        let (c, k, s, same) = shape
        let (h, w) = (9, 10)
        let (oh, pt) = NHWC.padding(same, h, k, s, 1), (ow, pl) = NHWC.padding(same, w, k, s, 1)
        let x = GEMMTests.random(h * w * c, seed: 61)
        let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: k, kw: k, sh: s, sw: s, dh: 1, dw: 1, pt: pt, pl: pl)
        for isMax in [true, false] {
            var y = [Float](repeating: .nan, count: oh * ow * c)
            KernelLevel.withThreadLevel(level) {
                x.withUnsafeBufferPointer { X in
                    y.withUnsafeMutableBufferPointer { Y in NHWC.pool(g, max: isMax, x: X.baseAddress!, y: Y.baseAddress!) }
                }
            }
            var worst: Float = 0
            for oy in 0..<oh {
                for ox in 0..<ow {
                    for ch in 0..<c {
                        var taps: [Float] = []
                        for ky in 0..<k {
                            for kx in 0..<k {
                                let iy = oy * s - pt + ky, ix = ox * s - pl + kx
                                if iy >= 0 && iy < h && ix >= 0 && ix < w { taps.append(x[(iy * w + ix) * c + ch]) }
                            }
                        }
                        let want = isMax ? taps.max()! : taps.reduce(0, +) / Float(taps.count)
                        let got = y[(oy * ow + ox) * c + ch]
                        worst = max(worst, got.isNaN ? .infinity : abs(want - got))
                    }
                }
            }
            #expect(worst <= 1e-6, "\(level): \(c) channels, \(k)×\(k) stride \(s) same \(same) max \(isMax): error \(worst)")
        }
    }

    /// Builtin operator codes and names as LiteRT's schema has them.
    @Test func operatorCodesFollowTheSchema() {
        #expect(TFLiteOperator(rawValue: 3) == .conv2D && TFLiteOperator.conv2D.name == "CONV_2D")
        #expect(TFLiteOperator(rawValue: 4)?.name == "DEPTHWISE_CONV_2D" && TFLiteOperator(rawValue: 21)?.name == "RELU6")
        #expect(TFLiteOperator(rawValue: 13) == nil)  // LOCAL_RESPONSE_NORMALIZATION: not run (5 is DEPTH_TO_SPACE)
        #expect(TFLiteGraph.names.count == TFLiteOperator.allCases.count && TFLiteGraph.names[34] == "PAD")
    }
}
