import Foundation
import FrameFlow

extension NHWC {
    /// Depthwise convolution (multiplier 1, no dilation, any stride) of one NHWC image with
    /// at least 8 channels and any filter size — the 5 × 5 filters of MediaPipe's palm
    /// detector and BlazeFace (the TFLite ops send 3 × 3 to `depthwise3x3`, faster on every
    /// such layer measured). One channel block (16 lanes under AVX-512
    /// with 16 or more channels, else 8: `depthwiseBlocks8`) of one output row at a time, eight
    /// output columns per step with their own accumulators: each tap's weight vector is
    /// loaded once for the eight, and at stride 1 the eight columns' inputs under one filter
    /// row are the same `8 + kw - 1` vectors, which the unrolled 3 × 3 and 5 × 5 bodies load
    /// once. The last channel block overlaps the one before when the channel count is not a
    /// multiple of the lanes (channels are independent: the overlap writes the same values
    /// twice). Filter rows outside the image are skipped; at the left and right borders each
    /// column sums only the filter columns inside the image. Bias and a clamp activation are
    /// applied before the store.
    @inline(never)
    static func depthwiseBlocks(_ g: Window, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, clamp: (Float, Float)?) {
        precondition(g.c >= 8 && g.dh == 1 && g.dw == 1, "depthwiseBlocks needs 8 or more channels and no dilation")
        if g.c < DepthwiseLanes.scalarCount { return depthwiseBlocks8(g, x: x, w: w, bias: bias, y: y, clamp: clamp) }
        (bias ?? []).withUnsafeBufferPointer { B in
            let b = B.isEmpty ? nil : B.baseAddress
            let lo = DepthwiseLanes(repeating: clamp?.0 ?? -.infinity), hi = DepthwiseLanes(repeating: clamp?.1 ?? .infinity)
            // Each row's body inlined with the filter size a constant for 3 × 3 and 5 × 5,
            // so that the compiler unrolls the taps.
            Scratch.parallelFor(g.oh, work: g.oh * g.ow * g.c * g.kh * g.kw, threshold: Self.memoryBoundSplit) { rows in
                for oy in rows {
                    switch (g.kh, g.kw) {
                    case (3, 3): depthwiseRow(g, oy: oy, kh: 3, kw: 3, x: x, w: w, bias: b, y: y, lo: lo, hi: hi)
                    case (5, 5): depthwiseRow(g, oy: oy, kh: 5, kw: 5, x: x, w: w, bias: b, y: y, lo: lo, hi: hi)
                    default: depthwiseRow(g, oy: oy, kh: g.kh, kw: g.kw, x: x, w: w, bias: b, y: y, lo: lo, hi: hi)
                    }
                }
            }
        }
    }

    /// The lanes of one channel block of `depthwiseBlocks`: a whole 64-byte line under
    /// AVX-512 (the channel counts of MediaPipe's models are multiples of 16 but for 24).
    #if FRAMEFLOW_AVX512
        typealias DepthwiseLanes = SIMD16<Float>
    #else
        typealias DepthwiseLanes = SIMD8<Float>
    #endif

