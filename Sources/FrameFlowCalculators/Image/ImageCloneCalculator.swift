import FrameFlow

/// Passes an image on unchanged, as MediaPipe's `ImageCloneCalculator` does on the CPU: there
/// it copies an image between CPU and GPU storage; FrameFlow's images live on the CPU and are
/// immutable, so the packet itself goes out. MediaPipe's expanded Tasks graphs put one before
/// every `ImageToTensorCalculator`.
///
/// Inputs: one untagged stream (an image; any payload passes). Outputs: one untagged stream.
/// Options: `mediapipe.ImageCloneCalculatorOptions` { output_on_gpu: must be false (FrameFlow
///   has no GPU images) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ImageCloneCalculator"
///   input_stream: "image"
///   output_stream: "image_cpu"
///   options { [mediapipe.ImageCloneCalculatorOptions.ext] { output_on_gpu: false } }
/// }
/// ```
public final class ImageCloneCalculator: Calculator {
    /// Where the output image lives.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.ImageCloneCalculatorOptions"
        /// mediapipe/calculators/image/image_clone_calculator.proto, for binary graphs.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.imageCloneCalculatorOptions }
        /// MediaPipe's request for a GPU image; FrameFlow accepts only false.
        public var outputOnGpu = false
        public init() {}

        public func validate() throws {
            if outputOnGpu { throw GraphError(.invalidOption, "output_on_gpu: FrameFlow's images are on the CPU; set it false") }
        }
    }

    public static let contract = CalculatorContract(inputs: [.init("", .any)], outputs: [.init("", .any)])

    public init(options: Options) {}

    public func process(_ cc: CalculatorContext) throws {
        let p = cc.input(at: 0)
        if !p.isEmpty { cc.emit(packet: p, atPosition: 0) }
    }
}
