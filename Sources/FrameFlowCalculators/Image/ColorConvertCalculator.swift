import CFrameFlowKernels
import FrameFlow

/// Converts images between gray8, rgb8, rgba8, bgra8, nv12 and i420 (full and video range,
/// BT.601 or BT.709): the conversions a camera-to-screen path needs.
///
/// YUV → RGB uses the matrix's equations on range-normalized samples
/// (video range: Y' = (Y−16)·255/219, C' = (C−128)·255/224), in 14-bit fixed point; RGB → YUV
/// averages chroma over each 2×2 block. Gray from colour uses the matrix's luma weights
/// (BT.601: 0.299, 0.587, 0.114, as OpenCV's `RGB2GRAY`). Alpha is kept between packed
/// formats and set to 255 where there was none.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame`.
/// Outputs:
///   - `IMAGE`: `ImageFrame` in `output_format`.
/// Options: `frameflow.ColorConvertCalculatorOptions` { output_format ("rgba8"; also "nv12",
/// "nv12_video", "i420", "i420_video", "gray8", "rgb8", "bgra8"), matrix (BT601 | BT709) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ColorConvertCalculator"
///   input_stream: "IMAGE:camera_nv12"
///   output_stream: "IMAGE:camera_rgba"
///   options { [frameflow.ColorConvertCalculatorOptions.ext] { output_format: "rgba8" matrix: BT601 } }
/// }
/// ```
public final class ColorConvertCalculator: ImageFilterCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.ColorConvertCalculatorOptions"
        public var outputFormat = "rgba8"
        public var matrix = YUVMatrix.bt601
        public init() {}
        public init(outputFormat: String, matrix: YUVMatrix = .bt601) {
            self.outputFormat = outputFormat
            self.matrix = matrix
        }

        /// `output_format` names a byte format (checked when the graph is built, so that
        /// `frameflow validate` refuses what the run would).
        public func validate() throws { _ = try target() }

        /// The format `output_format` names.
        func target() throws -> PixelFormat {
            guard let f = PixelFormat(name: outputFormat), f != .grayFloat32, f != .rgbaFloat32 else {
                throw GraphError(
                    .invalidOption, "output_format '\(outputFormat)' is not one of gray8, rgb8, rgba8, bgra8, nv12, nv12_video, i420, i420_video")
            }
            return f
        }
    }

    private var target: PixelFormat
    private var matrix: YUVMatrix

    public init(options: Options) throws {
        target = try options.target()
        matrix = options.matrix
    }

    public func update(options: Options) throws {
        let c = try ColorConvertCalculator(options: options)
        target = c.target
        matrix = c.matrix
    }

    public func filter(_ image: ImageFrame, context cc: CalculatorContext) throws -> ImageFrame? {
        try Self.convert(image, to: target, matrix: matrix, pool: cc.pool, context: cc)
    }

    /// Converts `input` to `target`. `context` (optional) spreads rows over the workers.
    public static func convert(
        _ input: ImageFrame, to target: PixelFormat, matrix: YUVMatrix = .bt601, pool: ImagePool = .shared,
        context: CalculatorContext? = nil
    ) throws -> ImageFrame {
        if input.format == target { return input }
        // Float images (masks, tensors) and the like have no byte layout to convert.
        for f in [input.format, target] where f.yuvRange == nil && Kernels.layout(f) == nil {
            throw ImageError.unsupportedFormat(f, "colour conversion to \(target)")
        }
        var out = try pool.makeImage(width: input.width, height: input.height, format: target)
        switch (input.format.yuvRange, target.yuvRange) {
        case (nil, nil): packedToPacked(input, &out, matrix, context)
        case (let r?, nil): try yuvToPacked(input, r, &out, matrix, context)
        case (nil, let r?): try packedToYUV(input, &out, r, matrix, context)
        case (let a?, let b?): yuvToYUV(input, a, &out, b)
        }
        return out.freeze()
    }

    // MARK: Packed ↔ packed

    typealias Layout = (r: Int, g: Int, b: Int, a: Int, bpp: Int)

    private static func packedToPacked(_ input: ImageFrame, _ out: inout MutableImageFrame, _ m: YUVMatrix, _ cc: CalculatorContext?) {
        let s = Kernels.layout(input.format)!, d = Kernels.layout(out.format)!
        let w = input.width
        let (kr, kb) = m.weights
        let wr = Int32(saturating: (kr * 16384).rounded()), wb = Int32(saturating: (kb * 16384).rounded()), wg = 16384 - wr - wb
        let o = out
        Kernels.rows(input.height, cc) { rows in
            for y in rows {
                let sp = UnsafePointer(Kernels.rowPointer(input, y)), dp = Kernels.rowPointer(o, y)
                // Each pair of formats with its layouts written out, so that the inlined loop
                // has constant offsets and strides and vectorises.
                switch (input.format, o.format) {
                case (.rgba8, .bgra8): repackRow(sp, dp, w, (0, 1, 2, 3, 4), (2, 1, 0, 3, 4))
                case (.bgra8, .rgba8): repackRow(sp, dp, w, (2, 1, 0, 3, 4), (0, 1, 2, 3, 4))
                case (.rgba8, .rgb8): repackRow(sp, dp, w, (0, 1, 2, 3, 4), (0, 1, 2, -1, 3))
                case (.bgra8, .rgb8): repackRow(sp, dp, w, (2, 1, 0, 3, 4), (0, 1, 2, -1, 3))
                case (.rgb8, .rgba8): repackRow(sp, dp, w, (0, 1, 2, -1, 3), (0, 1, 2, 3, 4))
                case (.rgb8, .bgra8): repackRow(sp, dp, w, (0, 1, 2, -1, 3), (2, 1, 0, 3, 4))
                case (.gray8, .rgba8), (.gray8, .bgra8): repackRow(sp, dp, w, (0, 0, 0, -1, 1), (0, 1, 2, 3, 4))
                case (.gray8, .rgb8): repackRow(sp, dp, w, (0, 0, 0, -1, 1), (0, 1, 2, -1, 3))
                case (.rgba8, .gray8): lumaRow(sp, dp, w, (0, 1, 2, 3, 4), wr, wg, wb)
                case (.bgra8, .gray8): lumaRow(sp, dp, w, (2, 1, 0, 3, 4), wr, wg, wb)
                case (.rgb8, .gray8): lumaRow(sp, dp, w, (0, 1, 2, -1, 3), wr, wg, wb)
                default:
                    // Not reached with today's packed formats; kept for any added later.
                    if d.bpp == 1 { lumaRow(sp, dp, w, s, wr, wg, wb) } else { repackRow(sp, dp, w, s, d) }
                }
            }
        }
    }

    /// One row from layout `s` to layout `d` (a missing alpha becomes 255).
    @inline(__always)
    static func repackRow(_ sp: UnsafePointer<UInt8>, _ dp: UnsafeMutablePointer<UInt8>, _ w: Int, _ s: Layout, _ d: Layout) {
        for x in 0..<w {
            let p = sp + x &* s.bpp, q = dp + x &* d.bpp
            q[d.r] = p[s.r]
            q[d.g] = p[s.g]
            q[d.b] = p[s.b]
            if d.a >= 0 { q[d.a] = s.a >= 0 ? p[s.a] : 255 }
        }
    }

    /// One row of luma (weights in Q14) from layout `s`.
    @inline(__always)
    static func lumaRow(_ sp: UnsafePointer<UInt8>, _ dp: UnsafeMutablePointer<UInt8>, _ w: Int, _ s: Layout, _ wr: Int32, _ wg: Int32, _ wb: Int32) {
        for x in 0..<w {
            let p = sp + x &* s.bpp
            let l = (wr &* Int32(p[s.r]) &+ wg &* Int32(p[s.g]) &+ wb &* Int32(p[s.b]) &+ 8192) >> 14
            dp[x] = UInt8(truncatingIfNeeded: l)
        }
    }

    // MARK: YUV → packed

    /// Fixed-point (14-bit) YUV → RGB coefficients for a range and matrix.
    struct YUVToRGB {
        let yOffset: Int32, yScale: Int32, crR: Int32, cbG: Int32, crG: Int32, cbB: Int32

        init(_ range: YUVRange, _ m: YUVMatrix) {
            let (kr, kb) = m.weights
            let kg = 1 - kr - kb
            let ys = range == .video ? 255.0 / 219 : 1
            let cs = range == .video ? 255.0 / 224 : 1
            yOffset = range == .video ? 16 : 0
            yScale = Int32(saturating: (ys * 16384).rounded())
            crR = Int32(saturating: (2 * (1 - kr) * cs * 16384).rounded())
            cbB = Int32(saturating: (2 * (1 - kb) * cs * 16384).rounded())
            cbG = Int32(saturating: (2 * (1 - kb) * kb / kg * cs * 16384).rounded())
            crG = Int32(saturating: (2 * (1 - kr) * kr / kg * cs * 16384).rounded())
        }

        /// The same coefficients for 16-bit lanes (`ff_yuv420_rows_to_rgbx`): luma scale in Q14,
        /// chroma coefficients in Q13 (BT.709 video range's 2.11 for Cb → B needs the room).
        var wide16: (yOffset: Int16, yScale: Int16, crR: Int16, cbG: Int16, crG: Int16, cbB: Int16) {
            @inline(__always) func q13(_ q14: Int32) -> Int16 { Int16(truncatingIfNeeded: (q14 &+ 1) >> 1) }
            return (Int16(truncatingIfNeeded: yOffset), Int16(truncatingIfNeeded: yScale), q13(crR), q13(cbG), q13(crG), q13(cbB))
        }

        /// One pixel's R, G, B (the odd last column in `rowsToRGBA`; the vector loop in
        /// `ff_yuv420_rows_to_rgbx` shares the chroma terms between four pixels but computes the same sums).
        @inline(__always) func rgb(_ y: UInt8, _ u: UInt8, _ v: UInt8) -> (r: UInt8, g: UInt8, b: UInt8) {
            let yy = (Int32(y) &- yOffset) &* yScale &+ 8192, u = Int32(u) &- 128, v = Int32(v) &- 128
            return (
                Kernels.clamp255((yy &+ crR &* v) >> 14), Kernels.clamp255((yy &- cbG &* u &- crG &* v) >> 14),
                Kernels.clamp255((yy &+ cbB &* u) >> 14)
            )
        }
    }

    private static func yuvToPacked(_ input: ImageFrame, _ range: YUVRange, _ out: inout MutableImageFrame, _ m: YUVMatrix, _ cc: CalculatorContext?)
        throws
    {
        let c = YUVToRGB(range, m)
        let d = Kernels.layout(out.format)!
        let w = input.width
        let nv12: Bool
        if case .nv12 = input.format { nv12 = true } else { nv12 = false }
        let o = out
        // The packed targets: rgba8 and bgra8 (alpha in byte 3), rgb8, gray8.
        if d.bpp >= 3 {
            // Two luma rows per chroma row: the chroma terms are computed once for both. rgb8
            // goes through the RGBA kernel into a scratch pair of rows, then is repacked.
            let h = input.height
            Kernels.rows((h + 1) / 2, cc, grain: 8) { pairs in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: d.bpp == 3 ? 8 * w + 64 : 0) { scratch in
                    for cy in pairs {
                        let y0 = 2 * cy, y1 = min(y0 + 1, h - 1)
                        let up = Kernels.rowPointer(input, cy, plane: 1)
                        let vp = nv12 ? up + 1 : Kernels.rowPointer(input, cy, plane: 2)
                        let (l0, l1) = (Kernels.rowPointer(input, y0), Kernels.rowPointer(input, y1))
                        if d.bpp == 4 {
                            rowsToRGBA(l0, l1, up, vp, nv12 ? 2 : 1, Kernels.rowPointer(o, y0), Kernels.rowPointer(o, y1), w, c, bgr: d.r == 2)
                            continue
                        }
                        let s0 = scratch.baseAddress!, s1 = s0 + 4 * w
                        rowsToRGBA(l0, l1, up, vp, nv12 ? 2 : 1, s0, s1, w, c, bgr: false)
                        repackRow(UnsafePointer(s0), Kernels.rowPointer(o, y0), w, (0, 1, 2, 3, 4), (0, 1, 2, -1, 3))
                        if y1 != y0 { repackRow(UnsafePointer(s1), Kernels.rowPointer(o, y1), w, (0, 1, 2, 3, 4), (0, 1, 2, -1, 3)) }
                    }
                }
            }
            return
        }
        // gray8: the luma plane rescaled, a loop over bytes.
        Kernels.rows(input.height, cc) { rows in
            for y in rows {
                let yp = Kernels.rowPointer(input, y), dp = Kernels.rowPointer(o, y)
                for x in 0..<w { dp[x] = Kernels.clamp255(((Int32(yp[x]) &- c.yOffset) &* c.yScale &+ 8192) >> 14) }
            }
        }
    }

    /// Two output rows (`y0`, `y1`; the same row twice for an odd last row) from one chroma
    /// row: each chroma sample's three terms serve a 2×2 block.
    private static func rowsToRGBA(
        _ y0: UnsafeMutablePointer<UInt8>, _ y1: UnsafeMutablePointer<UInt8>, _ up: UnsafeMutablePointer<UInt8>,
        _ vp: UnsafeMutablePointer<UInt8>, _ cstep: Int, _ d0: UnsafeMutablePointer<UInt8>, _ d1: UnsafeMutablePointer<UInt8>,
        _ w: Int, _ c: YUVToRGB, bgr: Bool
    ) {
        let (o0, o1) = (UnsafeMutableRawPointer(d0), UnsafeMutableRawPointer(d1))
        let k = c.wide16
        withUnsafePointer(to: k) { kp in
            kp.withMemoryRebound(to: Int16.self, capacity: 6) {
                ff_yuv420_rows_to_rgbx(y0, y1, up, cstep == 2 ? up + 1 : vp, cstep, d0, d1, w / 2, $0, bgr ? 1 : 0)
            }
        }
        if w % 2 == 1 {
            // The odd last column, pixel by pixel.
            let x = w - 1, ci = (x >> 1) &* cstep
            let (rs, bs): (UInt32, UInt32) = bgr ? (16, 0) : (0, 16)
            @inline(__always) func put(_ yp: UnsafeMutablePointer<UInt8>, _ out: UnsafeMutableRawPointer) {
                let p = c.rgb(yp[x], up[ci], vp[ci])
                let word = 0xFF00_0000 | (UInt32(p.r) << rs) | (UInt32(p.g) << 8) | (UInt32(p.b) << bs)
                out.storeBytes(of: word, toByteOffset: 4 &* x, as: UInt32.self)
            }
            put(y0, o0)
            put(y1, o1)
        }
    }

    // MARK: Packed → YUV

    private static func packedToYUV(_ input: ImageFrame, _ out: inout MutableImageFrame, _ range: YUVRange, _ m: YUVMatrix, _ cc: CalculatorContext?)
        throws
    {
        let s = Kernels.layout(input.format)!
        let k = RGBToYUV(range, m)
        let w = input.width, h = input.height
        let nv12: Bool
        if case .nv12 = out.format { nv12 = true } else { nv12 = false }
        let o = out
        Kernels.rows((h + 1) / 2, cc, grain: 8) { pairs in
            for cy in pairs {
                for y in (2 * cy)..<Swift.min(2 * cy + 2, h) {
                    let sp = UnsafePointer(Kernels.rowPointer(input, y)), yp = Kernels.rowPointer(o, y)
                    // The layouts written out, so that the inlined loops have constant offsets
                    // instead of reading them at run time.
                    switch input.format {
                    case .rgba8: yuvLumaRow(sp, yp, w, (0, 1, 2, 3, 4), k)
                    case .bgra8: yuvLumaRow(sp, yp, w, (2, 1, 0, 3, 4), k)
                    case .rgb8: yuvLumaRow(sp, yp, w, (0, 1, 2, -1, 3), k)
                    default: yuvLumaRow(sp, yp, w, s, k)
                    }
                }
                let up = Kernels.rowPointer(o, cy, plane: 1)
                let vp = nv12 ? up + 1 : Kernels.rowPointer(o, cy, plane: 2)
                let step = nv12 ? 2 : 1
                // Whole 2 × 2 blocks: the mean as (sum + 2) / 4.
                let full = 2 * cy + 1 < h ? w / 2 : 0
                if full > 0 {
                    let s0 = UnsafePointer(Kernels.rowPointer(input, 2 * cy)), s1 = UnsafePointer(Kernels.rowPointer(input, 2 * cy + 1))
                    switch (input.format, nv12) {
                    case (.rgba8, true): chromaRow(s0, s1, up, up + 1, 2, full, (0, 1, 2, 3, 4), k)
                    case (.rgba8, false): chromaRow(s0, s1, up, vp, 1, full, (0, 1, 2, 3, 4), k)
                    case (.bgra8, true): chromaRow(s0, s1, up, up + 1, 2, full, (2, 1, 0, 3, 4), k)
                    case (.bgra8, false): chromaRow(s0, s1, up, vp, 1, full, (2, 1, 0, 3, 4), k)
                    default: chromaRow(s0, s1, up, vp, step, full, s, k)
                    }
                }
                for cx in full..<((w + 1) / 2) {
                    var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0, n: Int32 = 0
                    for y in (2 * cy)..<Swift.min(2 * cy + 2, h) {
                        let sp = Kernels.rowPointer(input, y)
                        for x in (2 * cx)..<Swift.min(2 * cx + 2, w) {
                            let p = sp + x &* s.bpp
                            r &+= Int32(p[s.r]); g &+= Int32(p[s.g]); b &+= Int32(p[s.b]); n &+= 1
                        }
                    }
                    let half = n / 2
                    r = (r &+ half) / n; g = (g &+ half) / n; b = (b &+ half) / n
                    up[cx &* step] = k.cb(r, g, b)
                    vp[cx &* step] = k.cr(r, g, b)
                }
            }
        }
    }

    /// Fixed-point (Q14) RGB → YUV coefficients for a range and matrix:
    /// Y = yo + ys(kr R + kg G + kb B); Cb = 128 + cs(B − Y₀)/(2(1−kb)); Cr = 128 + cs(R − Y₀)/(2(1−kr)).
    struct RGBToYUV {
        let yr: Int32, yg: Int32, yb: Int32, yo: Int32, ur: Int32, ug: Int32, ub: Int32, vr: Int32, vg: Int32, vb: Int32

        init(_ range: YUVRange, _ m: YUVMatrix) {
            let (kr, kb) = m.weights
            let kg = 1 - kr - kb
            let ys = range == .video ? 219.0 / 255 : 1, cs = range == .video ? 224.0 / 255 : 1
            @inline(__always) func q14(_ v: Double) -> Int32 { Int32(saturating: (v * 16384).rounded()) }
            yo = range == .video ? 16 : 0
            (yr, yg, yb) = (q14(ys * kr), q14(ys * kg), q14(ys * kb))
            (ur, ug, ub) = (q14(-cs * kr / (2 * (1 - kb))), q14(-cs * kg / (2 * (1 - kb))), q14(cs * 0.5))
            (vr, vg, vb) = (q14(cs * 0.5), q14(-cs * kg / (2 * (1 - kr))), q14(-cs * kb / (2 * (1 - kr))))
        }

        @inline(__always) func y(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt8 {
            Kernels.clamp255((yr &* r &+ yg &* g &+ yb &* b &+ 8192) >> 14 &+ yo)
        }
        @inline(__always) func cb(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt8 {
            Kernels.clamp255((ur &* r &+ ug &* g &+ ub &* b &+ 8192) >> 14 &+ 128)
        }
        @inline(__always) func cr(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt8 {
            Kernels.clamp255((vr &* r &+ vg &* g &+ vb &* b &+ 8192) >> 14 &+ 128)
        }
    }

    /// One row of Y from layout `s`.
    @inline(__always)
    static func yuvLumaRow(_ sp: UnsafePointer<UInt8>, _ yp: UnsafeMutablePointer<UInt8>, _ w: Int, _ s: Layout, _ k: RGBToYUV) {
        for x in 0..<w {
            let p = sp + x &* s.bpp
            yp[x] = k.y(Int32(p[s.r]), Int32(p[s.g]), Int32(p[s.b]))
        }
    }

    /// `count` chroma samples from whole 2 × 2 blocks of rows `s0`, `s1` in layout `s`.
    @inline(__always)
    static func chromaRow(
        _ s0: UnsafePointer<UInt8>, _ s1: UnsafePointer<UInt8>, _ up: UnsafeMutablePointer<UInt8>, _ vp: UnsafeMutablePointer<UInt8>,
        _ step: Int, _ count: Int, _ s: Layout, _ k: RGBToYUV
    ) {
        for cx in 0..<count {
            let a = s0 + 2 &* cx &* s.bpp, b = s1 + 2 &* cx &* s.bpp
            @inline(__always) func mean(_ c: Int) -> Int32 {
                (Int32(a[c]) &+ Int32(a[c &+ s.bpp]) &+ Int32(b[c]) &+ Int32(b[c &+ s.bpp]) &+ 2) >> 2
            }
            let r = mean(s.r), g = mean(s.g), bl = mean(s.b)
            up[cx &* step] = k.cb(r, g, bl)
            vp[cx &* step] = k.cr(r, g, bl)
        }
    }

    // MARK: YUV ↔ YUV

    private static func yuvToYUV(_ input: ImageFrame, _ from: YUVRange, _ out: inout MutableImageFrame, _ to: YUVRange) {
        func mapY(_ v: UInt8) -> UInt8 {
            if from == to { return v }
            let d = Double(v)
            return from == .video ? Kernels.clamp255(Float((d - 16) * 255 / 219)) : Kernels.clamp255(Float(d * 219 / 255 + 16))
        }
        func mapC(_ v: UInt8) -> UInt8 {
            if from == to { return v }
            let d = Double(v) - 128
            return from == .video ? Kernels.clamp255(Float(d * 255 / 224 + 128)) : Kernels.clamp255(Float(d * 224 / 255 + 128))
        }
        let w = input.width, h = input.height
        for y in 0..<h {
            let s = input.row(y)
            out.withMutableRow(y) { d in for x in 0..<w { d[x] = mapY(s[x]) } }
        }
        let inNV12: Bool, outNV12: Bool
        if case .nv12 = input.format { inNV12 = true } else { inNV12 = false }
        if case .nv12 = out.format { outNV12 = true } else { outNV12 = false }
        let (cw, ch) = input.format.planeSize(1, width: w, height: h)
        for y in 0..<ch {
            for x in 0..<cw {
                let u = inNV12 ? input.row(y, plane: 1)[2 * x] : input.row(y, plane: 1)[x]
                let v = inNV12 ? input.row(y, plane: 1)[2 * x + 1] : input.row(y, plane: 2)[x]
                if outNV12 {
                    out.withMutableRow(y, plane: 1) {
                        $0[2 * x] = mapC(u); $0[2 * x + 1] = mapC(v)
                    }
                } else {
                    out.withMutableRow(y, plane: 1) { $0[x] = mapC(u) }
                    out.withMutableRow(y, plane: 2) { $0[x] = mapC(v) }
                }
            }
        }
    }
}
