import CFrameFlowKernels
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
/// (0…32768; 0: keep), scale_mode (STRETCH | FIT | FILL_AND_CROP), rotation_degrees (0|90|180|270),
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
public final class ImageTransformationCalculator: OptionsStoringCalculator {
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

    /// The image to transform.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The transformed image.
    public static let transformed = OutputPort<ImageFrame>("IMAGE")
    /// The letterbox padding (`FIT`): left, top, right, bottom, as fractions of the output.
    public static let padding = OutputPort<[Double]>("LETTERBOX_PADDING", optional: true)

    public static let contract = CalculatorContract(ports: [image, transformed, padding])

    public var options: Options

    public init(options: Options) throws {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        let input = try cc.get(Self.image)
        let (image, padding) = try Self.transform(input, options, pool: cc.pool, context: cc, limits: cc.environment.limits)
        try cc.emit(image, to: Self.transformed)
        try cc.emit(padding, to: Self.padding)
    }

    /// Applies `options` to `input`; returns the image and the letterbox padding
    /// (left, top, right, bottom as fractions of the output). An output over
    /// `limits.maxImagePixels` is an error.
    public static func transform(
        _ input: ImageFrame, _ options: Options, pool: ImagePool = .shared, context: CalculatorContext? = nil,
        limits: ResourceLimits = ResourceLimits()
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
        guard limits.allowsImage(width: ow, height: oh) else {
            throw GraphError(
                .calculatorFailed, "an output of \(ow)×\(oh) is over the limit of \(limits.maxImagePixels) pixels per image",
                node: context?.nodeName)
        }
        switch options.scaleMode {
        case .stretch:
            return (
                try Resize.resize(image, width: ow, height: oh, interpolation: options.interpolation, pool: pool, context: context), [0, 0, 0, 0]
            )
        case .fillAndCrop:
            // Scale to cover, then crop the centre.
            let s = max(Double(ow) / Double(image.width), Double(oh) / Double(image.height))
            let cw = min(image.width, max(1, Int(saturating: (Double(ow) / s).rounded())))
            let ch = min(image.height, max(1, Int(saturating: (Double(oh) / s).rounded())))
            let crop = try ImageCroppingCalculator.crop(
                image, x: (image.width - cw) / 2, y: (image.height - ch) / 2, width: cw, height: ch, pool: pool)
            return (try Resize.resize(crop, width: ow, height: oh, interpolation: options.interpolation, pool: pool, context: context), [0, 0, 0, 0])
        case .fit:
            let s = min(Double(ow) / Double(image.width), Double(oh) / Double(image.height))
            let sw = max(1, min(ow, Int(saturating: (Double(image.width) * s).rounded())))
            let sh = max(1, min(oh, Int(saturating: (Double(image.height) * s).rounded())))
            let scaled = try Resize.resize(image, width: sw, height: sh, interpolation: options.interpolation, pool: pool, context: context)
            var out = try pool.makeImage(width: ow, height: oh, format: image.format)
            let color = options.letterboxColor.map { UInt8($0) }
            var px = [UInt8](repeating: 0, count: layout.bpp)
            if layout.bpp == 1 {
                let r = Double(color[0]) * 0.299, g = Double(color[1]) * 0.587, b = Double(color[2]) * 0.114
                px[0] = UInt8(saturating: (r + g + b).rounded())
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
        if interpolation == .bilinear || !downscale {
            resizeLinear(input, into: out, bpp: bpp, context: context)
            return out.freeze()
        }
        let (xt, yt) = (areaTaps(input.width, width), areaTaps(input.height, height))
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
        let maxRows = yt.map(\.0.count).max() ?? 1
        Kernels.rows(height, context, grain: 8) { rows in
            // Each output row: the source rows it needs blended vertically into one Float row
            // (`ff_area_vertical_row`), then resampled horizontally through the tables.
            withUnsafeTemporaryAllocation(of: Float.self, capacity: rowBytes + 4) { line in
                withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: maxRows) { sources in
                    xOff.withUnsafeBufferPointer { XO in
                        xW.withUnsafeBufferPointer { XW in
                            for y in rows {
                                let (ys, yw) = yt[y]
                                for k in ys.indices { sources[k] = UnsafePointer(Kernels.rowPointer(input, ys[k])) }
                                yw.withUnsafeBufferPointer {
                                    ff_area_vertical_row(sources.baseAddress!, $0.baseAddress!, Int32(ys.count), line.baseAddress!, rowBytes)
                                }
                                ff_area_horizontal_row(
                                    line.baseAddress!, Kernels.rowPointer(o, y), width, Int32(bpp), XO.baseAddress!, XW.baseAddress!, Int32(T))
                            }
                        }
                    }
                }
            }
        }
        return out.freeze()
    }

    /// Bilinear in OpenCV's order and fixed point: each source row a band needs is resampled to
    /// the output width once (1/256 weights, one widened pair load per pixel, only tapped pixels
    /// read), then each output row blends two of them (1/65536 weights, `vpmulhuw`); ≤ 1 level off.
    static func resizeLinear(
        _ input: ImageFrame, into out: MutableImageFrame, bpp: Int, context: CalculatorContext?
    ) {
        let width = out.width, n = width * bpp, rowBytes = input.width * bpp
        let xt = linearTaps(input.width, width), yt = linearTaps(input.height, out.height)
        // Two taps per output pixel: byte offsets and weights in 1/256ths (a single tap gets
        // weight 0 on a repeat of itself).
        var x0 = [Int](repeating: 0, count: width), x1 = x0
        var w0 = [UInt16](repeating: 0, count: width), w1 = w0
        var w4 = [SIMD8<UInt16>](repeating: .zero, count: width)
        for x in 0..<width {
            let single = xt.weight[x] == 1
            let a = single ? 256 : UInt16(saturating: Swift.min(256, Swift.max(0, (xt.weight[x] * 256).rounded())))
            x0[x] = xt.index[x] * bpp; w0[x] = a
            x1[x] = (single ? xt.index[x] : xt.index[x] + 1) * bpp; w1[x] = 256 - a
            w4[x] =
                bpp == 3
                ? SIMD8(a, a, a, 256 - a, 256 - a, 256 - a, 0, 0)
                : SIMD8(lowHalf: SIMD4(repeating: a), highHalf: SIMD4(repeating: 256 - a))
        }
        // Columns whose pair load (8 bytes for 3- and 4-byte pixels, 2 for 1-byte ones) stays
        // inside the row: taps are `s, s + 1`, so only the columns clamped to the last pixel are
        // left to the scalar loop.
        let pairBytes = bpp == 1 ? 2 : 8
        let pairEnd = bpp == 2 ? 0 : (x0.firstIndex { $0 + pairBytes > rowBytes } ?? width)
        // Row slots apart by n + 4: the 3-byte path writes one UInt16 past each pixel (the next
        // pixel's first, rewritten by it; past the last one, into this gap).
        let slot = n + 4
        // Every column on a source pixel (an odd integer reduction, or equal widths).
        let pointSampled = !xt.weight.contains { $0 != 1 }
        let o = out
        Kernels.rows(out.height, context, grain: 8) { rows in
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 2 * slot) { buf in
                x0.withUnsafeBufferPointer { X0 in
                    x1.withUnsafeBufferPointer { X1 in
                        w0.withUnsafeBufferPointer { W0 in
                            w1.withUnsafeBufferPointer { W1 in
                                w4.withUnsafeBufferPointer { W4 in
                                    func horizontal(_ sy: Int, _ h: UnsafeMutablePointer<UInt16>) {
                                        let s = UnsafePointer(Kernels.rowPointer(input, sy))
                                        let sr = UnsafeRawPointer(s), hv = UnsafeMutableRawPointer(h)
                                        if bpp == 4 {
                                            for x in 0..<pairEnd {
                                                let pair = SIMD8<UInt16>(
                                                    truncatingIfNeeded: sr.loadUnaligned(fromByteOffset: X0[x], as: SIMD8<UInt8>.self))
                                                let v = pair &* W4[x]
                                                hv.storeBytes(of: v.lowHalf &+ v.highHalf, toByteOffset: x &* 8, as: SIMD4<UInt16>.self)
                                            }
                                        } else if bpp == 3 {
                                            // Both pixels in one 8-byte load ([r g b r g b · ·] × [a a a b b b 0 0]),
                                            // the halves' first three lanes added.
                                            for x in 0..<pairEnd {
                                                let pair = SIMD8<UInt16>(
                                                    truncatingIfNeeded: sr.loadUnaligned(fromByteOffset: X0[x], as: SIMD8<UInt8>.self))
                                                let v = pair &* W4[x]
                                                let sum = SIMD4<UInt16>(v[0], v[1], v[2], 0) &+ SIMD4<UInt16>(v[3], v[4], v[5], 0)
                                                hv.storeBytes(of: sum, toByteOffset: x &* 6, as: SIMD4<UInt16>.self)
                                            }
                                        } else if bpp == 1 {
                                            for x in 0..<pairEnd {
                                                let pair = sr.loadUnaligned(fromByteOffset: X0[x], as: UInt16.self)
                                                h[x] = (pair & 255) &* W0[x] &+ (pair &>> 8) &* W1[x]
                                            }
                                        }
                                        for x in pairEnd..<width {
                                            let a = W0[x], b = W1[x], i0 = X0[x], i1 = X1[x], d = x &* bpp
                                            for c in 0..<bpp { h[d &+ c] = UInt16(s[i0 &+ c]) &* a &+ UInt16(s[i1 &+ c]) &* b }
                                        }
                                    }
                                    // Two row slots and the source rows they hold.
                                    var p0 = buf.baseAddress!, p1 = p0 + slot
                                    var r0 = -1, r1 = -1
                                    for y in rows {
                                        let a = yt.index[y], b = yt.weight[y] == 1 ? -1 : a + 1
                                        if b < 0 && pointSampled {
                                            // Both directions on source pixels: the output is a gather.
                                            let s = UnsafeRawPointer(Kernels.rowPointer(input, a))
                                            let d = UnsafeMutableRawPointer(Kernels.rowPointer(o, y))
                                            if bpp == 4 {
                                                for x in 0..<width {
                                                    d.storeBytes(
                                                        of: s.loadUnaligned(fromByteOffset: X0[x], as: UInt32.self), toByteOffset: x &* 4,
                                                        as: UInt32.self)
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
                                            ff_linear_vertical_row(p0, nil, 0, 0, dst, n)
                                            continue
                                        }
                                        if r1 != b { horizontal(b, p1); r1 = b }
                                        // Both weights in 1…65535, summing to 65536: each product's high half
                                        // is a UInt16 in 1/256ths, their sum at most 65280, + 128 still fits.
                                        let wa = UInt16(saturating: Swift.min(65535, Swift.max(1, (yt.weight[y] * 65536).rounded())))
                                        let wb = UInt16(truncatingIfNeeded: 65536 - Int(wa))
                                        ff_linear_vertical_row(p0, p1, wa, wb, dst, n)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// OpenCV's bilinear geometry: source position (d + 0.5)·scale − 0.5, clamped at edges.
    /// For each output position its first source pixel and that pixel's weight; the second
    /// tap, where the weight is below 1, is the next pixel with the rest. Flat arrays: a frame's
    /// taps cost no allocation per column.
    static func linearTaps(_ src: Int, _ dst: Int) -> (index: [Int], weight: [Float]) {
        let scale = Double(src) / Double(dst)
        var index = [Int](repeating: 0, count: dst), weight = [Float](repeating: 1, count: dst)
        for d in 0..<dst {
            var f = (Double(d) + 0.5) * scale - 0.5
            var s = Int(saturating: f.rounded(.down))
            f -= Double(s)
            if s < 0 { s = 0; f = 0 }
            if s >= src - 1 { s = src - 1; f = 0 }
            index[d] = s
            if f != 0 { weight[d] = Float(1 - f) }
        }
        return (index, weight)
    }

    /// Area averaging: each output pixel is the mean of the source interval it covers,
    /// partial pixels weighted by overlap.
    static func areaTaps(_ src: Int, _ dst: Int) -> [([Int], [Float])] {
        let scale = Double(src) / Double(dst)
        return (0..<dst).map { d in
            let a = Double(d) * scale, b = min(Double(src), Double(d + 1) * scale)
            var idx: [Int] = [], wts: [Float] = []
            var s = Int(saturating: a.rounded(.down))
            while Double(s) < b - 1e-9 {
                let overlap = min(b, Double(s + 1)) - max(a, Double(s))
                if overlap > 1e-9 { idx.append(min(s, src - 1)); wts.append(Float(overlap / (b - a))) }
                s += 1
            }
            return (idx, wts)
        }
    }
}

extension ImageTransformationCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard [0, 90, 180, 270].contains(rotationDegrees) else {
            throw GraphError(.invalidOption, "rotation_degrees must be 0, 90, 180 or 270, not \(rotationDegrees)")
        }
        try OptionCheck.range(outputWidth, 0...ImagePool.maxSide, "output_width")
        try OptionCheck.range(outputHeight, 0...ImagePool.maxSide, "output_height")
        let limit = ResourceLimits().maxImagePixels
        if outputWidth > 0 && outputHeight > 0 && !ResourceLimits().allowsImage(width: outputWidth, height: outputHeight) {
            throw GraphError(.invalidOption, "output_width × output_height must be at most \(limit) pixels, not \(outputWidth)×\(outputHeight)")
        }
        guard letterboxColor.count == 4, letterboxColor.allSatisfy({ (0...255).contains($0) }) else {
            throw GraphError(.invalidOption, "letterbox_color needs four values 0…255")
        }
    }
}

extension ImageTransformationCalculator.Options {
    /// mediapipe/calculators/image/image_transformation_calculator.proto (with rotation_mode.proto
    /// and scale_mode.proto), for binary graphs: MediaPipe's fields under MediaPipe's names.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.imageTransformationCalculatorOptions }
}
