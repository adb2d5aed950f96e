import CFrameFlowKernels
import Foundation
import FrameFlow

/// NHWC float kernels for the TFLite builtins.
enum NHWC {
    static func activation(_ code: UInt8, _ x: inout [Float]) {
        if code == 0 { return }
        x.withUnsafeMutableBufferPointer { p in
            switch code {
            case 1: for i in p.indices { p[i] = max(0, p[i]) }
            case 2: for i in p.indices { p[i] = min(1, max(-1, p[i])) }
            case 3: for i in p.indices { p[i] = min(6, max(0, p[i])) }
            case 4: for i in p.indices { p[i] = tanh(p[i]) }
            default: break
            }
        }
    }

    /// The fused activation as a clamp range, when it is one (all but TANH).
    static func clampRange(_ code: UInt8) -> (Float, Float)? {
        switch code {
        case 1: return (0, .infinity)
        case 2: return (-1, 1)
        case 3: return (0, 6)
        default: return nil
        }
    }

    /// A filter window over an NHWC image: sizes, strides, dilations, padding before.
    struct Window {
        var h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl: Int
        /// A 1 × 1, stride-1 filter over the whole image: the input rows are the im2col rows.
        var readsInputDirectly: Bool { kh == 1 && kw == 1 && sh == 1 && sw == 1 && oh == h && ow == w }
        /// Output columns whose input column under filter column `kx` is inside the image.
        func validColumns(kx: Int) -> Range<Int> {
            Conv.stridedRange(count: ow, stride: sw, offset: kx * dw - pl, limit: w)
        }
        /// Output columns whose input columns under every filter column lie inside the image.
        var innerColumns: Range<Int> { validColumns(kx: 0).clamped(to: validColumns(kx: kw - 1)) }
    }

    /// The work (taps × outputs) from which the depthwise and pooling loops split across
    /// threads: they read each input once per tap from cache and do little arithmetic, so
    /// they pay for a hand-off sooner than matrix products (BlazeFace's 3 × 3 depthwise
    /// layers of 64 × 64 × 24, 0.9 M taps, stayed on one thread under 1 M; its 16 × 16 ones,
    /// 0.15–0.17 M, split since this went from 250 k to 100 k with the matrix products'
    /// 500 k — see `Scratch.parallelFor`).
    static let memoryBoundSplit = 100_000

    /// Max or average pooling of one NHWC image (`ff_pool_rows` at the kernel level), channel
    /// vectors at a time; the average counts only the taps inside the image (TFLite's rule).
    /// Eight channels per vector, the last block overlapping the one before (each block is
    /// computed from the input, so writing a channel twice writes the same value); fewer than
    /// eight channels one by one.
    static func pool(_ g: Window, max isMax: Bool, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        let k = g.kernelWindow(inner: 0..<0)
        Scratch.parallelFor(g.oh, work: g.oh * g.ow * g.c * g.kh * g.kw, threshold: memoryBoundSplit) { band in
            withUnsafePointer(to: k) { ff_pool_rows($0, band.lowerBound, band.upperBound, isMax ? 1 : 0, x, y) }
        }
    }

