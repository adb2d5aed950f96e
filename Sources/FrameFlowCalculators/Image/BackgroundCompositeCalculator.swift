import FrameFlow

/// Keeps the masked foreground of a frame (a person, from a selfie segmentation mask) and puts
/// another background behind it: a stream of frames (e.g. the frame blurred by
/// `GaussianBlurCalculator`), a replacement picture, or a plain colour. This is what virtual
/// backgrounds in video calls do. MediaPipe has no such calculator (its selfie segmentation
/// demo paints the background with `RecolorCalculator`); the name and options are FrameFlow's.
///
/// Per pixel, with w the mask's value there (gray_f32 as is, gray8 ÷ 255; 1 − w with
/// `invert_mask`), the weight a = clamp((w − mask_low) / (mask_high − mask_low), 0, 1) and
/// each colour channel becomes round(fg · a + bg · (1 − a)), in `Float`, halves to even (a NaN
/// mask value counts as 0). The
/// defaults (0 and 1) keep the mask's soft edges; a narrower range hardens them. Alpha, when
/// the image has one, is kept. A mask of another size is resized to the image first (bilinear,
/// pixel centres aligned, edges clamped). Without a `MASK` packet the frame passes unchanged.
///
/// The background, first found of: the `BACKGROUND` stream's packet at the frame's timestamp;
/// the `BACKGROUND` side packet (a still picture); `color`. A background of another size than
/// the frame is scaled to cover it, centred, the overflow cropped (bilinear; once per frame size
/// for the side packet's picture).
///
/// Inputs:
///   - `IMAGE`: `ImageFrame`, rgb8, rgba8, bgra8 or gray8.
///   - `MASK`: `ImageFrame`, gray_f32 (0…1) or gray8: 1 (255) is foreground.
///   - `BACKGROUND` (optional): `ImageFrame`, rgb8, rgba8, bgra8 or gray8.
/// Outputs:
///   - `IMAGE`: `ImageFrame`, the input's size and format.
/// Input side packets:
///   - `BACKGROUND` (optional): `ImageFrame`, rgb8, rgba8, bgra8 or gray8, any size.
/// Options: `frameflow.BackgroundCompositeCalculatorOptions` { color { r g b } (black),
///   invert_mask (false), mask_low (0, 0…1), mask_high (1, 0…1, above mask_low) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "BackgroundCompositeCalculator"
///   input_stream: "IMAGE:input_video"
///   input_stream: "MASK:segmentation_mask"
///   input_stream: "BACKGROUND:blurred_video"
///   output_stream: "IMAGE:output_video"
///   options { [frameflow.BackgroundCompositeCalculatorOptions.ext] { mask_low: 0.1 mask_high: 0.9 } }
/// }
/// ```
public final class BackgroundCompositeCalculator: Calculator {
    /// The colour behind the foreground when no background is given, and how the mask is read.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.BackgroundCompositeCalculatorOptions"
        /// The background when neither a `BACKGROUND` stream nor side packet is given.
        public var color = RenderColor()
        /// Keep where the mask is unset instead.
        public var invertMask = false
        /// Mask values at or below this are background.
        public var maskLow: Float = 0
        /// Mask values at or above this are foreground.
        public var maskHigh: Float = 1
        public init() {}
        /// Options with the given colour and mask range.
        public init(color: RenderColor = RenderColor(), invertMask: Bool = false, maskLow: Float = 0, maskHigh: Float = 1) {
            self.color = color
            self.invertMask = invertMask
            self.maskLow = maskLow
            self.maskHigh = maskHigh
        }

