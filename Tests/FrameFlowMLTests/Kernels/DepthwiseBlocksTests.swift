@testable import FrameFlowML
import Testing

/// `NHWC.depthwiseBlocks` (depthwise filters of any size in channel blocks) against the
/// convolution written out in the test.
@Suite struct DepthwiseBlocksTests {
    /// 5 × 5 (the palm detector's), 3 × 3 (the landmark models'), 1 × 1, 7 × 3 and 2 × 4
    /// filters; channel counts that are and are not multiples of 8 and 16 (the last block
    /// overlaps; under 16 the 8-lane kernel); strides 1 and 2; SAME and VALID padding;
    /// images from 1 × 1 up, so rows and columns fall outside the image, and rows wide
    /// enough for the 8- and 4-column steps and the single columns after them.
    @Test(arguments: [
        (5, 5, 32, 1, true), (5, 5, 12, 2, true), (1, 1, 9, 1, false), (7, 3, 16, 1, true), (2, 4, 20, 2, false), (5, 5, 8, 1, false),
        (3, 3, 24, 1, true), (3, 3, 48, 2, true), (3, 3, 64, 1, false), (5, 5, 40, 2, true), (3, 3, 8, 2, true),
    ])
    func matchesTheFormula(kh: Int, kw: Int, channels c: Int, stride s: Int, same: Bool) {
        for (h, w) in [(1, 1), (5, 7), (13, 11), (6, 24), (4, 31)] {
            let (oh, pt) = NHWC.padding(same, h, kh, s, 1), (ow, pl) = NHWC.padding(same, w, kw, s, 1)
            guard oh > 0, ow > 0 else { continue }
            let x = GEMMTests.random(h * w * c, seed: 71), wt = GEMMTests.random(kh * kw * c, seed: 72), bias = GEMMTests.random(c, seed: 73)
            var y = [Float](repeating: .nan, count: oh * ow * c)
            let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: kh, kw: kw, sh: s, sw: s, dh: 1, dw: 1, pt: pt, pl: pl)
            x.withUnsafeBufferPointer { X in wt.withUnsafeBufferPointer { W in y.withUnsafeMutableBufferPointer { Y in
                NHWC.depthwiseBlocks(g, x: X.baseAddress!, w: W.baseAddress!, bias: bias, y: Y.baseAddress!, clamp: (-1.5, 2))
            } } }
            var worst: Float = 0
            for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<c {
                var v = bias[ch]
                for ky in 0..<kh { for kx in 0..<kw {
                    let iy = oy * s - pt + ky, ix = ox * s - pl + kx
                    if iy >= 0 && iy < h && ix >= 0 && ix < w { v += x[(iy * w + ix) * c + ch] * wt[(ky * kw + kx) * c + ch] }
                } }
                let got = y[(oy * ow + ox) * c + ch]
                worst = max(worst, got.isNaN ? .infinity : abs(min(2, max(-1.5, v)) - got))
            } } }
            #expect(worst <= 1e-4, "\(kh)×\(kw), \(h)×\(w)×\(c) stride \(s) same \(same): max error \(worst)")
        }
    }
}
