import FrameFlow

/// Turns MediaPipe's general `Image` back into an `ImageFrame`, as MediaPipe's
/// `FromImageCalculator`. In FrameFlow both are `ImageFrame`, so the image passes unchanged;
/// the calculator exists so MediaPipe graphs run as written.
///
/// Inputs: `IMAGE` (ImageFrame).
/// Outputs:
///   - `IMAGE_CPU` (ImageFrame): the image. `IMAGE_GPU` is refused: FrameFlow has no GPU
///     images.
///   - `SOURCE_ON_GPU` (Bool, optional): whether the image was on the GPU: always false.
///
/// Example usage:
/// ```
/// node {
///   calculator: "FromImageCalculator"
///   input_stream: "IMAGE:segmented_image"
///   output_stream: "IMAGE_CPU:segmented_frame"
/// }
/// ```
public final class FromImageCalculator: Calculator {
    public static let contract = CalculatorContract(
        inputs: [.init("IMAGE", ImageFrame.self)],
        outputs: [
            .init("IMAGE_CPU", ImageFrame.self, optional: true), .init("IMAGE_GPU", optional: true),
            .init("SOURCE_ON_GPU", Bool.self, optional: true),
        ])

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        if cc.hasOutputPort("IMAGE_GPU") {
            throw GraphError(
                .invalidPort, "FromImageCalculator: IMAGE_GPU is not supported (FrameFlow has no GPU images); use IMAGE_CPU",
                node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let image = try cc.input("IMAGE", as: ImageFrame.self)
        try cc.emit(image, tag: "IMAGE_CPU")
        try cc.emit(false, tag: "SOURCE_ON_GPU")
    }
}
