import FrameFlow

/// `mediapipe.ClipVectorSizeCalculatorOptions`.
public struct ClipVectorSizeCalculatorOptions: CalculatorOptions, Equatable {
    public static let typeName: String? = "mediapipe.ClipVectorSizeCalculatorOptions"
    /// mediapipe/calculators/core/clip_vector_size_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.clipVectorSizeCalculatorOptions }
    /// The most elements the output keeps (at least 1).
    public var maxVecSize = 1
    public init() {}
    public init(maxVecSize: Int) { self.maxVecSize = maxVecSize }
    public func validate() throws {
        if maxVecSize < 1 { throw GraphError(.invalidOption, "max_vec_size must be at least 1, got \(maxVecSize)") }
    }
}

/// Keeps the first `max_vec_size` elements of a vector, as MediaPipe's
/// `Clip…VectorSizeCalculator`s (e.g. at most two palms go on to hand tracking).
///
/// Inputs:
///   - (untagged) `[Element]`.
/// Outputs:
///   - (untagged) `[Element]`: the first `max_vec_size` elements (all of a shorter vector).
/// Side packets:
///   - (untagged, optional) `Int`: the size, instead of the option's.
/// Options: `mediapipe.ClipVectorSizeCalculatorOptions` { max_vec_size (1, ≥ 1; only compared) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ClipDetectionVectorSizeCalculator"
///   input_stream: "all_palm_detections"
///   output_stream: "palm_detections"
///   input_side_packet: "num_hands"
/// }
/// ```
open class ClipVectorSizeCalculator<Element: Sendable>: Calculator {
    public typealias Options = ClipVectorSizeCalculatorOptions

    public static var contract: CalculatorContract {
        CalculatorContract(
            inputs: [.init("", [Element].self)], outputs: [.init("", [Element].self)],
            inputSidePackets: [.init("", Int.self, optional: true)])
    }

    public let options: Options
    /// The size in force: the side packet's, else the option's.
    private var maxSize: Int

    public required init(options: Options) {
        self.options = options
        maxSize = options.maxVecSize
    }

    open func open(_ cc: CalculatorContext) throws {
        if let side = cc.sidePacket(), !side.isEmpty { maxSize = try cc.sidePacket(as: Int.self) }
        guard maxSize >= 1 else {
            throw GraphError(.invalidOption, "max_vec_size must be at least 1, the side packet gives \(maxSize)", node: cc.nodeName)
        }
    }

    open func process(_ cc: CalculatorContext) throws {
        guard cc.hasInput() else { return }
        let vector = try cc.input(as: [Element].self)
        try cc.emit(Array(vector.prefix(maxSize)))
    }
}

/// `ClipVectorSizeCalculator` of `[NormalizedRect]`.
public final class ClipNormalizedRectVectorSizeCalculator: ClipVectorSizeCalculator<NormalizedRect> {}
/// `ClipVectorSizeCalculator` of `[Detection]`.
public final class ClipDetectionVectorSizeCalculator: ClipVectorSizeCalculator<Detection> {}
