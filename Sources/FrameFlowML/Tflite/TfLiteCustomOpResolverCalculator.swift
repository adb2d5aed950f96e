import Foundation
import FrameFlow
import FrameFlowInference

/// What `TfLiteCustomOpResolverCalculator` gives on `OP_RESOLVER`: a marker that a graph asked
/// for MediaPipe's custom TFLite ops. FrameFlow's engine has its ops built in, so
/// `InferenceCalculator` accepts it and needs nothing from it.
public struct TfLiteOpResolver: Sendable, Equatable {
    /// Whether the graph asked for the GPU variant of the ops.
    public var useGpu: Bool
    public init(useGpu: Bool = false) { self.useGpu = useGpu }
}

/// Gives the `OP_RESOLVER` side packet MediaPipe graphs connect to `InferenceCalculator`, as
/// MediaPipe's `TfLiteCustomOpResolverCalculator` does.
///
/// Output side packets:
///   - `OP_RESOLVER`: `TfLiteOpResolver`.
/// Options: `mediapipe.TfLiteCustomOpResolverCalculatorOptions` { use_gpu (false) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "TfLiteCustomOpResolverCalculator"
///   output_side_packet: "OP_RESOLVER:op_resolver"
/// }
/// ```
public final class TfLiteCustomOpResolverCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.TfLiteCustomOpResolverCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.tfLiteCustomOpResolverCalculatorOptions }
        public var useGpu = false
        public init() {}
    }

    /// The op resolver.
    public static let opResolver = OutputSidePacket<TfLiteOpResolver>("OP_RESOLVER")

    public static let contract = CalculatorContract(ports: [opResolver])

    private let options: Options

    public init(options: Options) { self.options = options }

    public func open(_ cc: CalculatorContext) throws {
        try cc.set(TfLiteOpResolver(useGpu: options.useGpu), to: Self.opResolver)
    }

    /// Nothing per frame: the output is the side packet.
    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}
