import FrameFlow

/// Turns the size of a region into a scale for drawing, as MediaPipe's
/// `RectToRenderScaleCalculator`: Pose draws its skeleton with lines that grow with the person.
///
/// The scale is max(width·image width, height·image height) · `multiplier`, computed in float.
/// A timestamp with an image size but no rect gives `multiplier` itself. With
/// `process_timestamp_bounds` a timestamp that only advances the inputs' bounds also gives
/// `multiplier`, as MediaPipe's does.
///
/// Inputs:
///   - `NORM_RECT`: `NormalizedRect`.
///   - `IMAGE_SIZE`: `ImageSize`.
/// Outputs:
///   - `RENDER_SCALE`: `Float`.
/// Options: `mediapipe.RectToRenderScaleCalculatorOptions` (extension 299463409)
/// { multiplier (0.01, 0…1000), process_timestamp_bounds (false) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "RectToRenderScaleCalculator"
///   input_stream: "NORM_RECT:roi"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "RENDER_SCALE:render_scale"
///   options { [mediapipe.RectToRenderScaleCalculatorOptions.ext] { multiplier: 0.0012 } }
/// }
/// ```
public final class RectToRenderScaleCalculator: Calculator {
    /// MediaPipe's `RectToRenderScaleCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.RectToRenderScaleCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.rectToRenderScaleCalculatorOptions }

        public var multiplier: Float = 0.01
        public var processTimestampBounds = false

        public func validate() throws { try OptionCheck.range(multiplier, 0...1000, "multiplier") }
        public init() {}
        public init(multiplier: Float, processTimestampBounds: Bool = false) {
            self.multiplier = multiplier
            self.processTimestampBounds = processTimestampBounds
        }
    }

    // Bounds are always seen; without the option a call with no packets gives nothing.
    /// The rect whose size gives the scale.
    public static let rect = InputPort<NormalizedRect>("NORM_RECT")
    /// The image size the rect is relative to.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE")
    /// The render scale.
    public static let renderScale = OutputPort<Float>("RENDER_SCALE")

    public static let contract = CalculatorContract(ports: [rect, imageSize, renderScale], processesTimestampBounds: true)

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        let rect = cc.has(Self.rect), size = cc.has(Self.imageSize)
        if !rect && !size && !options.processTimestampBounds { return }
        guard rect else { return try cc.emit(options.multiplier, to: Self.renderScale) }
        guard size else {
            throw GraphError(
                .calculatorFailed, "a rect at \(cc.inputTimestamp) came without an IMAGE_SIZE packet", node: cc.nodeName,
                stream: cc.inputStreamName(Self.imageSize.tag))
        }
        let r = try cc.get(Self.rect)
        let s = try cc.get(Self.imageSize)
        try cc.emit(Self.scale(r, s, multiplier: options.multiplier), to: Self.renderScale)
    }

    /// max(width·image width, height·image height) · `multiplier`, in float.
    public static func scale(_ rect: NormalizedRect, _ size: ImageSize, multiplier: Float) -> Float {
        max(Float(rect.width) * Float(size.width), Float(rect.height) * Float(size.height)) * multiplier
    }
}
