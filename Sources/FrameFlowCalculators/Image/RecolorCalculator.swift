import FrameFlow

/// Paints a colour over the masked part of an image, as MediaPipe's `RecolorCalculator` does
/// on the CPU (e.g. the background of a selfie segmentation, with `invert_mask`).
///
/// The mask is resized to the image when their sizes differ (OpenCV's bilinear, see
/// `ImageFrame.resizedBilinear`). For each pixel, with weight w (the mask value; 8-bit masks
/// ÷ 255; 1 − w with `invert_mask`) and luminance L = (0.299 R + 0.587 G + 0.114 B) / 255 when
/// `adjust_with_luminance` (else 1), m = w · L and each channel becomes
/// `round(c · (1 − m)) + round(colour · m)`, each term and the sum clamped to 0…255, halves
/// to even: MediaPipe's 8-bit arithmetic. Alpha, when the image has one, is kept. Without a
/// `MASK` packet the image passes through unchanged.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` in rgb8 (MediaPipe's SRGB), rgba8 or bgra8.
///   - `MASK`: `ImageFrame`: gray_f32 (0…1), gray8, or rgb8/rgba8/bgra8 read at `mask_channel`.
/// Outputs:
///   - `IMAGE`: `ImageFrame`, the input's size and format. (`IMAGE_GPU` / `MASK_GPU` are not
///     supported: FrameFlow has no GPU images.)
/// Options: `mediapipe.RecolorCalculatorOptions` (extension 252527117) { color { r g b }
///   (required), mask_channel (RED, ALPHA; RED), invert_mask (false),
///   adjust_with_luminance (true) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "RecolorCalculator"
///   input_stream: "IMAGE:input_video"
///   input_stream: "MASK:segmentation_mask"
///   output_stream: "IMAGE:output_video"
///   options { [mediapipe.RecolorCalculatorOptions.ext] {
///     color { r: 0 g: 0 b: 255 } mask_channel: RED invert_mask: true adjust_with_luminance: false
///   } }
/// }
/// ```
public final class RecolorCalculator: Calculator {
    /// MediaPipe's `RecolorCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.RecolorCalculatorOptions"
        /// mediapipe/calculators/image/recolor_calculator.proto, for binary graphs.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.recolorCalculatorOptions }

        /// Which channel of a colour mask is the weight.
        public enum MaskChannel: String, Codable, Sendable {
            case unknown = "UNKNOWN", red = "RED", alpha = "ALPHA"
        }

        /// The mask channel of colour masks (`UNKNOWN` reads red, as MediaPipe does).
        public var maskChannel = MaskChannel.red
        /// The colour painted where the mask is set (required).
        public var color: RenderColor?
        /// Paint where the mask is unset instead.
        public var invertMask = false
        /// Scale the weight by the pixel's luminance, which keeps the image's texture.
        public var adjustWithLuminance = true
        public init() {}

        public func validate() throws {
            guard let color else { throw GraphError(.invalidOption, "color is required") }
            guard color.isValid else { throw GraphError(.invalidOption, "color: r, g and b must be in 0…255") }
        }
    }

    /// The image to recolor.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The mask weighting the new color.
    public static let mask = InputPort<ImageFrame>("MASK")
    /// The recolored image.
    public static let recolored = OutputPort<ImageFrame>("IMAGE")

    public static let contract = CalculatorContract(ports: [image, mask, recolored])

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.image) else { return }
        guard cc.has(Self.mask) else {
            cc.emit(packet: cc.input(Self.image.tag), atPosition: 0)
            return
        }
        let image = try cc.get(Self.image)
        let mask = try cc.get(Self.mask)
        let stream = cc.inputStreamName(Self.mask.tag)
        let weights = try Self.weights(mask, channel: options.maskChannel, width: image.width, height: image.height, pool: cc.pool) {
            GraphError(.calculatorFailed, $0, stream: stream)
        }
        let offsets: [Int]
        switch image.format {
        case .rgb8, .rgba8: offsets = [0, 1, 2]
        case .bgra8: offsets = [2, 1, 0]
        default:
            throw GraphError(
                .calculatorFailed, "IMAGE must be rgb8, rgba8 or bgra8, not \(image.format)", stream: cc.inputStreamName(Self.image.tag))
        }
        let color = options.color ?? RenderColor()
        let paint = [Double(color.r), Double(color.g), Double(color.b)]
        let invert = options.invertMask, luminance = options.adjustWithLuminance
        let out = try image.mutableCopy(pool: cc.pool)
        let n = image.format.bytesPerPixel(), plane = out.planes[0]
        let w = image.width
        weights.withUnsafeBufferPointer { wts in
            for y in 0..<image.height {
                let row = (plane.baseAddress + y * plane.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for x in 0..<w {
                    let px = row + x * n
                    let rgb = (px[offsets[0]], px[offsets[1]], px[offsets[2]])
                    let mixed = Self.blend(rgb, paint: paint, weight: wts[y * w + x], invert: invert, luminance: luminance)
                    px[offsets[0]] = mixed.0
                    px[offsets[1]] = mixed.1
                    px[offsets[2]] = mixed.2
                }
            }
        }
        try cc.emit(out.freeze(), to: Self.recolored)
    }

    /// The mask's weights at the image's size, row by row.
    static func weights(
        _ mask: ImageFrame, channel: Options.MaskChannel, width: Int, height: Int, pool: ImagePool, error: (String) -> GraphError
    ) throws -> [Float] {
        var floats: ImageFrame
        switch mask.format {
        case .grayFloat32:
            floats = mask
        case .gray8, .rgb8, .rgba8, .bgra8:
            var c = 0
            if mask.format != .gray8 {
                if channel == .alpha {
                    guard mask.format.channels == 4 else { throw error("mask_channel ALPHA needs a mask with alpha, not \(mask.format)") }
                    c = 3
                } else {
                    c = mask.format == .bgra8 ? 2 : 0
                }
            }
            let n = mask.format.bytesPerPixel()
            var v = [Float](repeating: 0, count: mask.width * mask.height)
            for y in 0..<mask.height {
                let row = mask.row(y)
                for x in 0..<mask.width { v[y * mask.width + x] = Float(Double(row[x * n + c]) * (1.0 / 255.0)) }
            }
            floats = try ImageFrame.grayFloat(width: mask.width, height: mask.height, values: v, pool: pool)
        default:
            throw error("MASK must be gray_f32, gray8, rgb8, rgba8 or bgra8, not \(mask.format)")
        }
        return try floats.resizedBilinear(width: width, height: height, pool: pool).grayFloatValues()
    }

    /// One pixel (R, G, B) mixed with `paint` by `weight`, with MediaPipe's rounding.
    @inline(__always)
    public static func blend(_ rgb: (UInt8, UInt8, UInt8), paint: [Double], weight: Float, invert: Bool, luminance: Bool) -> (
        UInt8, UInt8, UInt8
    ) {
        let w = invert ? 1 - weight : weight
        let l = luminance ? Float((Double(rgb.0) * 0.299 + Double(rgb.1) * 0.587 + Double(rgb.2) * 0.114) / 255) : 1
        let m = Double(w * l)
        func byte(_ v: Double) -> Double { min(max(v.rounded(.toNearestOrEven), 0), 255) }
        func mix(_ c: UInt8, _ p: Double) -> UInt8 { UInt8(saturating: min(byte(Double(c) * (1 - m)) + byte(p * m), 255)) }
        return (mix(rgb.0, paint[0]), mix(rgb.1, paint[1]), mix(rgb.2, paint[2]))
    }
}
