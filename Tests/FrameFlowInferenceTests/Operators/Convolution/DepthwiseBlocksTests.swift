import FrameFlow
@testable import FrameFlowInference
import Testing

/// The depthwise kernels (`NHWC.depthwiseBlocks`, filters of any size in channel blocks;
/// `NHWC.depthwisePixels`, pixel by pixel; and the channels-last path of `Conv.depthwiseChannelsLast` with dilations) at every kernel
/// level this machine runs, against the convolution written out in the test.
@Suite struct DepthwiseBlocksTests {
    /// 5 × 5 (the palm detector's), 3 × 3 (the landmark models'), 1 × 1, 7 × 3 and 2 × 4
    /// filters; channel counts that are and are not multiples of 8 and 16 (the last block
    /// overlaps; under 16 the 8-lane blocks); strides 1 and 2; SAME and VALID padding;
    /// images from 1 × 1 up, so rows and columns fall outside the image, and rows wide
    /// enough for the 8- and 4-column steps and the single columns after them.
    static let shapes = [
        (5, 5, 32, 1, true), (5, 5, 12, 2, true), (1, 1, 9, 1, false), (7, 3, 16, 1, true), (2, 4, 20, 2, false), (5, 5, 8, 1, false),
        (3, 3, 24, 1, true), (3, 3, 48, 2, true), (3, 3, 64, 1, false), (5, 5, 40, 2, true), (3, 3, 8, 2, true),
    ]

    @Test(arguments: DepthwiseBlocksTests.shapes, KernelLevel.available)
    func matchesTheFormula(_ shape: (kh: Int, kw: Int, channels: Int, stride: Int, same: Bool), level: KernelLevel) {
        Self.check(shape, level: level, kernel: NHWC.depthwiseBlocks)
    }

    /// `NHWC.depthwisePixels` on the same shapes and more channel counts around its 16- and
    /// 8-lane blocks (9–15: two overlapping 8-lane blocks; 24: one of each; 44: an overlapping
    /// 16-lane block), with rows of several four-column steps and the single columns after.
    @Test(arguments: DepthwiseBlocksTests.shapes + [(3, 3, 44, 1, true), (3, 3, 15, 1, false), (8, 8, 17, 1, true)], KernelLevel.available)
    func pixelsMatchTheFormula(_ shape: (kh: Int, kw: Int, channels: Int, stride: Int, same: Bool), level: KernelLevel) {
        Self.check(shape, level: level, kernel: NHWC.depthwisePixels)
    }

