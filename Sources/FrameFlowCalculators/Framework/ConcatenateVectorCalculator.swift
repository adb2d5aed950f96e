import FrameFlow

/// `mediapipe.ConcatenateVectorCalculatorOptions`.
public struct ConcatenateVectorCalculatorOptions: CalculatorOptions, Equatable {
    public static let typeName: String? = "mediapipe.ConcatenateVectorCalculatorOptions"
    /// mediapipe/calculators/core/concatenate_vector_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? {
        ProtoSchema(
            "mediapipe.ConcatenateVectorCalculatorOptions", extension: 259397839,
            fields: [.init(1, "only_emit_if_all_present", .bool)])
    }
    /// Send nothing at a timestamp where any input has no packet.
    public var onlyEmitIfAllPresent = false
    public init() {}
    public init(onlyEmitIfAllPresent: Bool) { self.onlyEmitIfAllPresent = onlyEmitIfAllPresent }
}

/// Joins its inputs into one vector, as MediaPipe's `Concatenate…VectorCalculator`s: each
/// input packet is either one `Element` or an `[Element]`, appended in input order.
///
/// Inputs:
///   - (untagged, one or more) `Element` or `[Element]`; inputs without a packet at a timestamp
///     add nothing.
/// Outputs:
///   - (untagged) `[Element]`, at the input timestamp.
/// Options: `mediapipe.ConcatenateVectorCalculatorOptions` { only_emit_if_all_present (false):
/// send nothing unless every input has a packet }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ConcatenateRenderDataVectorCalculator"
///   input_stream: "detections_render_data"
///   input_stream: "landmarks_render_data"
///   output_stream: "render_data"
/// }
/// ```
open class ConcatenateVectorCalculator<Element: Sendable>: Calculator {
    public typealias Options = ConcatenateVectorCalculatorOptions

    /// Any number of untagged inputs; one untagged output (checked in `open`).
    public static var contract: CalculatorContract { CalculatorContract(acceptsAnyPorts: true) }

    public let options: Options

    public required init(options: Options) { self.options = options }

    open func open(_ cc: CalculatorContext) throws {
        guard cc.inputCount >= 1, cc.outputCount == 1 else {
            throw GraphError(
                .invalidPort, "takes one or more input streams and one output stream, got \(cc.inputCount) and \(cc.outputCount)",
                node: cc.nodeName)
        }
    }

    open func process(_ cc: CalculatorContext) throws {
        if options.onlyEmitIfAllPresent && (0..<cc.inputCount).contains(where: { cc.input(at: $0).isEmpty }) { return }
        var joined: [Element] = []
        for i in 0..<cc.inputCount {
            guard let payload = cc.input(at: i).payload else { continue }
            if let one = payload as? Element {
                joined.append(one)
            } else if let many = payload as? [Element] {
                joined += many
            } else {
                throw GraphError(
                    .typeMismatch,
                    "packet at \(cc.inputTimestamp) holds \(type(of: payload)), not \(Element.self) or [\(Element.self)]",
                    node: cc.nodeName, stream: cc.inputStreamName(atPosition: i))
            }
        }
        cc.emit(packet: Packet(joined, at: cc.inputTimestamp), atPosition: 0)
    }
}

/// `ConcatenateVectorCalculator` of `RenderData`.
public final class ConcatenateRenderDataVectorCalculator: ConcatenateVectorCalculator<RenderData> {}
/// `ConcatenateVectorCalculator` of `Detection`.
public final class ConcatenateDetectionVectorCalculator: ConcatenateVectorCalculator<Detection> {}
/// `ConcatenateVectorCalculator` of `Float`.
public final class ConcatenateFloatVectorCalculator: ConcatenateVectorCalculator<Float> {}
/// `ConcatenateVectorCalculator` of `Int32`.
public final class ConcatenateInt32VectorCalculator: ConcatenateVectorCalculator<Int32> {}
/// `ConcatenateVectorCalculator` of `Bool`.
public final class ConcatenateBoolVectorCalculator: ConcatenateVectorCalculator<Bool> {}
/// `ConcatenateVectorCalculator` of `String`.
public final class ConcatenateStringVectorCalculator: ConcatenateVectorCalculator<String> {}
/// `ConcatenateVectorCalculator` of `NormalizedLandmark`.
public final class ConcatenateLandmarkVectorCalculator: ConcatenateVectorCalculator<NormalizedLandmark> {}
/// `ConcatenateVectorCalculator` of `LandmarkList`.
public final class ConcatenateLandmarkListVectorCalculator: ConcatenateVectorCalculator<LandmarkList> {}
/// `ConcatenateVectorCalculator` of `NormalizedLandmarkList`.
public final class ConcatenateNormalizedLandmarkListVectorCalculator: ConcatenateVectorCalculator<NormalizedLandmarkList> {}
/// `ConcatenateVectorCalculator` of `ClassificationList`.
public final class ConcatenateClassificationListVectorCalculator: ConcatenateVectorCalculator<ClassificationList> {}
