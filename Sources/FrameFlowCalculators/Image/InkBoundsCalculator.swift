import FrameFlow

/// Finds the ink on a drawn canvas and the square region around it that lays the ink out as
/// MNIST does: the ink's bounding box scaled to fit a 20×20 box, in a 28×28 frame, with the
/// ink's centre of mass at the frame's centre pixel.
///
/// A pixel is ink when its grey value (255 − value with `invert`, for dark ink on a light
/// canvas) is at least `threshold`; an ink pixel with no ink among its 8 neighbours is noise
/// and ignored (unless `ignore_isolated_pixels` is false). With the ink's bounding box
/// (whole pixels) of longer side S and its centre of mass (cx, cy) — the mean of the ink
/// pixels' centres (x + ½, y + ½) weighted by their ink values — the region is the square of
/// side D = S · `frame_size` / `box_size` placed so that (cx, cy) falls on the centre of the
/// frame's pixel ⌊`frame_size` / 2⌋ in both directions:
///
///     D = S · frame_size / box_size
///     x_center = (cx − D · (⌊F/2⌋ + ½ − F/2) / F) / image width      (F = frame_size)
///     y_center = (cy − D · (⌊F/2⌋ + ½ − F/2) / F) / image height
///     width = D / image width, height = D / image height              (square in pixels)
///
/// A canvas without ink gives the whole image (centre ½, ½, size 1 × 1). The region may
/// reach outside the image; `ImageToTensorCalculator` reads zeros there with
/// `border_mode: BORDER_ZERO`. Feeding the region and `INK` to `ImageToTensorCalculator` with a
/// 28×28 tensor and `content_size: [20, 20]` gives MNIST's 28×28 layout shrunk by 20/28 into
/// the 20×20 box, which is how OpenCV's digits.png (and `Graphs/digit_classifier.pbtxt`'s
/// network) holds its digits; a 28×28 tensor without `content_size` gives MNIST's own layout.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8 or any format `ColorConvertCalculator`
///     turns into gray8).
/// Outputs:
///   - `NORM_RECT`: `NormalizedRect`, the region (rotation 0).
///   - `INK` (optional): `ImageFrame` gray8, the grey image with the ink light on dark (inverted
///     with `invert`; the input itself when it is gray8 and not inverted).
/// Input side packets:
///   - `INVERT` (optional): `Bool`, overrides the `invert` option for the whole run (so a graph
///     can offer `--side dark_on_light=true`).
/// Options: `frameflow.InkBoundsCalculatorOptions` { threshold (128, 1…255), invert (false),
/// ignore_isolated_pixels (true), box_size (20, 1…10000), frame_size (28, box_size…10000) }.
///
/// Example usage (Graphs/digit_classifier.pbtxt):
/// ```
/// node {
///   calculator: "InkBoundsCalculator"
///   input_stream: "IMAGE:input_video"
///   input_side_packet: "INVERT:dark_on_light"
///   output_stream: "NORM_RECT:ink_rect"
///   output_stream: "INK:ink"
///   options { [frameflow.InkBoundsCalculatorOptions.ext] { threshold: 128 box_size: 20 frame_size: 28 } }
/// }
/// ```
public final class InkBoundsCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.InkBoundsCalculatorOptions"
        /// The least grey value (after `invert`) that counts as ink.
        public var threshold = 128
        /// Dark ink on a light canvas: grey values are taken as 255 − value.
        public var invert = false
        /// Ink pixels with no ink among their 8 neighbours are left out (sensor noise).
        public var ignoreIsolatedPixels = true
        /// The size, in frame pixels, that the ink's longer side fills.
        public var boxSize = 20.0
        /// The frame's size in its own pixels; the region is the frame.
        public var frameSize = 28.0
        public init() {}

        /// Checks the values (called by the graph before `init` and `update(options:)`).
        public func validate() throws {
            guard (1...255).contains(threshold) else { throw GraphError(.invalidOption, "threshold must be in 1…255, not \(threshold)") }
            try OptionCheck.range(boxSize, 1...10000, "box_size")
            try OptionCheck.range(frameSize, boxSize...10000, "frame_size")
        }
    }

    /// The image to scan.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The bounds of the ink.
    public static let rect = OutputPort<NormalizedRect>("NORM_RECT")
    /// The gray image with the ink light on dark (inverted with `invert`).
    public static let inkImage = OutputPort<ImageFrame>("INK", optional: true)
    /// Overrides the `invert` option for the whole run.
    public static let invert = InputSidePacket<Bool>("INVERT", optional: true)

    public static let contract = CalculatorContract(ports: [image, rect, inkImage, invert])

    public var options: Options
    private var invertOverride: Bool?

    public init(options: Options) throws {
        try options.validate()
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        if cc.sidePacket(Self.invert.tag) != nil { invertOverride = try cc.get(Self.invert) }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let image = try cc.value(Self.image) else { return }
        let invert = invertOverride ?? options.invert
        let gray = try ColorConvertCalculator.convert(image, to: .gray8, pool: cc.pool, context: cc)
        let rect = Self.bounds(gray, options: options, invert: invert)
        try cc.emit(rect, to: Self.rect)
        if cc.isConnected(Self.inkImage) { try cc.emit(invert ? try Self.inverted(gray, pool: cc.pool) : gray, to: Self.inkImage) }
    }

    /// The ink's bounding box and centre of mass on a gray8 image (nil without ink): the box in
    /// whole pixels (`maxX`, `maxY` inclusive), the centre in pixel units (a pixel's centre is at
    /// x + ½).
    public struct Ink: Sendable, Equatable {
        public var minX, minY, maxX, maxY: Int
        public var centerX, centerY: Double
        /// Ink pixels counted.
        public var count: Int
    }

    /// The ink of a gray8 `image` as `options` define it (`invert` as given).
    public static func ink(_ image: ImageFrame, options o: Options, invert: Bool) -> Ink? {
        let w = image.width, h = image.height, t = UInt8(o.threshold), flip: UInt8 = invert ? 255 : 0
        // Ink values, 0 where below the threshold, in a zero border that spares bounds checks.
        let stride = w + 2
        var values = [UInt8](repeating: 0, count: stride * (h + 2))
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1, count = 0
        var mass = 0.0, sx = 0.0, sy = 0.0
        values.withUnsafeMutableBufferPointer { v in
            for y in 0..<h {
                let row = image.row(y), base = (y + 1) &* stride &+ 1
                for x in 0..<w {
                    let g = row[x] ^ flip  // 255 − value when inverting
                    v[base &+ x] = g >= t ? g : 0
                }
            }
            for y in 0..<h {
                let base = (y + 1) &* stride &+ 1
                var rowMass = 0, rowX = 0
                for x in 0..<w {
                    let i = base &+ x, g = v[i]
                    if g == 0 { continue }
                    if o.ignoreIsolatedPixels {
                        let around =
                            v[i &- stride &- 1] | v[i &- stride] | v[i &- stride &+ 1] | v[i &- 1] | v[i &+ 1] | v[i &+ stride &- 1]
                            | v[i &+ stride] | v[i &+ stride &+ 1]
                        if around == 0 { continue }
                    }
                    minX = min(minX, x)
                    maxX = max(maxX, x)
                    count &+= 1
                    rowMass &+= Int(g)
                    rowX &+= Int(g) &* (2 &* x &+ 1)  // twice the centre, x + ½
                }
                guard rowMass > 0 else { continue }
                minY = min(minY, y)
                maxY = y
                mass += Double(rowMass)
                sx += Double(rowX) / 2
                sy += Double(rowMass) * (Double(y) + 0.5)
            }
        }
        guard count > 0 else { return nil }
        return Ink(minX: minX, minY: minY, maxX: maxX, maxY: maxY, centerX: sx / mass, centerY: sy / mass, count: count)
    }

    /// The region for a gray8 `image` (see the type's discussion); the whole image without ink.
    public static func bounds(_ image: ImageFrame, options o: Options, invert: Bool) -> NormalizedRect {
        guard let ink = ink(image, options: o, invert: invert), image.width > 0, image.height > 0 else {
            return NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)
        }
        let w = Double(image.width), h = Double(image.height)
        let side = Double(max(ink.maxX - ink.minX + 1, ink.maxY - ink.minY + 1)) * o.frameSize / o.boxSize
        // Where the centre of mass sits in the frame, from the frame's centre, in frame pixels.
        let offset = (o.frameSize / 2).rounded(.down) + 0.5 - o.frameSize / 2
        let shift = side * offset / o.frameSize
        return NormalizedRect(xCenter: (ink.centerX - shift) / w, yCenter: (ink.centerY - shift) / h, width: side / w, height: side / h)
    }

    /// 255 − value for every pixel of a gray8 image.
    public static func inverted(_ image: ImageFrame, pool: ImagePool = .shared) throws -> ImageFrame {
        var out = try pool.makeImage(width: image.width, height: image.height, format: .gray8)
        for y in 0..<image.height {
            let src = image.row(y)
            out.withMutableRow(y) { dst in
                for x in 0..<src.count { dst[x] = ~src[x] }  // 255 − value
            }
        }
        return out.freeze()
    }
}