    /// `NHWC.convolveNarrow` (a full convolution into 1–4 channels) against the convolution
    /// written out: channel counts with and without an 8-channel remainder (only without do
    /// inner columns go eight at a time), strides 1 and 2, SAME and VALID padding, images from
    /// 1 × 1 up to rows of several eight-pixel steps.
    @Test(
        arguments: [(3, 3, 8, 1, 1, true), (3, 3, 13, 2, 2, true), (2, 2, 20, 4, 1, false), (5, 3, 16, 3, 1, true), (3, 3, 16, 2, 2, true)],
        KernelLevel.available)
    func narrowMatchesTheFormula(_ shape: (kh: Int, kw: Int, channels: Int, outputs: Int, stride: Int, same: Bool), level: KernelLevel) {
        let (kh, kw, c, oc, s, same) = shape
        for (h, w) in [(1, 1), (5, 7), (13, 11), (6, 40)] {
            let (oh, pt) = NHWC.padding(same, h, kh, s, 1), (ow, pl) = NHWC.padding(same, w, kw, s, 1)
            guard oh > 0, ow > 0 else { continue }
            let x = GEMMTests.random(h * w * c, seed: 81), wt = GEMMTests.random(oc * kh * kw * c, seed: 82), bias = GEMMTests.random(oc, seed: 83)
            var y = [Float](repeating: .nan, count: oh * ow * oc)
            let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: s, sw: s, dh: 1, dw: 1, pt: pt, pl: pl)
            KernelLevel.withThreadLevel(level) {
                x.withUnsafeBufferPointer { X in
                    wt.withUnsafeBufferPointer { W in
                        y.withUnsafeMutableBufferPointer { Y in
                            NHWC.convolveNarrow(
                                g, x: X.baseAddress!, weights: W.baseAddress!, bias: bias, outputs: oc, y: Y.baseAddress!, clamp: (-1.5, 2))
                        }
                    }
                }
            }
            var worst: Float = 0
            for oy in 0..<oh {
                for ox in 0..<ow {
                    for o in 0..<oc {
                        var v = bias[o]
                        for ky in 0..<kh {
                            for kx in 0..<kw {
                                let iy = oy * s - pt + ky, ix = ox * s - pl + kx
                                guard iy >= 0 && iy < h && ix >= 0 && ix < w else { continue }
                                for ch in 0..<c { v += x[(iy * w + ix) * c + ch] * wt[((o * kh + ky) * kw + kx) * c + ch] }
                            }
                        }
                        let got = y[(oy * ow + ox) * oc + o]
                        worst = max(worst, got.isNaN ? .infinity : abs(min(2, max(-1.5, v)) - got))
                    }
                }
            }
            #expect(worst <= 1e-4, "\(level): \(kh)×\(kw), \(h)×\(w)×\(c) into \(oc), stride \(s): max error \(worst)")
        }
    }

    typealias Kernel = (NHWC.Window, UnsafePointer<Float>, UnsafePointer<Float>, [Float]?, UnsafeMutablePointer<Float>, (Float, Float)?) -> Void

    static func check(_ shape: (kh: Int, kw: Int, channels: Int, stride: Int, same: Bool), level: KernelLevel, kernel: Kernel) {
        let (kh, kw, c, s, same) = shape
        for (h, w) in [(1, 1), (5, 7), (13, 11), (6, 24), (4, 31)] {
            let (oh, pt) = NHWC.padding(same, h, kh, s, 1), (ow, pl) = NHWC.padding(same, w, kw, s, 1)
            guard oh > 0, ow > 0 else { continue }
            let x = GEMMTests.random(h * w * c, seed: 71), wt = GEMMTests.random(kh * kw * c, seed: 72), bias = GEMMTests.random(c, seed: 73)
            var y = [Float](repeating: .nan, count: oh * ow * c)
            let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: s, sw: s, dh: 1, dw: 1, pt: pt, pl: pl)
            KernelLevel.withThreadLevel(level) {
                x.withUnsafeBufferPointer { X in
                    wt.withUnsafeBufferPointer { W in
                        y.withUnsafeMutableBufferPointer { Y in
                            kernel(g, X.baseAddress!, W.baseAddress!, bias, Y.baseAddress!, (-1.5, 2))
                        }
                    }
                }
            }
            var worst: Float = 0
            for oy in 0..<oh {
                for ox in 0..<ow {
                    for ch in 0..<c {
                        var v = bias[ch]
                        for ky in 0..<kh {
                            for kx in 0..<kw {
                                let iy = oy * s - pt + ky, ix = ox * s - pl + kx
                                if iy >= 0 && iy < h && ix >= 0 && ix < w { v += x[(iy * w + ix) * c + ch] * wt[(ky * kw + kx) * c + ch] }
                            }
                        }
                        let got = y[(oy * ow + ox) * c + ch]
                        worst = max(worst, got.isNaN ? .infinity : abs(min(2, max(-1.5, v)) - got))
                    }
                }
            }
            #expect(worst <= 1e-4, "\(level): \(kh)×\(kw), \(h)×\(w)×\(c) stride \(s) same \(same): max error \(worst)")
        }
    }

    /// `Conv.depthwiseChannelsLast` (NCHW in and out, the channels-last kernel between) with
    /// dilations, strides, padding cut on one side, 32-channel blocks and the 8-channel tail,
    /// and a 3 × 3 filter (through `NHWC.depthwisePixels`).
    @Test(arguments: [(12, 5, 1, 2, 2), (40, 3, 2, 1, 1), (33, 5, 1, 1, 2), (64, 3, 1, 2, 0), (9, 3, 1, 1, 1)], KernelLevel.available)
    func channelsLastMatchesTheFormula(_ shape: (channels: Int, kernel: Int, stride: Int, dilation: Int, pad: Int), level: KernelLevel) {
        let (c, k, s, d, p) = shape
        let (h, w) = (7, 10), ek = (k - 1) * d + 1
        let oh = (h + 2 * p - ek) / s + 1, ow = (w + 2 * p + 1 - ek) / s + 1
        let plane = Conv.Plane2D(
            batch: 1, cin: c, h: h, w: w, cout: c, group: c, kh: k, kw: k, strideH: s, strideW: s, dilationH: d, dilationW: d,
            padTop: p, padLeft: p + 1, oh: oh, ow: ow)
        let x = GEMMTests.random(c * h * w, seed: 74), wt = GEMMTests.random(c * k * k, seed: 75), bias = GEMMTests.random(c, seed: 76)
        var y = [Float](repeating: .nan, count: c * oh * ow)
        KernelLevel.withThreadLevel(level) {
            x.withUnsafeBufferPointer { X in
                wt.withUnsafeBufferPointer { W in
                    y.withUnsafeMutableBufferPointer { Y in
                        Conv.depthwiseChannelsLast(
                            plane, x: X.baseAddress!, w: W.baseAddress!, bias: bias, y: Y.baseAddress!, epilogue: GEMMEpilogue())
                    }
                }
            }
        }
        let worst = ConvTests.depthwiseWorstError(y, x: x, wt: wt, bias: bias, plane: plane)
        #expect(worst <= 1e-4, "\(level): \(c) channels, \(k)×\(k) stride \(s) dilation \(d): max error \(worst)")
    }
}
