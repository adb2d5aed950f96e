import FrameFlow

/// Crops a rectangle out of an image, in pixels or normalized to the image size, clamped
/// to the image.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (packed 8-bit).
///   - `RECT` (optional): `Rect` in pixels, overrides the options for that frame.
/// Outputs:
///   - `IMAGE`: the cropped image.
/// Options: `mediapipe.ImageCroppingCalculatorOptions` { x, y (pixels, −65536…65536), width,
/// height (pixels, 0…65536; 0: the image's) or norm_x, norm_y (−1…1), norm_width, norm_height
/// (0…1; used when norm_width > 0) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ImageCroppingCalculator"
///   input_stream: "IMAGE:frame"
///   output_stream: "IMAGE:centre"
///   options { [mediapipe.ImageCroppingCalculatorOptions.ext] { norm_x: 0.25 norm_y: 0.25 norm_width: 0.5 norm_height: 0.5 } }
/// }
/// ```
public final class ImageCroppingCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.ImageCroppingCalculatorOptions"
        public var x = 0
        public var y = 0
        public var width = 0
        public var height = 0
        public var normX = 0.0
        public var normY = 0.0
        public var normWidth = 0.0
        public var normHeight = 0.0
        public init() {}

        public func validate() throws {
            try OptionCheck.range(x, -65536...65536, "x")
            try OptionCheck.range(y, -65536...65536, "y")
            try OptionCheck.range(width, 0...65536, "width")
            try OptionCheck.range(height, 0...65536, "height")
            try OptionCheck.range(normX, -1...1, "norm_x")
            try OptionCheck.range(normY, -1...1, "norm_y")
            try OptionCheck.range(normWidth, 0...1, "norm_width")
            try OptionCheck.range(normHeight, 0...1, "norm_height")
        }
    }

    /// The image to crop.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The crop, in pixels (else the options give it).
    public static let rect = InputPort<Rect>("RECT", optional: true)
    /// The cropped image.
    public static let cropped = OutputPort<ImageFrame>("IMAGE")

    public static let contract = CalculatorContract(ports: [image, rect, cropped])

    public var options: Options
    public init(options: Options) { self.options = options }

    public func process(_ cc: CalculatorContext) throws {
        guard let image = try cc.value(Self.image) else { return }
        let r: Rect
        if let rect = try cc.value(Self.rect) {
            r = rect
        } else if options.normWidth > 0 {
            r = Rect(
                x: options.normX * Double(image.width), y: options.normY * Double(image.height),
                width: options.normWidth * Double(image.width), height: options.normHeight * Double(image.height))
        } else {
            r = Rect(
                x: Double(options.x), y: Double(options.y), width: Double(options.width > 0 ? options.width : image.width),
                height: Double(options.height > 0 ? options.height : image.height))
        }
        try cc.emit(
            try Self.crop(
                image, x: Int(saturating: r.x.rounded()), y: Int(saturating: r.y.rounded()), width: Int(saturating: r.width.rounded()),
                height: Int(saturating: r.height.rounded()), pool: cc.pool),
            to: Self.cropped)
    }

    /// The part of `image` inside the rectangle, clamped to the image (at least 1×1). Any
    /// `Int`s (a RECT packet's may be huge): the sums saturate instead of overflowing.
    public static func crop(_ image: ImageFrame, x: Int, y: Int, width: Int, height: Int, pool: ImagePool = .shared) throws -> ImageFrame {
        guard let layout = Kernels.layout(image.format) else { throw ImageError.unsupportedFormat(image.format, "ImageCroppingCalculator") }
        func end(_ a: Int, _ b: Int) -> Int {
            let (s, overflow) = a.addingReportingOverflow(b)
            return overflow ? (b > 0 ? Int.max : Int.min) : s
        }
        let x0 = min(max(x, 0), image.width - 1), y0 = min(max(y, 0), image.height - 1)
        let x1 = min(max(end(x, width), x0 + 1), image.width), y1 = min(max(end(y, height), y0 + 1), image.height)
        var out = try pool.makeImage(width: x1 - x0, height: y1 - y0, format: image.format)
        for row in y0..<y1 {
            let src = Kernels.rowPointer(image, row) + x0 * layout.bpp
            out.withMutableRow(row - y0) { $0.baseAddress!.update(from: src, count: (x1 - x0) * layout.bpp) }
        }
        return out.freeze()
    }
}

extension ImageCroppingCalculator.Options {
    /// mediapipe/calculators/image/image_cropping_calculator.proto, for binary graphs:
    /// MediaPipe's fields under MediaPipe's names.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.imageCroppingCalculatorOptions }
}
