/// A convolution as one matrix product without im2col, output channels × pixels (AVX-512
/// builds; `Microkernel.multiplyShifted`).
///
/// The input is copied once into zero-bordered planes, split by phase for strides above 1:
/// plane (c, ry, rx) holds the bordered input's rows ry, ry + sh, … and columns rx, rx + sw, ….
/// Count the output pixels (oy, ox) as j = oy·wq + ox, wq being a plane's width; then tap
/// (c, ky, kx) of every output pixel is the plane of phase (ky·dh mod sh, kx·dw mod sw) read at
/// j + (ky·dh / sh)·wq + kx·dw / sw — one contiguous run of the plane per tap. So the filter
/// (output channels × K, as the model stores it) times "B", whose row p is the planes seen
/// through tap p's offset, is the convolution, with wq − ow extra columns per output row
/// computed and dropped. Output channels fill the rows of the 8 × 48 tiles and pixels their
/// 16-lane columns: few output channels (PP-OCR's 24, BlazeFace's first layer's 24) waste
/// no lanes, and no im2col is written and read back.
enum ShiftedConvolution {
    /// Where the input's channels are, which is also the order of the filter's K axis:
    /// (c, ky, kx) for NCHW input and OIHW filters (ONNX), (ky, kx, c) for NHWC and OHWI (TFLite).
    enum Layout { case channelsFirst, channelsLast }

    /// Whether this build has the path (an AVX-512 build).
    static var built: Bool {
        #if FRAMEFLOW_AVX512
            return true
        #else
            return false
        #endif
    }

    /// The shapes the path takes: more than one tap, no negative padding, and at least half of
    /// the 16-lane columns useful (PP-OCR's 3 × 3 on 2 × 3 images — 10 columns, 6 of them
    /// pixels — measured 3× slower than OpenBLAS on its im2col).
    static func fits(_ g: NHWC.Window) -> Bool {
        let n = g.oh * planeWidth(g)
        return g.kh * g.kw > 1 && g.pt >= 0 && g.pl >= 0 && 2 * g.oh * g.ow >= (n + 15) / 16 * 16
    }

    static func planeWidth(_ g: NHWC.Window) -> Int { g.ow + (g.kw - 1) * g.dw / g.sw }
    static func planeHeight(_ g: NHWC.Window) -> Int { g.oh + (g.kh - 1) * g.dh / g.sh }

    #if FRAMEFLOW_AVX512
        /// The convolution of one image `x` (no bias) by `weights` (outputs × K in `layout`'s
        /// order), for `outputs` channels, stored in `layout`: `y[o · oh · ow + oy · ow + ox]`
        /// (channels first) or `y[(oy · ow + ox) · outputs + o]` (channels last).
        static func run(
            _ g: NHWC.Window, layout: Layout, x: UnsafePointer<Float>, weights: UnsafePointer<Float>, outputs: Int, y: UnsafeMutablePointer<Float>
        ) {
            let (c, sh, sw) = (g.c, g.sh, g.sw)
            let hq = planeHeight(g), wq = planeWidth(g), plane = hq * wq, planes = c * sh * sw
            let K = c * g.kh * g.kw, n = g.oh * wq, P = g.oh * g.ow
            var offsets = [Int](repeating: 0, count: K)
            for ch in 0..<c { for ky in 0..<g.kh { for kx in 0..<g.kw {
                let dy = ky * g.dh, dx = kx * g.dw
                let p = layout == .channelsFirst ? (ch * g.kh + ky) * g.kw + kx : (ky * g.kw + kx) * c + ch
                offsets[p] = ((ch * sh + dy % sh) * sw + dx % sw) * plane + dy / sh * wq + dx / sw
            } } }
            // 48 floats of slack: the last tile of a row reads up to 47 past it.
            var padded = Scratch.uninitialized(planes * plane + 48), wide = Scratch.uninitialized(outputs * n)
            padded.withUnsafeMutableBufferPointer { XP in wide.withUnsafeMutableBufferPointer { YW in offsets.withUnsafeBufferPointer { O in
                let xp = XP.baseAddress!, yw = YW.baseAddress!
                (xp + planes * plane).update(repeating: 0, count: 48)
                fill(g, layout: layout, x: x, into: xp, rows: hq, columns: wq)
                Scratch.parallelFor((n + 47) / 48, work: outputs * K * n) { blocks in
                    let j0 = blocks.lowerBound * 48, j1 = min(n, blocks.upperBound * 48)
                    Microkernel.multiplyShifted(m: outputs, n: j1 - j0, k: K, a: weights, lda: K, b: xp + j0, offsets: O.baseAddress!, c: yw + j0, ldc: n)
                }
                for oy in 0..<g.oh {
                    if layout == .channelsFirst {
                        for o in 0..<outputs { Microkernel.copy(y + o * P + oy * g.ow, from: yw + o * n + oy * wq, count: g.ow) }
                    } else {
                        Microkernel.transpose(yw + oy * wq, rows: outputs, columns: g.ow, sourceStride: n, into: y + oy * g.ow * outputs, destinationStride: outputs)
                    }
                }
            } } }
            Scratch.recycle(&padded)
            Scratch.recycle(&wide)
        }

        /// The phase planes of `x`, each `rows` × `columns`, zeros outside the image.
        private static func fill(_ g: NHWC.Window, layout: Layout, x: UnsafePointer<Float>, into xp: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
            let (c, h, w, sh, sw) = (g.c, g.h, g.w, g.sh, g.sw)
            for ch in 0..<c { for ry in 0..<sh { for rx in 0..<sw {
                let dst = xp + ((ch * sh + ry) * sw + rx) * rows * columns
                // Plane columns v with an input column v·sw + rx − pl inside the image.
                let inside = Conv.stridedRange(count: columns, stride: sw, offset: rx - g.pl, limit: w)
                for u in 0..<rows {
                    let iy = u * sh + ry - g.pt, d = dst + u * columns
                    guard iy >= 0 && iy < h, !inside.isEmpty else {
                        d.update(repeating: 0, count: columns)
                        continue
                    }
                    d.update(repeating: 0, count: inside.lowerBound)
                    let ix0 = inside.lowerBound * sw + rx - g.pl
                    if layout == .channelsFirst {
                        let s = x + (ch * h + iy) * w + ix0
                        if sw == 1 {
                            Microkernel.copy(d + inside.lowerBound, from: s, count: inside.count)
                        } else {
                            for (i, v) in inside.enumerated() { d[v] = s[i * sw] }
                        }
                    } else {
                        let s = x + (iy * w + ix0) * c + ch
                        for (i, v) in inside.enumerated() { d[v] = s[i * sw * c] }
                    }
                    (d + inside.upperBound).update(repeating: 0, count: columns - inside.upperBound)
                }
            } } }
        }
    #endif
}
