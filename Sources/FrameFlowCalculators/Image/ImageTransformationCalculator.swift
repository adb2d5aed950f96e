import FrameFlow

/// How an image is fitted into an output of another aspect ratio.
public enum ScaleMode: String, Codable, Sendable, CaseIterable {
    /// Both axes scaled independently; the aspect ratio changes.
    case stretch = "STRETCH"
    /// Scaled to fit inside, the rest filled with the letterbox colour.
    case fit = "FIT"
    /// Scaled to cover, the overflow cropped equally on both sides.
    case fillAndCrop = "FILL_AND_CROP"
}

/// Resampling filter.
public enum Interpolation: String, Codable, Sendable, CaseIterable {
    /// Bilinear with OpenCV's pixel-centre geometry (`INTER_LINEAR`).
    case bilinear = "BILINEAR"
    /// Area averaging for downscaling (`INTER_AREA`); bilinear when enlarging.
    case area = "AREA"
}

/// Resizes, rotates and flips images, as MediaPipe's `ImageTransformationCalculator`:
/// rotation (clockwise, 0/90/180/270) first, then the flips, then scaling into the output
/// size with a scale mode.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8).
/// Outputs:
///   - `IMAGE`: the transformed image.
///   - `LETTERBOX_PADDING` (optional): `[Double]` left, top, right, bottom padding as
///     fractions of the output, for mapping points back (FIT mode).
/// Options: `mediapipe.ImageTransformationCalculatorOptions` { output_width, output_height
/// (0: keep), scale_mode (STRETCH | FIT | FILL_AND_CROP), rotation_degrees (0|90|180|270),
/// flip_horizontally, flip_vertically, interpolation (BILINEAR | AREA), letterbox_color
/// ([r, g, b, a], default black) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ImageTransformationCalculator"
///   input_stream: "IMAGE:input_video"
///   output_stream: "IMAGE:preview"
///   options { [mediapipe.ImageTransformationCalculatorOptions.ext] {
///     output_width: 640 output_height: 360 scale_mode: FILL_AND_CROP rotation_degrees: 90 } }
/// }
/// ```
public final class ImageTransformationCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.ImageTransformationCalculatorOptions"
        public var outputWidth = 0
        public var outputHeight = 0
        public var scaleMode = ScaleMode.stretch
        public var rotationDegrees = 0
        public var flipHorizontally = false
        public var flipVertically = false
        public var interpolation = Interpolation.bilinear
        public var letterboxColor: [Int] = [0, 0, 0, 255]
        public init() {}
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("IMAGE", ImageFrame.self)],
        outputs: [PortSpec("IMAGE", ImageFrame.self), PortSpec("LETTERBOX_PADDING", [Double].self, optional: true)])

    private var options: Options

    public init(options: Options) throws {
        try Self.validate(options)
        self.options = options
    }

    public func update(options: Options) throws {
        try Self.validate(options)
        self.options = options
    }

    static func validate(_ o: Options) throws {
        guard [0, 90, 180, 270].contains(o.rotationDegrees) else {
            throw GraphError(.invalidOption, "rotation_degrees must be 0, 90, 180 or 270, not \(o.rotationDegrees)")
        }
        guard o.outputWidth >= 0, o.outputHeight >= 0 else { throw GraphError(.invalidOption, "output size must be ≥ 0") }
        guard o.letterboxColor.count == 4, o.letterboxColor.allSatisfy({ (0...255).contains($0) }) else {
            throw GraphError(.invalidOption, "letterbox_color needs four values 0…255")
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let input = try cc.input("IMAGE", as: ImageFrame.self)
        let (image, padding) = try Self.transform(input, options, pool: cc.pool, context: cc)
        try cc.emit(image, tag: "IMAGE")
        try cc.emit(padding, tag: "LETTERBOX_PADDING")
    }

    /// Applies `options` to `input`; returns the image and the letterbox padding
    /// (left, top, right, bottom as fractions of the output).
    public static func transform(
        _ input: ImageFrame, _ options: Options, pool: ImagePool = .shared, context: CalculatorContext? = nil
    ) throws -> (ImageFrame, [Double]) {
        guard let layout = Kernels.layout(input.format) else {
            throw ImageError.unsupportedFormat(input.format, "ImageTransformationCalculator")
        }
        var image = input
        if options.rotationDegrees != 0 || options.flipHorizontally || options.flipVertically {
            image = try orient(input, options.rotationDegrees, options.flipHorizontally, options.flipVertically, layout.bpp, pool)
        }
        let ow = options.outputWidth > 0 ? options.outputWidth : image.width
        let oh = options.outputHeight > 0 ? options.outputHeight : image.height
        if ow == image.width && oh == image.height { return (image, [0, 0, 0, 0]) }
        switch options.scaleMode {
        case .stretch:
            return (try Resize.resize(image, width: ow, height: oh, interpolation: options.interpolation, pool: pool, context: context), [0, 0, 0, 0])
        case .fillAndCrop:
            // Scale to cover, then crop the centre.
            let s = max(Double(ow) / Double(image.width), Double(oh) / Double(image.height))
            let cw = min(image.width, max(1, Int((Double(ow) / s).rounded())))
            let ch = min(image.height, max(1, Int((Double(oh) / s).rounded())))
            let crop = try ImageCroppingCalculator.crop(
                image, x: (image.width - cw) / 2, y: (image.height - ch) / 2, width: cw, height: ch, pool: pool)
            return (try Resize.resize(crop, width: ow, height: oh, interpolation: options.interpolation, pool: pool, context: context), [0, 0, 0, 0])
        case .fit:
            let s = min(Double(ow) / Double(image.width), Double(oh) / Double(image.height))
            let sw = max(1, min(ow, Int((Double(image.width) * s).rounded())))
            let sh = max(1, min(oh, Int((Double(image.height) * s).rounded())))
            let scaled = try Resize.resize(image, width: sw, height: sh, interpolation: options.interpolation, pool: pool, context: context)
            var out = try pool.makeImage(width: ow, height: oh, format: image.format)
            let color = options.letterboxColor.map { UInt8($0) }
            var px = [UInt8](repeating: 0, count: layout.bpp)
            if layout.bpp == 1 {
                let r = Double(color[0]) * 0.299, g = Double(color[1]) * 0.587, b = Double(color[2]) * 0.114
                px[0] = UInt8((r + g + b).rounded())
            } else {
                px[layout.r] = color[0]; px[layout.g] = color[1]; px[layout.b] = color[2]
                if layout.a >= 0 { px[layout.a] = color[3] }
            }
            let left = (ow - sw) / 2, top = (oh - sh) / 2
            for y in 0..<oh {
                out.withMutableRow(y) { row in
                    for x in 0..<ow { for c in 0..<layout.bpp { row[x * layout.bpp + c] = px[c] } }
                    if y >= top && y < top + sh {
                        let src = scaled.row(y - top)
                        row.baseAddress!.advanced(by: left * layout.bpp).update(from: src.baseAddress!, count: src.count)
                    }
                }
            }
            let fw = Double(ow), fh = Double(oh)
            let right = Double(ow - sw - left), bottom = Double(oh - sh - top)
            let padding: [Double] = [Double(left) / fw, Double(top) / fh, right / fw, bottom / fh]
            return (out.freeze(), padding)
        }
    }

    /// Rotation (clockwise) then flips, for packed formats.
    static func orient(_ image: ImageFrame, _ rotation: Int, _ flipH: Bool, _ flipV: Bool, _ bpp: Int, _ pool: ImagePool) throws -> ImageFrame {
        try image.oriented(rotation: rotation, flipHorizontally: flipH, flipVertically: flipV, pool: pool)
    }
}