    /// One output row of `depthwiseBlocks`, every channel block.
    @inline(__always)
    private static func depthwiseRow(
        _ g: Window, oy: Int, kh: Int, kw: Int, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: UnsafePointer<Float>?,
        y: UnsafeMutablePointer<Float>, lo: DepthwiseLanes, hi: DepthwiseLanes
    ) {
        typealias V = DepthwiseLanes
        @inline(__always) func ld(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        @inline(__always) func st(_ p: UnsafeMutablePointer<Float>, _ v: V) {
            let a = v.replacing(with: lo, where: v .< lo)
            UnsafeMutableRawPointer(p).storeBytes(of: a.replacing(with: hi, where: a .> hi), as: V.self)
        }
        let n = V.scalarCount, c = g.c, sc = g.sw &* c
        // Output columns whose input columns under every filter column lie inside the image.
        let valid = g.validColumns(kx: 0).clamped(to: g.validColumns(kx: kw - 1))
        let inner = valid.isEmpty ? 0..<0 : valid
        let iy0 = oy &* g.sh &- g.pt
        let ky0 = max(0, -iy0), ky1 = min(kh, g.h &- iy0)
        let yr = y + oy &* g.ow &* c
        var ch = 0
        while ch < c {
            if ch &+ n > c { ch = c &- n }  // the last block overlaps the one before
            let b0 = bias.map { ld($0 + ch) } ?? V()
            // Input of filter row 0, filter column 0, output column 0 (may lie outside the image).
            let x0 = x + ((iy0 &* g.w &- g.pl) &* c &+ ch), w0 = w + ch
            var ox = inner.lowerBound
            while ox &+ 8 <= inner.upperBound {
                var a0 = b0, a1 = b0, a2 = b0, a3 = b0, a4 = b0, a5 = b0, a6 = b0, a7 = b0
                for ky in ky0..<ky1 {
                    let xr = x0 + (ky &* g.w &+ ox &* g.sw) &* c, wr = w0 + ky &* kw &* c
                    for kx in 0..<kw {
                        let wv = ld(wr + kx &* c), xp = xr + kx &* c
                        a0.addProduct(ld(xp), wv)
                        a1.addProduct(ld(xp + sc), wv)
                        a2.addProduct(ld(xp + 2 &* sc), wv)
                        a3.addProduct(ld(xp + 3 &* sc), wv)
                        a4.addProduct(ld(xp + 4 &* sc), wv)
                        a5.addProduct(ld(xp + 5 &* sc), wv)
                        a6.addProduct(ld(xp + 6 &* sc), wv)
                        a7.addProduct(ld(xp + 7 &* sc), wv)
                    }
                }
                let yp = yr + ox &* c + ch
                st(yp, a0); st(yp + c, a1); st(yp + 2 &* c, a2); st(yp + 3 &* c, a3)
                st(yp + 4 &* c, a4); st(yp + 5 &* c, a5); st(yp + 6 &* c, a6); st(yp + 7 &* c, a7)
                ox &+= 8
            }
            while ox &+ 4 <= inner.upperBound {
                var a0 = b0, a1 = b0, a2 = b0, a3 = b0
                for ky in ky0..<ky1 {
                    let xr = x0 + (ky &* g.w &+ ox &* g.sw) &* c, wr = w0 + ky &* kw &* c
                    for kx in 0..<kw {
                        let wv = ld(wr + kx &* c), xp = xr + kx &* c
                        a0.addProduct(ld(xp), wv)
                        a1.addProduct(ld(xp + sc), wv)
                        a2.addProduct(ld(xp + 2 &* sc), wv)
                        a3.addProduct(ld(xp + 3 &* sc), wv)
                    }
                }
                let yp = yr + ox &* c + ch
                st(yp, a0); st(yp + c, a1); st(yp + 2 &* c, a2); st(yp + 3 &* c, a3)
                ox &+= 4
            }
            // The columns left over inside, then the border columns with the filter columns
            // that fall inside the image.
            for col in ox..<(g.ow &+ inner.lowerBound) {
                let ox = col < g.ow ? col : col &- g.ow  // past the right border: the left one
                let ix0 = ox &* g.sw &- g.pl
                let kx0 = max(0, -ix0), kx1 = min(kw, g.w &- ix0)
                var a = b0, b = V()
                for ky in ky0..<ky1 {
                    let xr = x0 + (ky &* g.w &+ ox &* g.sw) &* c, wr = w0 + ky &* kw &* c
                    var kx = kx0
                    while kx &+ 2 <= kx1 {
                        a.addProduct(ld(xr + kx &* c), ld(wr + kx &* c))
                        b.addProduct(ld(xr + (kx &+ 1) &* c), ld(wr + (kx &+ 1) &* c))
                        kx &+= 2
                    }
                    if kx < kx1 { a.addProduct(ld(xr + kx &* c), ld(wr + kx &* c)) }
                }
                st(yr + ox &* c + ch, a + b)
            }
            ch &+= n
        }
    }

    /// `depthwiseBlocks` for 8 to 15 channels under AVX-512: 8 channels at a time, four output
    /// columns with their own accumulators, each tap's weight vector loaded once for the
    /// four. The last channel block overlaps the one before when the channel count is not a
    /// multiple of 8 (channels are independent: the overlap writes the same values twice).
    /// Rows of the filter outside the image are skipped; columns outside it are handled at
    /// the borders tap by tap. Bias and a clamp activation are applied before the store.
    @inline(never)
    static func depthwiseBlocks8(_ g: Window, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, clamp: (Float, Float)?) {
        typealias V = SIMD8<Float>
        let c = g.c, kw = g.kw, sc = g.sw * c
        let lo = V(repeating: clamp?.0 ?? -.infinity), hi = V(repeating: clamp?.1 ?? .infinity)
        // Output columns whose input columns under every filter column lie inside the image.
        let inner = g.validColumns(kx: 0).clamped(to: g.validColumns(kx: kw - 1))
        @inline(__always) func ld(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        let blocks = (c + 7) / 8
        Scratch.parallelFor(g.oh, work: g.oh * g.ow * c * g.kh * kw, threshold: Self.memoryBoundSplit) { rows in
            for oy in rows {
                let iy0 = oy * g.sh - g.pt
                let kys = max(0, -iy0)..<min(g.kh, g.h - iy0)
                for blk in 0..<blocks {
                    let ch = min(blk * 8, c - 8)
                    let b0 = bias.map { b in b.withUnsafeBufferPointer { ld($0.baseAddress! + ch) } } ?? V()
                    let yr = y + oy * g.ow * c + ch
                    var ox = inner.lowerBound
                    while ox + 4 <= inner.upperBound {
                        var a0 = b0, a1 = b0, a2 = b0, a3 = b0
                        for ky in kys {
                            let xr = x + ((iy0 + ky) * g.w + ox * g.sw - g.pl) * c + ch, wr = w + ky * kw * c + ch
                            for kx in 0..<kw {
                                let wv = ld(wr + kx * c), xp = xr + kx * c
                                a0.addProduct(ld(xp), wv)
                                a1.addProduct(ld(xp + sc), wv)
                                a2.addProduct(ld(xp + 2 * sc), wv)
                                a3.addProduct(ld(xp + 3 * sc), wv)
                            }
                        }
                        let yp = UnsafeMutableRawPointer(yr + ox * c), step = c * 4
                        yp.storeBytes(of: Microkernel.clamp(a0, lo, hi), as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(a1, lo, hi), toByteOffset: step, as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(a2, lo, hi), toByteOffset: 2 * step, as: V.self)
                        yp.storeBytes(of: Microkernel.clamp(a3, lo, hi), toByteOffset: 3 * step, as: V.self)
                        ox += 4
                    }
                    // The columns left over and the border columns, tap by tap.
                    let done = inner.lowerBound..<(inner.lowerBound + inner.count / 4 * 4)
                    for ox in 0..<g.ow where !done.contains(ox) {
                        var a = b0
                        for ky in kys {
                            let xr = x + (iy0 + ky) * g.w * c + ch, wr = w + ky * kw * c + ch
                            for kx in 0..<kw {
                                let ix = ox * g.sw - g.pl + kx
                                if ix < 0 || ix >= g.w { continue }
                                a.addProduct(ld(xr + ix * c), ld(wr + kx * c))
                            }
                        }
                        UnsafeMutableRawPointer(yr + ox * c).storeBytes(of: Microkernel.clamp(a, lo, hi), as: V.self)
                    }
                }
            }
        }
    }
}
