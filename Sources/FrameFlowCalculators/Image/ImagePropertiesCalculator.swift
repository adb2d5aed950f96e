import FrameFlow

/// Reports each image's size, as MediaPipe's `ImagePropertiesCalculator`: an `ImageSize`
/// (MediaPipe's `std::pair<int, int>`, width then height) at the image's timestamp.
///
/// Inputs: exactly one of `IMAGE` or `IMAGE_CPU` (ImageFrame). `IMAGE_GPU` is refused:
///   FrameFlow has no GPU images.
/// Outputs: `SIZE` (ImageSize).
///
/// Example usage:
/// ```
/// node {
///   calculator: "ImagePropertiesCalculator"
///   input_stream: "IMAGE:input_video"
///   output_stream: "SIZE:image_size"
/// }
/// ```
public final class ImagePropertiesCalculator: Calculator {
    public static let contract = CalculatorContract(
        inputs: ImageTags.inputs,
        outputs: [.init("SIZE", ImageSize.self)])

    private var tag = "IMAGE"

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        tag = try ImageTags.singleInput(cc, calculator: "ImagePropertiesCalculator")
    }

    public func process(_ cc: CalculatorContext) throws {
        let image = try cc.input(tag, as: ImageFrame.self)
        try cc.emit(ImageSize(width: image.width, height: image.height), tag: "SIZE")
    }
}
