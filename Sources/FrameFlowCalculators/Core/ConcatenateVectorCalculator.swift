import FrameFlow

/// `mediapipe.ConcatenateVectorCalculatorOptions`.
public struct ConcatenateVectorCalculatorOptions: CalculatorOptions, Equatable {
    public static let typeName: String? = "mediapipe.ConcatenateVectorCalculatorOptions"
    /// mediapipe/calculators/core/concatenate_vector_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.concatenateVectorCalculatorOptions }
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
open class ConcatenateVectorCalculator<Element: Sendable>: ConcatenatingCalculator<Element> {
    /// One `Element`, or an `[Element]`'s elements.
    open override func elements(of packet: Packet, atPosition position: Int, _ cc: CalculatorContext) throws -> [Element] {
        guard let payload = packet.payload else { return [] }
        if let one = payload as? Element { return [one] }
        if let many = payload as? [Element] { return many }
        throw GraphError(
            .typeMismatch, "packet at \(cc.inputTimestamp) holds \(type(of: payload)), not \(Element.self) or [\(Element.self)]",
            node: cc.nodeName, stream: cc.inputStreamName(atPosition: position))
    }

    open override func output(_ elements: [Element], at timestamp: Timestamp) -> Packet { Packet(elements, at: timestamp) }
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
/// MediaPipe's `MergeImagesToVectorCalculator`: its inputs' images, in input order, as one
/// `[ImageFrame]` (the Tasks ImageSegmenter's confidence masks).
public final class MergeImagesToVectorCalculator: ConcatenateVectorCalculator<ImageFrame> {}
