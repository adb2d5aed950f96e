@testable import FrameFlowML
import Testing

/// The NHWC kernels behind the TFLite builtins, against the convolution written out in the test.
@Suite struct TFLiteModelTests {
    /// 3×3 depthwise: channel counts that are and are not multiples of 8 (the last block
    /// overlaps), strides 1 and 2, SAME and VALID padding, images down to 1×1.
    @Test(arguments: [(8, 1, true), (12, 1, true), (28, 2, true), (36, 1, false), (42, 2, false), (9, 2, true)])
    func depthwise3x3MatchesTheFormula(channels c: Int, stride s: Int, same: Bool) {
        for (h, w) in [(1, 1), (5, 7), (16, 9)] {
            let (oh, pt) = NHWC.padding(same, h, 3, s, 1), (ow, pl) = NHWC.padding(same, w, 3, s, 1)
            guard oh > 0, ow > 0 else { continue }
            let x = GEMMTests.random(h * w * c, seed: 21), wt = GEMMTests.random(9 * c, seed: 22), bias = GEMMTests.random(c, seed: 23)
            var y = [Float](repeating: .nan, count: oh * ow * c)
            let g = NHWC.Window(h: h, w: w, c: c, oh: oh, ow: ow, kh: 3, kw: 3, sh: s, sw: s, dh: 1, dw: 1, pt: pt, pl: pl)
            x.withUnsafeBufferPointer { X in wt.withUnsafeBufferPointer { W in y.withUnsafeMutableBufferPointer { Y in
                NHWC.depthwise3x3(g, x: X.baseAddress!, w: W.baseAddress!, bias: bias, y: Y.baseAddress!, clamp: (-1, 3))
            } } }
            var worst: Float = 0
            for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<c {
                var v = bias[ch]
                for ky in 0..<3 { for kx in 0..<3 {
                    let iy = oy * s - pt + ky, ix = ox * s - pl + kx
                    if iy >= 0 && iy < h && ix >= 0 && ix < w { v += x[(iy * w + ix) * c + ch] * wt[(ky * 3 + kx) * c + ch] }
                } }
                let got = y[(oy * ow + ox) * c + ch]
                worst = max(worst, got.isNaN ? .infinity : abs(min(3, max(-1, v)) - got))
            } } }
            #expect(worst <= 1e-4, "\(h)×\(w)×\(c) stride \(s) same \(same): max error \(worst)")
        }
    }
}