        public func validate() throws {
            guard color.isValid else { throw GraphError(.invalidOption, "color: r, g and b must be in 0…255") }
            try OptionCheck.range(maskLow, 0...1, "mask_low")
            try OptionCheck.range(maskHigh, 0...1, "mask_high")
            guard maskLow < maskHigh else {
                throw GraphError(.invalidOption, "mask_low (\(maskLow)) must be below mask_high (\(maskHigh))")
            }
        }
    }

    /// The foreground image.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The foreground's weights.
    public static let mask = InputPort<ImageFrame>("MASK")
    /// A background per frame.
    public static let background = InputPort<ImageFrame>("BACKGROUND", optional: true)
    /// The composite.
    public static let composite = OutputPort<ImageFrame>("IMAGE")
    /// One background for every frame.
    public static let backgroundSidePacket = InputSidePacket<ImageFrame>("BACKGROUND", optional: true)

    public static let contract = CalculatorContract(ports: [image, mask, background, composite, backgroundSidePacket])

    private var options: Options
    /// The side packet's picture, as given.
    private var picture: ImageFrame?
    /// The picture scaled to cover the last frame size, as RGB bytes.
    private var cover: (width: Int, height: Int, rgb: [UInt8])?

    public init(options: Options) throws {
        try options.validate()
        self.options = options
    }

    public func update(options: Options) throws {
        try options.validate()
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        guard let side = cc.sidePacket(Self.backgroundSidePacket.tag), !side.isEmpty else { return }
        let image = try side.get(ImageFrame.self)
        guard Self.layout(image.format) != nil, image.width > 0, image.height > 0 else {
            throw GraphError(.calculatorFailed, "the BACKGROUND side packet must be rgb8, rgba8, bgra8 or gray8, not \(image.format)")
        }
        picture = image
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.image) else { return }
        guard cc.has(Self.mask) else {
            cc.emit(packet: cc.input(Self.image.tag), atPosition: 0)
            return
        }
        let image = try cc.get(Self.image)
        guard let fg = Self.layout(image.format) else {
            throw GraphError(
                .calculatorFailed, "IMAGE must be rgb8, rgba8, bgra8 or gray8, not \(image.format)", stream: cc.inputStreamName(Self.image.tag))
        }
        let weights = try Self.weights(try cc.get(Self.mask), width: image.width, height: image.height) {
            GraphError(.calculatorFailed, $0, stream: cc.inputStreamName(Self.mask.tag))
        }
        let w = image.width, h = image.height
        let out = try image.mutableCopy(pool: cc.pool)
        let low = options.maskLow, span = options.maskHigh - options.maskLow, invert = options.invertMask
        // The weight of the foreground at pixel i.
        func alpha(_ i: Int) -> Float {
            let m = invert ? 1 - weights[i] : weights[i]
            let a = (m - low) / span
            return a > 0 ? min(a, 1) : 0  // NaN (a broken mask) counts as background

        }
        func write(_ row: UnsafeMutablePointer<UInt8>, _ x: Int, _ a: Float, _ bg: (Float, Float, Float)) {
            let px = row + x * fg.bpp
            if fg.bpp == 1 {
                // A grey frame takes the background's luma (BT.601).
                let grey = 0.299 * bg.0 + 0.587 * bg.1 + 0.114 * bg.2
                px[0] = Self.blend(px[0], grey, a)
                return
            }
            px[fg.r] = Self.blend(px[fg.r], bg.0, a)
            px[fg.g] = Self.blend(px[fg.g], bg.1, a)
            px[fg.b] = Self.blend(px[fg.b], bg.2, a)
        }
        var rgb: [UInt8]?  // a background scaled to the frame, 3 bytes a pixel
        if cc.isConnected(Self.background), let back = try cc.value(Self.background) {
            guard let bl = Self.layout(back.format), back.width > 0, back.height > 0 else {
                throw GraphError(
                    .calculatorFailed, "BACKGROUND must be rgb8, rgba8, bgra8 or gray8, not \(back.format)",
                    stream: cc.inputStreamName(Self.background.tag))
            }
            if back.width == w && back.height == h {
                for y in 0..<h {
                    let row = Self.row(out, y), src = back.row(y)
                    for x in 0..<w {
                        let p = x * bl.bpp
                        write(row, x, alpha(y * w + x), (Float(src[p + bl.r]), Float(src[p + bl.g]), Float(src[p + bl.b])))
                    }
                }
                return try cc.emit(out.freeze(), to: Self.composite)
            }
            rgb = Self.covering(back, width: w, height: h)
        } else if let picture {
            if cover?.width != w || cover?.height != h { cover = (w, h, Self.covering(picture, width: w, height: h)) }
            rgb = cover?.rgb
        }
        if let rgb {
            for y in 0..<h {
                let row = Self.row(out, y)
                for x in 0..<w {
                    let p = 3 * (y * w + x)
                    write(row, x, alpha(y * w + x), (Float(rgb[p]), Float(rgb[p + 1]), Float(rgb[p + 2])))
                }
            }
        } else {
            let c = (Float(options.color.r), Float(options.color.g), Float(options.color.b))
            for y in 0..<h {
                let row = Self.row(out, y)
                for x in 0..<w { write(row, x, alpha(y * w + x), c) }
            }
        }
        try cc.emit(out.freeze(), to: Self.composite)
    }

    /// round(fg · a + bg · (1 − a)) in `Float`, halves to even, clamped to a byte.
    @inline(__always)
    public static func blend(_ fg: UInt8, _ bg: Float, _ a: Float) -> UInt8 {
        let v = Float(fg) * a + bg * (1 - a)
        return UInt8(saturating: v.rounded(.toNearestOrEven))
    }

    /// Byte offsets of R, G, B in a pixel and its size (grey: all three at 0).
    static func layout(_ f: PixelFormat) -> (r: Int, g: Int, b: Int, bpp: Int)? {
        switch f {
        case .rgb8: return (0, 1, 2, 3)
        case .rgba8: return (0, 1, 2, 4)
        case .bgra8: return (2, 1, 0, 4)
        case .gray8: return (0, 0, 0, 1)
        default: return nil
        }
    }

    static func row(_ image: MutableImageFrame, _ y: Int) -> UnsafeMutablePointer<UInt8> {
        (image.planes[0].baseAddress + y * image.planes[0].bytesPerRow).assumingMemoryBound(to: UInt8.self)
    }

    /// The mask's values at `width` × `height`, row by row: as they are at the same size,
    /// else resized bilinearly (source coordinate (d + 0.5) · s / d − 0.5, clamped to the edges).
    static func weights(_ mask: ImageFrame, width: Int, height: Int, error: (String) -> GraphError) throws -> [Float] {
        let mw = mask.width, mh = mask.height
        var values = [Float](repeating: 0, count: mw * mh)
        switch mask.format {
        case .grayFloat32:
            for y in 0..<mh {
                let s = (mask.planes[0].baseAddress + y * mask.planes[0].bytesPerRow).assumingMemoryBound(to: Float.self)
                for x in 0..<mw { values[y * mw + x] = s[x] }
            }
        case .gray8:
            for y in 0..<mh {
                let s = mask.row(y)
                for x in 0..<mw { values[y * mw + x] = Float(s[x]) / 255 }
            }
        default:
            throw error("MASK must be gray_f32 or gray8, not \(mask.format)")
        }
        guard mw > 0, mh > 0 else { throw error("MASK is empty") }
        if mw == width && mh == height { return values }
        return resampled(values, width: mw, height: mh, toWidth: width, toHeight: height)
    }

    /// `values` (one channel, `width` × `height`) resampled bilinearly to `toWidth` × `toHeight`.
    static func resampled(_ values: [Float], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [Float] {
        func taps(_ d: Int, _ size: Int, _ scale: Double) -> (Int, Int, Float) {
            let s = min(max((Double(d) + 0.5) * scale - 0.5, 0), Double(size - 1))
            let i = Int(s)
            return (i, min(i + 1, size - 1), Float(s - Double(i)))
        }
        let sx = Double(width) / Double(toWidth), sy = Double(height) / Double(toHeight)
        let xs = (0..<toWidth).map { taps($0, width, sx) }
        var out = [Float](repeating: 0, count: toWidth * toHeight)
        for y in 0..<toHeight {
            let (y0, y1, fy) = taps(y, height, sy)
            for x in 0..<toWidth {
                let (x0, x1, fx) = xs[x]
                let top = values[y0 * width + x0] * (1 - fx) + values[y0 * width + x1] * fx
                let bottom = values[y1 * width + x0] * (1 - fx) + values[y1 * width + x1] * fx
                out[y * toWidth + x] = top * (1 - fy) + bottom * fy
            }
        }
        return out
    }

    /// `picture` scaled to cover `width` × `height` (the larger of the two scales, centred, the
    /// rest cropped) as RGB bytes, bilinear, halves rounded to even.
    static func covering(_ picture: ImageFrame, width: Int, height: Int) -> [UInt8] {
        let l = layout(picture.format)!
        let pw = picture.width, ph = picture.height
        let scale = max(Double(width) / Double(pw), Double(height) / Double(ph))
        // Picture coordinates of frame pixel centres: the covered region is centred.
        let x0 = (Double(pw) - Double(width) / scale) / 2, y0 = (Double(ph) - Double(height) / scale) / 2
        func taps(_ d: Int, _ origin: Double, _ size: Int) -> (Int, Int, Double) {
            let s = min(max(origin + (Double(d) + 0.5) / scale - 0.5, 0), Double(size - 1))
            let i = Int(s)
            return (i, min(i + 1, size - 1), s - Double(i))
        }
        let xs = (0..<width).map { taps($0, x0, pw) }
        var out = [UInt8](repeating: 0, count: 3 * width * height)
        for y in 0..<height {
            let (ya, yb, fy) = taps(y, y0, ph)
            let ra = picture.row(ya), rb = picture.row(yb)
            for x in 0..<width {
                let (xa, xb, fx) = xs[x]
                for (c, offset) in [l.r, l.g, l.b].enumerated() {
                    func at(_ r: UnsafeBufferPointer<UInt8>, _ i: Int) -> Double { Double(r[i * l.bpp + offset]) }
                    let v = (at(ra, xa) * (1 - fx) + at(ra, xb) * fx) * (1 - fy) + (at(rb, xa) * (1 - fx) + at(rb, xb) * fx) * fy
                    out[3 * (y * width + x) + c] = UInt8(saturating: v.rounded(.toNearestOrEven))
                }
            }
        }
        return out
    }
}
