import FrameFlow

/// Turns an image into MediaPipe's general `Image`, as MediaPipe's `ToImageCalculator`. In
/// FrameFlow both are `ImageFrame`, so the image passes unchanged; the calculator exists so
/// MediaPipe graphs run as written.
///
/// Inputs: exactly one of `IMAGE` or `IMAGE_CPU` (ImageFrame). `IMAGE_GPU` is refused:
///   FrameFlow has no GPU images.
/// Outputs: `IMAGE` (ImageFrame).
///
/// Example usage:
/// ```
/// node {
///   calculator: "ToImageCalculator"
///   input_stream: "IMAGE_CPU:input_frame"
///   output_stream: "IMAGE:input_image"
/// }
/// ```
public final class ToImageCalculator: Calculator {
    public static let contract = CalculatorContract(
        inputs: ImageTags.inputs,
        outputs: [.init("IMAGE", ImageFrame.self)])

    private var tag = "IMAGE"

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        tag = try ImageTags.singleInput(cc, calculator: "ToImageCalculator")
    }

    public func process(_ cc: CalculatorContext) throws {
        try cc.emit(cc.input(tag, as: ImageFrame.self), tag: "IMAGE")
    }
}