    /// Depthwise convolution (multiplier 1) of one NHWC image: each tap adds a whole
    /// channel vector, over the output columns where it lands inside the image.
    static func depthwise3(_ g: Window, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>) {
        let c = g.c, rowLen = g.ow * c, taps = g.kh * g.kw
        // Stride 1: a tap's input row segment is contiguous, so with each tap's weights
        // repeated along the row, a tap is one flat multiply-add over (column, channel).
        let flat = g.sw == 1 && g.dw == 1
        var expanded = flat ? Scratch.uninitialized(taps * rowLen) : []
        expanded.withUnsafeMutableBufferPointer { E in
            let e = flat ? E.baseAddress : nil  // an empty array may still have an address
            if let e { for t in 0..<taps { for ox in 0..<g.ow { (e + t * rowLen + ox * c).update(from: w + t * c, count: c) } } }
            Scratch.parallelFor(g.oh, work: g.oh * rowLen * taps) { rows in
                for oy in rows {
                    let yr = y + oy * rowLen
                    if let bias {
                        bias.withUnsafeBufferPointer { B in for ox in 0..<g.ow { (yr + ox * c).update(from: B.baseAddress!, count: c) } }
                    } else {
                        yr.update(repeating: 0, count: rowLen)
                    }
                    for ky in 0..<g.kh {
                        let iy = oy * g.sh - g.pt + ky * g.dh
                        if iy < 0 || iy >= g.h { continue }
                        for kx in 0..<g.kw {
                            let cols = g.validColumns(kx: kx)
                            if cols.isEmpty { continue }
                            if let e {
                                let xr = x + (iy * g.w + kx - g.pl) * c, wr = UnsafePointer(e + (ky * g.kw + kx) * rowLen)
                                for j in (cols.lowerBound * c)..<(cols.upperBound * c) { yr[j] += xr[j] * wr[j] }
                            } else {
                                let wt = w + (ky * g.kw + kx) * c, off = kx * g.dw - g.pl
                                for ox in cols {
                                    let xp = x + (iy * g.w + ox * g.sw + off) * c, yp = yr + ox * c
                                    for ch in 0..<c { yp[ch] += xp[ch] * wt[ch] }
                                }
                            }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&expanded)
    }

    /// Depthwise convolution (multiplier 1, no dilation, any stride, filters up to 8 × 8) of
    /// one NHWC image with at least 8 channels, pixel by pixel (`ff_depthwise_pixels_rows` at
    /// the kernel level): all channels of an output pixel before the next, so that input and
    /// output are read and written in whole cache lines, the weights packed once per call
    /// into channel blocks that stay in L1; neighbouring output columns share their input
    /// loads (four per step at the AVX-512 level, two below). Taps outside the image read
    /// zeros. Bias and a clamp activation are applied before the store.
    @inline(never)
    static func depthwisePixels(
        _ g: Window, x: UnsafePointer<Float>, w: UnsafePointer<Float>, bias: [Float]?, y: UnsafeMutablePointer<Float>, clamp: (Float, Float)?
    ) {
        precondition(
            g.c >= 8 && g.kh <= 8 && g.kw <= 8 && g.dh == 1 && g.dw == 1,
            "depthwisePixels needs 8 or more channels and an undilated filter of at most 8 × 8")
        let k = g.kernelWindow(inner: g.innerColumns)
        let (lo, hi) = clamp ?? (-.infinity, .infinity)
        var pack = packDepthwisePixels(k, w: w, bias: bias)
        pack.withUnsafeMutableBufferPointer { P in
            let packed = P.baseAddress!
            Scratch.parallelFor(g.oh, work: g.oh * g.ow * g.c * g.kh * g.kw, threshold: Self.memoryBoundSplit) { rows in
                withUnsafePointer(to: k) { ff_depthwise_pixels_rows($0, rows.lowerBound, rows.upperBound, x, packed, y, lo, hi) }
            }
        }
        Scratch.recycle(&pack)
    }

    /// A depthwise filter (`kh · kw` taps of `c` floats) and its bias laid out for
    /// `ff_depthwise_pixels_rows` over window `k`, in a pooled array.
    static func packDepthwisePixels(_ k: ff_dw_window, w: UnsafePointer<Float>, bias: [Float]?) -> [Float] {
        var pack = Scratch.uninitialized(withUnsafePointer(to: k) { ff_depthwise_pixels_packed_count($0) })
        pack.withUnsafeMutableBufferPointer { P in
            withUnsafePointer(to: k) { kp in
                if let bias {
                    bias.withUnsafeBufferPointer { ff_depthwise_pixels_pack(kp, w, $0.baseAddress, P.baseAddress!) }
                } else {
                    ff_depthwise_pixels_pack(kp, w, nil, P.baseAddress!)
                }
            }
        }
        return pack
    }

    /// A full convolution of one NHWC image (`g.c` input channels) into `outputs` channels:
    /// bands of output rows over the workers, each in chunks whose im2col rows stay in L1,
    /// multiplied by the packed filter through `Microkernel` (bias, residual, PRELU `slope`
    /// — one per output channel, readable to a multiple of 16 — and clamp in its epilogue) — or, without one, by OpenBLAS with the bias added after (the clamp is
    /// then the caller's). `im2col` holds oh·ow·K floats (nil for a 1×1, stride 1 filter).
    static func convolve(
        _ g: Window, x xb: UnsafePointer<Float>, filter packed: PackedFilter?, weights wAll: UnsafePointer<Float>, bias bf: [Float]?,
        outputs oc: Int, y yAll: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?, residualChannels rc: Int,
        clamp: (Float, Float)?, im2col cAll: UnsafeMutablePointer<Float>?, slope: UnsafePointer<Float>? = nil
    ) {
        let (h, wd, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl) = (g.h, g.w, g.c, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl)
        let K = kh * kw * c, P = oh * ow
        let direct = g.readsInputDirectly
        if let filter = packed, runsInPlace(g) {
            return convolveInPlace(g, x: xb, filter: filter, y: yAll, residual: residual, residualChannels: rc, clamp: clamp, slope: slope)
        }
        if takesShifted(g, residual: residual != nil || slope != nil && clamp != nil) {
            shifted(g, x: xb, weights: wAll, bias: packed.map { Array($0.bias.prefix(oc)) } ?? bf, outputs: oc, y: yAll, clamp: clamp)
            // The PRELU after, over the output just written (face mesh's first layer: 3
            // input channels, whose im2col tiles cost six times the shifted product).
            if let slope { preluRows(yAll, alpha: slope, rows: P, channels: oc, yAll) }
            return
        }
        Scratch.parallelFor(oh, work: P * K * oc) { band in
            // Chunks of output rows whose im2col rows (≤ 32 KB) stay in the L1 cache
            // between being written and being multiplied.
            let chunkRows = direct ? band.count : max(1, 8192 / max(1, ow * K))
            for y0 in stride(from: band.lowerBound, to: band.upperBound, by: chunkRows) {
                let chunk = y0..<min(y0 + chunkRows, band.upperBound)
                var src = xb + y0 * ow * c
                if !direct, let cAll {
                    // im2col, one row per output pixel in the filter's (ky, kx, c) order.
                    // Every chunk of a band reuses the band's first rows of the buffer, so
                    // the rows written are the lines just read (walking the whole oh·ow·K
                    // buffer wrote 1.2 MB of fresh lines per BlazeFace frame).
                    let cp = cAll + band.lowerBound * ow * K
                    for y in chunk {
                        for xo in 0..<ow {
                            var dst = cp + ((y - y0) * ow + xo) * K
                            let ix0 = xo * sw - pl
                            for ky in 0..<kh {
                                let iy = y * sh - pt + ky * dh
                                if dw == 1 && iy >= 0 && iy < h && ix0 >= 0 && ix0 + kw <= wd {
                                    // The filter row lies inside the image: one copy.
                                    Microkernel.copy(dst, from: xb + (iy * wd + ix0) * c, count: kw * c)
                                    dst += kw * c
                                    continue
                                }
                                for kx in 0..<kw {
                                    let ix = xo * sw - pl + kx * dw
                                    if iy < 0 || iy >= h || ix < 0 || ix >= wd {
                                        dst.update(repeating: 0, count: c)
                                    } else {
                                        Microkernel.copy(dst, from: xb + (iy * wd + ix) * c, count: c)
                                    }
                                    dst += c
                                }
                            }
                        }
                    }
                    src = UnsafePointer(cp)
                }
                let rows = chunk.count * ow
                let yb = yAll + y0 * ow * oc
                if let filter = packed {
                    var e = GEMMEpilogue()
                    e.columnSlope = slope
                    if let r = residual {
                        e.residual = r + y0 * ow * rc
                        (e.residualStride, e.residualColumns) = (rc, rc)
                    }
                    filter.apply(rows: rows, a: src, lda: K, c: yb, ldc: oc, epilogue: e, clamp: clamp)
                    continue
                }
                GEMM.multiply(m: rows, n: oc, k: K, a: src, lda: K, b: wAll, ldb: K, transB: true, c: yb, ldc: oc)
                if let bf { for p in 0..<rows { for f in 0..<oc { yb[p * oc + f] += bf[f] } } }
            }
        }
    }

    /// `ShiftedConvolution` on one NHWC image (bias and clamp added as its channel-major
    /// result is transposed to NHWC), for layers whose few output channels would leave
    /// the im2col tiles part empty.
    static func shifted(
        _ g: Window, x: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: [Float]?, outputs oc: Int, y: UnsafeMutablePointer<Float>,
        clamp: (Float, Float)?
    ) {
        (bias ?? []).withUnsafeBufferPointer { B in
            ShiftedConvolution.run(
                g, layout: .channelsLast, x: x, weights: weights, outputs: oc, y: y, bias: B.isEmpty ? nil : B.baseAddress,
                clamp: clamp ?? (-.infinity, .infinity))
        }
    }

    /// Floats of im2col buffer `convolve` needs for `g` (none for a 1 × 1, stride-1 filter,
    /// or where it runs without im2col); a buffer taken for nothing cost PP-OCR's first 3 × 3
    /// layer the zeroing of 1.3 MB as the pool grew an array to that size.
    static func im2colCount(_ g: Window, packed: Bool, residual: Bool = false) -> Int {
        g.readsInputDirectly || packed && runsInPlace(g) || takesShifted(g, residual: residual) ? 0 : g.oh * g.ow * g.kh * g.kw * g.c
    }

    /// Whether `convolve` runs `shifted` (kernels at AVX-512, no fused residual, nor a PRELU
    /// before a clamp).
    static func takesShifted(_ g: Window, residual: Bool) -> Bool {
        ShiftedConvolution.built && !residual && ShiftedConvolution.fits(g)
    }

    /// Whether `convolve` with a packed filter runs `convolveInPlace` (kernels at AVX-512, whose
    /// 16-lane tiles it calls): where a filter row's run is long enough to pay for adding to C
    /// once per filter row.
    static func runsInPlace(_ g: Window) -> Bool {
        Microkernel.wide && !g.readsInputDirectly && g.dw == 1 && g.ow >= 8 && g.kw * g.c >= 64
    }

    /// A convolution without im2col (filters whose taps along a row are adjacent, `dw`
    /// = 1): the input is copied once into a zero-bordered NHWC buffer, where the `kw · c`
    /// values one filter row sees for output pixel (y, x) are one contiguous run, and the
    /// run for (y, x + 1) starts `sw · c` floats later. So for each filter row `ky` the
    /// input itself is a matrix A (row stride `sw · c`) and the output row is the sum over
    /// `ky` of A·(that row's slice of the packed filter) — one `multiplyRows` call each,
    /// adding to the output, the epilogue on the last. im2col wrote and re-read K floats
    /// per output pixel (PP-OCR's 3 × 3 convolutions of 96 channels: 864, 1.3 MB per
    /// layer, more than L1 holds between writing and reading).
    static func convolveInPlace(
        _ g: Window, x xb: UnsafePointer<Float>, filter: PackedFilter, y yAll: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
        residualChannels rc: Int, clamp: (Float, Float)?, slope: UnsafePointer<Float>? = nil
    ) {
        let (h, wd, c, oh, ow, kh, kw, sh, sw, dh, pt, pl) = (g.h, g.w, g.c, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.pt, g.pl)
        let oc = filter.outputs, K = kh * kw * c
        // The bordered input: every tap of every output pixel lies inside it.
        let hp = max(pt + h, (oh - 1) * sh + (kh - 1) * dh + 1), wp = max(pl + wd, (ow - 1) * sw + kw)
        var padded = Scratch.filled(hp * wp * c)
        padded.withUnsafeMutableBufferPointer { PB in
            let pp = PB.baseAddress!
            for y in 0..<h where y + pt >= 0 && y + pt < hp {
                // Columns that fall inside the buffer (a negative padding crops).
                let x0 = max(0, -pl), x1 = min(wd, wp - pl)
                if x1 > x0 { (pp + ((y + pt) * wp + x0 + pl) * c).update(from: xb + (y * wd + x0) * c, count: (x1 - x0) * c) }
            }
            let p = UnsafePointer(pp)
            filter.weights.withUnsafeBufferPointer { W in
                filter.bias.withUnsafeBufferPointer { B in
                    var last = GEMMEpilogue()
                    last.columnBias = B.baseAddress
                    last.columnSlope = slope
                    if let clamp { (last.lower, last.upper) = clamp }
                    if residual != nil { (last.residualStride, last.residualColumns) = (rc, rc) }
                    Scratch.parallelFor(oh, work: oh * ow * K * oc) { band in
                        for oy in band {
                            var e = last
                            e.residual = residual.map { $0 + oy * ow * rc }
                            for ky in 0..<kh {
                                let row = p + ((oy * sh + ky * dh) * wp) * c
                                Microkernel.multiplyRows(
                                    m: ow, n: oc, k: kw * c, a: row, lda: sw * c, b: W.baseAddress! + ky * kw * c * 16, panelK: K,
                                    c: yAll + oy * ow * oc, ldc: oc, epilogue: ky == kh - 1 ? e : GEMMEpilogue(), accumulate: ky > 0)
                            }
                        }
                    }
                }
            }
        }
        Scratch.recycle(&padded)
    }

    /// TF's SAME/VALID padding: (output size, padding before).
    static func padding(_ same: Bool, _ inSize: Int, _ k: Int, _ stride: Int, _ dil: Int) -> (Int, Int) {
        let ek = (k - 1) * dil + 1
        if same {
            let out = (inSize + stride - 1) / stride
            let total = max((out - 1) * stride + ek - inSize, 0)
            return (out, total / 2)
        }
        return ((inSize - ek) / stride + 1, 0)
    }
}