/// Resampling kernels shared by the transformation calculators.
public enum Resize {
    /// `input` resampled to `width`×`height` (packed 8-bit formats).
    public static func resize(
        _ input: ImageFrame, width: Int, height: Int, interpolation: Interpolation, pool: ImagePool = .shared,
        context: CalculatorContext? = nil
    ) throws -> ImageFrame {
        guard let layout = Kernels.layout(input.format) else { throw ImageError.unsupportedFormat(input.format, "resize") }
        if width == input.width && height == input.height { return input }
        let out = try pool.makeImage(width: width, height: height, format: input.format)
        let bpp = layout.bpp
        let downscale = width <= input.width && height <= input.height
        let (xt, yt) = interpolation == .area && downscale
            ? (areaTaps(input.width, width), areaTaps(input.height, height))
            : (linearTaps(input.width, width), linearTaps(input.height, height))
        if interpolation == .bilinear || !downscale {
            resizeLinear(input, into: out, xt: xt, yt: yt, bpp: bpp, context: context)
            return out.freeze()
        }
        let o = out
        let rowBytes = input.width * bpp
        // Horizontal taps as flat tables, padded to the widest pixel with zero weights: byte
        // offsets of the source pixels and their weights.
        let T = xt.map(\.0.count).max() ?? 1
        var xOff = [Int](repeating: 0, count: width * T), xW = [Float](repeating: 0, count: width * T)
        for (x, (xs, ws)) in xt.enumerated() {
            for j in xs.indices {
                xOff[x * T + j] = xs[j] * bpp
                xW[x * T + j] = ws[j]
            }
            for j in xs.count..<T { xOff[x * T + j] = xs[0] * bpp }
        }
        Kernels.rows(height, context, grain: 8) { rows in
            // Each output row: the source rows it needs blended vertically into one Float row
            // (contiguous, vectorised), then resampled horizontally through the tables.
            withUnsafeTemporaryAllocation(of: Float.self, capacity: rowBytes) { line in
                xOff.withUnsafeBufferPointer { XO in
                    xW.withUnsafeBufferPointer { XW in
                        for y in rows {
                            let (ys, yw) = yt[y]
                            let s0 = Kernels.rowPointer(input, ys[0])
                            let w0 = yw[0]
                            for i in 0..<rowBytes { line[i] = w0 * Float(s0[i]) }
                            for k in 1..<ys.count {
                                let sk = Kernels.rowPointer(input, ys[k])
                                let wk = yw[k]
                                for i in 0..<rowBytes { line[i] += wk * Float(sk[i]) }
                            }
                            let dst = Kernels.rowPointer(o, y)
                            if bpp == 4 {
                                // A whole pixel per vector: four channels in one SIMD4.
                                let lp = UnsafeRawPointer(line.baseAddress!)
                                let zero = SIMD4<Float>(repeating: 0)
                                for x in 0..<width {
                                    var v = zero
                                    for j in 0..<T {
                                        let k = x &* T &+ j
                                        v += XW[k] * lp.loadUnaligned(fromByteOffset: XO[k] &* 4, as: SIMD4<Float>.self)
                                    }
                                    let q = dst + x &* 4
                                    q[0] = Kernels.clamp255(v[0])
                                    q[1] = Kernels.clamp255(v[1])
                                    q[2] = Kernels.clamp255(v[2])
                                    q[3] = Kernels.clamp255(v[3])
                                }
                            } else {
                                for x in 0..<width {
                                    for c in 0..<bpp {
                                        var s: Float = 0
                                        for j in 0..<T { s += XW[x &* T &+ j] * line[XO[x &* T &+ j] &+ c] }
                                        dst[x &* bpp &+ c] = Kernels.clamp255(s)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out.freeze()
    }

    /// Bilinear in OpenCV's order: each source row a band needs is resampled horizontally to
    /// the output width once (two taps per pixel, only the pixels the taps touch are read), kept
    /// in one of two Float rows, and each output row blends its two rows vertically. Reading
    /// only the tapped pixels is what makes a downscale cheap: a 3× reduction touches a third
    /// of each row it needs.
    static func resizeLinear(
        _ input: ImageFrame, into out: MutableImageFrame, xt: [([Int], [Float])], yt: [([Int], [Float])],
        bpp: Int, context: CalculatorContext?
    ) {
        let width = out.width, n = width * bpp
        // Two taps per output pixel: byte offsets and weights (a single tap gets weight 0 on
        // a repeat of itself).
        var x0 = [Int](repeating: 0, count: width), x1 = x0
        var w0 = [Float](repeating: 0, count: width), w1 = w0
        for (x, (xs, ws)) in xt.enumerated() {
            x0[x] = xs[0] * bpp; w0[x] = ws[0]
            x1[x] = (xs.count > 1 ? xs[1] : xs[0]) * bpp; w1[x] = xs.count > 1 ? ws[1] : 0
        }
        // Every column on a source pixel (an odd integer reduction, or equal widths).
        let pointSampled = xt.allSatisfy { $0.0.count == 1 }
        let o = out
        Kernels.rows(out.height, context, grain: 8) { rows in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * n) { buf in
                x0.withUnsafeBufferPointer { X0 in x1.withUnsafeBufferPointer { X1 in
                w0.withUnsafeBufferPointer { W0 in w1.withUnsafeBufferPointer { W1 in
                    func horizontal(_ sy: Int, _ h: UnsafeMutablePointer<Float>) {
                        let s = UnsafePointer(Kernels.rowPointer(input, sy))
                        if bpp == 4 && pointSampled {
                            let hv = UnsafeMutableRawPointer(h)
                            for x in 0..<width {
                                hv.storeBytes(of: pixel(s + X0[x]), toByteOffset: x &* 16, as: SIMD4<Float>.self)
                            }
                        } else if bpp == 4 {
                            let hv = UnsafeMutableRawPointer(h)
                            // Four, then two output pixels per vector.
                            var x = 0
                            @inline(__always) func two(_ t: UnsafePointer<Int>, _ x: Int) -> SIMD8<Float> {
                                SIMD8<Float>(lowHalf: pixel(s + t[x]), highHalf: pixel(s + t[x &+ 1]))
                            }
                            @inline(__always) func weights(_ w: UnsafePointer<Float>, _ x: Int) -> SIMD8<Float> {
                                SIMD8<Float>(lowHalf: SIMD4(repeating: w[x]), highHalf: SIMD4(repeating: w[x &+ 1]))
                            }
                            let x0p = X0.baseAddress!, x1p = X1.baseAddress!, w0p = W0.baseAddress!, w1p = W1.baseAddress!
                            while x &+ 4 <= width {
                                let a = SIMD16<Float>(lowHalf: two(x0p, x), highHalf: two(x0p, x &+ 2))
                                let b = SIMD16<Float>(lowHalf: two(x1p, x), highHalf: two(x1p, x &+ 2))
                                let wa = SIMD16<Float>(lowHalf: weights(w0p, x), highHalf: weights(w0p, x &+ 2))
                                let wb = SIMD16<Float>(lowHalf: weights(w1p, x), highHalf: weights(w1p, x &+ 2))
                                hv.storeBytes(of: wa * a + wb * b, toByteOffset: x &* 16, as: SIMD16<Float>.self)
                                x &+= 4
                            }
                            while x &+ 2 <= width {
                                hv.storeBytes(of: weights(w0p, x) * two(x0p, x) + weights(w1p, x) * two(x1p, x), toByteOffset: x &* 16, as: SIMD8<Float>.self)
                                x &+= 2
                            }
                            if x < width {
                                hv.storeBytes(of: W0[x] * pixel(s + X0[x]) + W1[x] * pixel(s + X1[x]), toByteOffset: x &* 16, as: SIMD4<Float>.self)
                            }
                        } else {
                            for x in 0..<width {
                                for c in 0..<bpp {
                                    h[x &* bpp &+ c] = W0[x] * Float(s[X0[x] &+ c]) + W1[x] * Float(s[X1[x] &+ c])
                                }
                            }
                        }
                    }
                    // Two row slots and the source rows they hold.
                    var p0 = buf.baseAddress!, p1 = p0 + n
                    var r0 = -1, r1 = -1
                    for y in rows {
                        let (ys, yw) = yt[y]
                        let a = ys[0], b = ys.count > 1 ? ys[1] : -1
                        if b < 0 && pointSampled {
                            // Both directions on source pixels: the output is a gather.
                            let s = UnsafeRawPointer(Kernels.rowPointer(input, a))
                            let d = UnsafeMutableRawPointer(Kernels.rowPointer(o, y))
                            if bpp == 4 {
                                for x in 0..<width {
                                    d.storeBytes(of: s.loadUnaligned(fromByteOffset: X0[x], as: UInt32.self), toByteOffset: x &* 4, as: UInt32.self)
                                }
                            } else {
                                for x in 0..<width { d.advanced(by: x &* bpp).copyMemory(from: s + X0[x], byteCount: bpp) }
                            }
                            continue
                        }
                        if r0 != a {
                            if r1 == a { swap(&p0, &p1); swap(&r0, &r1) } else { horizontal(a, p0); r0 = a }
                        }
                        let dst = Kernels.rowPointer(o, y)
                        if b < 0 {
                            for i in 0..<n { dst[i] = Kernels.clamp255(p0[i]) }
                            continue
                        }
                        if r1 != b { horizontal(b, p1); r1 = b }
                        let wa = yw[0], wb = yw[1]
                        for i in 0..<n { dst[i] = Kernels.clamp255(wa * p0[i] + wb * p1[i]) }
                    }
                }}}}
            }
        }
    }

    /// A 4-byte pixel as four Floats (four scalar conversions measured faster here than
    /// widening the bytes into the mantissa of 2²³ and subtracting it).
    @inline(__always) static func pixel(_ p: UnsafePointer<UInt8>) -> SIMD4<Float> {
        SIMD4<Float>(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3]))
    }

    /// OpenCV's bilinear geometry: source position (d + 0.5)·scale − 0.5, clamped at edges.
    static func linearTaps(_ src: Int, _ dst: Int) -> [([Int], [Float])] {
        let scale = Double(src) / Double(dst)
        return (0..<dst).map { d in
            var f = (Double(d) + 0.5) * scale - 0.5
            var s = Int(f.rounded(.down))
            f -= Double(s)
            if s < 0 { s = 0; f = 0 }
            if s >= src - 1 { s = src - 1; f = 0 }
            return f == 0 ? ([s], [1]) : ([s, s + 1], [Float(1 - f), Float(f)])
        }
    }

    /// Area averaging: each output pixel is the mean of the source interval it covers,
    /// partial pixels weighted by overlap.
    static func areaTaps(_ src: Int, _ dst: Int) -> [([Int], [Float])] {
        let scale = Double(src) / Double(dst)
        return (0..<dst).map { d in
            let a = Double(d) * scale, b = min(Double(src), Double(d + 1) * scale)
            var idx: [Int] = [], wts: [Float] = []
            var s = Int(a.rounded(.down))
            while Double(s) < b - 1e-9 {
                let overlap = min(b, Double(s + 1)) - max(a, Double(s))
                if overlap > 1e-9 { idx.append(min(s, src - 1)); wts.append(Float(overlap / (b - a))) }
                s += 1
            }
            return (idx, wts)
        }
    }
}
