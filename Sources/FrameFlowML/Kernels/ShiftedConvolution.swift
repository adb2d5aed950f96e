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
    /// the 16-lane columns useful (below that OpenBLAS on im2col wins).
    static func fits(_ g: NHWC.Window) -> Bool {
        let n = g.oh * planeWidth(g)
        return g.kh * g.kw > 1 && g.pt >= 0 && g.pl >= 0 && 2 * g.oh * g.ow >= (n + 15) / 16 * 16
    }

    /// Columns of a phase plane: the output width plus the widest tap's shift within a phase.
    static func planeWidth(_ g: NHWC.Window) -> Int { g.ow + (g.kw - 1) * g.dw / g.sw }
    /// Rows of a phase plane, likewise.
    static func planeHeight(_ g: NHWC.Window) -> Int { g.oh + (g.kh - 1) * g.dh / g.sh }

    /// Floats of `run`'s phase-plane buffer: the planes, then zeros for the reads past the
    /// last one. `multiplyShifted` reads 48 columns from every block start below n, and the
    /// widest tap's shift reaches the wq − ow dropped columns past the last output row, so
    /// the slack is 48 + wq − ow (48 alone overran by up to kw − 2 floats).
    static func paddedCount(_ g: NHWC.Window) -> Int {
        g.c * g.sh * g.sw * planeHeight(g) * planeWidth(g) + 48 + planeWidth(g) - g.ow
    }

    /// Where tap (ky, kx) of output pixel 0 reads, from the start of its channel's first
    /// phase plane (`plane` floats each): the plane of the tap's phase, then its shift.
    static func tapOffset(_ g: NHWC.Window, ky: Int, kx: Int, plane: Int) -> Int {
        let dy = ky * g.dh, dx = kx * g.dw
        return ((dy % g.sh) * g.sw + dx % g.sw) * plane + dy / g.sh * planeWidth(g) + dx / g.sw
    }

    #if FRAMEFLOW_AVX512
        /// The convolution of one image `x` by `weights` (outputs × K in `layout`'s order), for
        /// `outputs` channels, stored in `layout`: `y[o · oh · ow + oy · ow + ox]` (channels
        /// first, no bias: the caller adds it with its activation) or
        /// `y[(oy · ow + ox) · outputs + o]` (channels last, plus `bias`, clamped to `clamp`, as
        /// the result is transposed).
        static func run(
            _ g: NHWC.Window, layout: Layout, x: UnsafePointer<Float>, weights: UnsafePointer<Float>, outputs: Int, y: UnsafeMutablePointer<Float>,
            bias: UnsafePointer<Float>? = nil, clamp: (Float, Float) = (-.infinity, .infinity)
        ) {
            let (c, sh, sw) = (g.c, g.sh, g.sw)
            let hq = planeHeight(g), wq = planeWidth(g), plane = hq * wq, planes = c * sh * sw
            let K = c * g.kh * g.kw, n = g.oh * wq, P = g.oh * g.ow
            var offsets = [Int](repeating: 0, count: K)
            for ch in 0..<c { for ky in 0..<g.kh { for kx in 0..<g.kw {
                let p = layout == .channelsFirst ? (ch * g.kh + ky) * g.kw + kx : (ky * g.kw + kx) * c + ch
                offsets[p] = ch * sh * sw * plane + tapOffset(g, ky: ky, kx: kx, plane: plane)
            } } }
            var padded = Scratch.uninitialized(paddedCount(g))
            padded.withUnsafeMutableBufferPointer { XP in offsets.withUnsafeBufferPointer { O in
                let xp = XP.baseAddress!
                (xp + planes * plane).update(repeating: 0, count: XP.count - planes * plane)
                fill(g, layout: layout, x: x, into: xp, rows: hq, columns: wq)
                // Blocks of 48 columns, each multiplied into a small buffer and stored while it
                // is in L1 (through a whole-image buffer, BlazeFace's first layer wrote and
                // re-read 400 KB).
                Scratch.parallelFor((n + 47) / 48, work: outputs * K * n) { blocks in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: outputs * 48) { buffer in
                        let cb = buffer.baseAddress!
                        for block in blocks {
                            let j0 = block * 48, j1 = min(n, j0 + 48)
                            Microkernel.multiplyShifted(m: outputs, n: j1 - j0, k: K, a: weights, lda: K, b: xp + j0, offsets: O.baseAddress!, c: cb, ldc: 48)
                            // The block's runs of real pixels (columns ox < ow of each output row).
                            var j = j0
                            while j < j1 {
                                let oy = j / wq, ox = j - oy * wq
                                let count = min(j1, oy * wq + g.ow) - j
                                if count > 0 {
                                    let src = cb + (j - j0), pixel = oy * g.ow + ox
                                    if layout == .channelsFirst {
                                        for o in 0..<outputs { Microkernel.copy(y + o * P + pixel, from: src + o * 48, count: count) }
                                    } else {
                                        transposeRow(src, stride: 48, pixels: count, outputs: outputs, into: y + pixel * outputs, bias: bias, clamp: clamp)
                                    }
                                }
                                j = (oy + 1) * wq
                            }
                        }
                    }
                }
            } }
            Scratch.recycle(&padded)
        }

        /// A depthwise convolution (one filter per channel, `weights` c × kh·kw) of one NCHW
        /// image through the same phase planes: output pixel j of channel ch is the sum over
        /// taps of the weight times the channel's plane of that tap's phase read at j plus
        /// the tap's offset, so each 16-pixel run of a channel is kh·kw vector loads and
        /// multiply-adds with no border tests, for any stride. `y` gets channel-major output
        /// plus `bias`; the caller applies any activation. Against the channels-last path it
        /// replaced on PP-OCR's wide planes, no transposes in and out.
        static func depthwise(
            _ g: NHWC.Window, x: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>
        ) {
            typealias V = SIMD16<Float>
            let (c, sh, sw) = (g.c, g.sh, g.sw)
            let hq = planeHeight(g), wq = planeWidth(g), plane = hq * wq, taps = g.kh * g.kw
            let n = g.oh * wq, P = g.oh * g.ow
            // Each tap's start relative to its channel's first phase plane.
            var offsets = [Int](repeating: 0, count: taps)
            for ky in 0..<g.kh { for kx in 0..<g.kw { offsets[ky * g.kw + kx] = tapOffset(g, ky: ky, kx: kx, plane: plane) } }
            // Slack after the last plane: a channel's last block of 64 reads up to 63 past its n
            // columns, and the widest tap up to (kw − 1)·dw / sw further.
            var padded = Scratch.uninitialized(c * sh * sw * plane + 64 + (g.kw - 1) * g.dw / sw)
            let bf = bias ?? []
            padded.withUnsafeMutableBufferPointer { XP in offsets.withUnsafeBufferPointer { O in bf.withUnsafeBufferPointer { B in
                let xp = XP.baseAddress!, o = O.baseAddress!
                (xp + c * sh * sw * plane).update(repeating: 0, count: XP.count - c * sh * sw * plane)
                fill(g, layout: .channelsFirst, x: x, into: xp, rows: hq, columns: wq)
                Scratch.parallelFor(c, work: c * taps * n, threshold: NHWC.memoryBoundSplit) { channels in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: n + 64) { buffer in
                        let out = buffer.baseAddress!
                        for ch in channels {
                            let base = UnsafeRawPointer(xp + ch * sh * sw * plane), w = weights + ch * taps
                            let b0 = V(repeating: B.isEmpty ? 0 : B[ch])
                            @inline(__always) func ld(_ t: Int, _ j: Int) -> V { base.loadUnaligned(fromByteOffset: (o[t] &+ j) &* 4, as: V.self) }
                            var j = 0
                            // Four runs of 16 at a time: four independent chains of multiply-adds.
                            while j < n {
                                var a0 = b0, a1 = b0, a2 = b0, a3 = b0
                                for t in 0..<taps {
                                    let wv = V(repeating: w[t])
                                    a0.addProduct(wv, ld(t, j))
                                    a1.addProduct(wv, ld(t, j &+ 16))
                                    a2.addProduct(wv, ld(t, j &+ 32))
                                    a3.addProduct(wv, ld(t, j &+ 48))
                                }
                                let d = UnsafeMutableRawPointer(out + j)
                                d.storeBytes(of: a0, as: V.self)
                                d.storeBytes(of: a1, toByteOffset: 64, as: V.self)
                                d.storeBytes(of: a2, toByteOffset: 128, as: V.self)
                                d.storeBytes(of: a3, toByteOffset: 192, as: V.self)
                                j &+= 64
                            }
                            // The output rows: the first ow of each wq columns.
                            let yc = y + ch * P
                            for oy in 0..<g.oh { Microkernel.copy(yc + oy * g.ow, from: out + oy * wq, count: g.ow) }
                        }
                    }
                }
            } } }
            Scratch.recycle(&padded)
        }

        /// `d[i] = s[i · step]` for i < count, as plain scalar moves: unrolled by hand (or as an
        /// enumerated loop) the vectoriser turned it into gather instructions, which on this
        /// machine's CPU cost 2.4 cycles an element (BlazeFace's first layer spent as long filling
        /// its planes as multiplying). Check the disassembly for `vgather` after changing it.
        @inline(never)
        private static func stridedCopy(_ d: UnsafeMutablePointer<Float>, from s: UnsafePointer<Float>, step: Int, count: Int) {
            for i in 0..<count { d[i] = s[i &* step] }
        }

        /// `d[i] = s[2i]` for i < count: sixteen at a time as the even lanes of two 16-float
        /// loads, where the 32 floats lie within the `readable` floats from `s`; the rest by
        /// `stridedCopy`.
        private static func evenCopy(_ d: UnsafeMutablePointer<Float>, from s: UnsafePointer<Float>, count: Int, readable: Int) {
            typealias V = SIMD16<Float>
            var i = 0
            while i &+ 16 <= count && 2 &* i &+ 32 <= readable {
                let lo = UnsafeRawPointer(s + 2 &* i).loadUnaligned(as: V.self), hi = UnsafeRawPointer(s + (2 &* i &+ 16)).loadUnaligned(as: V.self)
                UnsafeMutableRawPointer(d + i).storeBytes(of: V(lowHalf: lo.evenHalf, highHalf: hi.evenHalf), as: V.self)
                i &+= 16
            }
            if i < count { stridedCopy(d + i, from: s + 2 &* i, step: 2, count: count &- i) }
        }

        /// One output row from channel-major `src` (row o at `src + o · stride`) to
        /// pixel-major `dst`, plus bias and clamp: 8 × 8 blocks as eight loads and eight
        /// stores, the rest element by element.
        private static func transposeRow(
            _ src: UnsafePointer<Float>, stride: Int, pixels: Int, outputs: Int, into dst: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?,
            clamp: (Float, Float)
        ) {
            typealias V = SIMD8<Float>
            let lo = V(repeating: clamp.0), hi = V(repeating: clamp.1)
            @inline(__always) func b(_ o: Int) -> Float { bias?[o] ?? 0 }
            @inline(__always) func one(_ v: Float) -> Float { min(max(v, clamp.0), clamp.1) }
            let whole = outputs / 8 * 8
            var x0 = 0
            while x0 + 8 <= pixels {
                for o0 in Swift.stride(from: 0, to: whole, by: 8) {
                    @inline(__always) func row(_ k: Int) -> V { UnsafeRawPointer(src + (o0 + k) * stride + x0).loadUnaligned(as: V.self) }
                    let t = Microkernel.transpose8x8((row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)))
                    let bv = bias.map { UnsafeRawPointer($0 + o0).loadUnaligned(as: V.self) } ?? V()
                    @inline(__always) func put(_ j: Int, _ v: V) {
                        UnsafeMutableRawPointer(dst + (x0 + j) * outputs + o0).storeBytes(of: Microkernel.clamp(v + bv, lo, hi), as: V.self)
                    }
                    put(0, t.0); put(1, t.1); put(2, t.2); put(3, t.3); put(4, t.4); put(5, t.5); put(6, t.6); put(7, t.7)
                }
                for o in whole..<outputs { for j in 0..<8 { dst[(x0 + j) * outputs + o] = one(src[o * stride + x0 + j] + b(o)) } }
                x0 += 8
            }
            for x in x0..<pixels { for o in 0..<outputs { dst[x * outputs + o] = one(src[o * stride + x] + b(o)) } }
        }

        /// The phase planes of `x`, each `rows` × `columns`, zeros outside the image: each
        /// plane zeroed in one pass and the image's rows copied in (zeroing around each row
        /// took as long as PP-OCR's 16 × 24 convolution's product); planes split across threads.
        private static func fill(_ g: NHWC.Window, layout: Layout, x: UnsafePointer<Float>, into xp: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
            let (c, h, w, sh, sw) = (g.c, g.h, g.w, g.sh, g.sw)
            let planes = c * sh * sw, plane = rows * columns
            Scratch.parallelFor(planes, work: planes * plane, threshold: NHWC.memoryBoundSplit) { range in for p in range {
                let ch = p / (sh * sw), ry = p / sw % sh, rx = p % sw
                let dst = xp + p * plane
                dst.update(repeating: 0, count: plane)
                // Plane columns v with an input column v·sw + rx − pl inside the image.
                let inside = Conv.stridedRange(count: columns, stride: sw, offset: rx - g.pl, limit: w)
                if inside.isEmpty { continue }
                let ix0 = inside.lowerBound * sw + rx - g.pl
                // Plane rows u with an input row u·sh + ry − pt inside the image.
                for u in Conv.stridedRange(count: rows, stride: sh, offset: ry - g.pt, limit: h) {
                    let iy = u * sh + ry - g.pt, d = dst + u * columns + inside.lowerBound
                    if layout == .channelsFirst {
                        let s = x + (ch * h + iy) * w + ix0
                        if sw == 1 {
                            Microkernel.copy(d, from: s, count: inside.count)
                        } else if sw == 2 {
                            evenCopy(d, from: s, count: inside.count, readable: c * h * w - ((ch * h + iy) * w + ix0))
                        } else {
                            stridedCopy(d, from: s, step: sw, count: inside.count)
                        }
                    } else {
                        stridedCopy(d, from: x + (iy * w + ix0) * c + ch, step: sw * c, count: inside.count)
                    }
                }
            } }
        }
    #endif
}
