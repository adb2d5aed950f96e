import FrameFlow

/// A calculator that turns one image into one image, as GStreamer's `GstVideoFilter`: it
/// implements `filter(_:context:)`, and the protocol supplies the ports (`IMAGE` in, `IMAGE`
/// out, or untagged ones) and `process`.
///
/// ```swift
/// final class InvertCalculator: ImageFilterCalculator {
///     init(options: NoOptions) {}
///     func filter(_ image: ImageFrame, context: CalculatorContext) throws -> ImageFrame? { … }
/// }
/// ```
public protocol ImageFilterCalculator: Calculator {
    /// The tag of the image input and output: `IMAGE` (MediaPipe's image calculators), or
    /// "" for untagged ports.
    static var imageTag: String { get }
    /// The filtered image, or nil to emit nothing at this timestamp. Split rows across the
    /// graph's workers with `context` (see `Kernels.rows`).
    func filter(_ image: ImageFrame, context: CalculatorContext) throws -> ImageFrame?
}

extension ImageFilterCalculator {
    public static var imageTag: String { "IMAGE" }

    public static var contract: CalculatorContract {
        CalculatorContract(inputs: [PortSpec(imageTag, ImageFrame.self)], outputs: [PortSpec(imageTag, ImageFrame.self)])
    }

    public func process(_ cc: CalculatorContext) throws {
        let image = try cc.input(Self.imageTag, as: ImageFrame.self)
        if let out = try filter(image, context: cc) { try cc.emit(out, tag: Self.imageTag) }
    }
}
