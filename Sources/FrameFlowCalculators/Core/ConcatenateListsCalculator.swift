import FrameFlow

/// Joins list messages into one, as MediaPipe's `Concatenate…ListCalculator`s
/// (concatenate_proto_list_calculator): the landmarks (or classifications) of each input's
/// list, in input order.
///
/// Inputs:
///   - (untagged, one or more) `List` (`NormalizedLandmarkList`, `LandmarkList`,
///     `ClassificationList`); inputs without a packet at a timestamp add nothing.
/// Outputs:
///   - (untagged) `List`, at the input timestamp.
/// Options: `mediapipe.ConcatenateVectorCalculatorOptions` { only_emit_if_all_present (false):
/// send nothing unless every input has a packet }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ConcatenateNormalizedLandmarkListCalculator"
///   input_stream: "face_landmarks"
///   input_stream: "refined_lips_landmarks"
///   output_stream: "all_landmarks"
/// }
/// ```
open class ConcatenateListsCalculator<List: ElementList & Sendable>: ConcatenatingCalculator<List.Element> {
    /// The list's elements; a packet holding something else is an error naming the stream.
    open override func elements(of packet: Packet, atPosition position: Int, _ cc: CalculatorContext) throws -> [List.Element] {
        try packet.get(List.self, stream: cc.inputStreamName(atPosition: position)).elements
    }

    open override func output(_ elements: [List.Element], at timestamp: Timestamp) -> Packet {
        Packet(List(elements: elements), at: timestamp)
    }
}

/// `ConcatenateListsCalculator` of `NormalizedLandmarkList`s.
public final class ConcatenateNormalizedLandmarkListCalculator: ConcatenateListsCalculator<NormalizedLandmarkList> {}
/// `ConcatenateListsCalculator` of `LandmarkList`s.
public final class ConcatenateLandmarkListCalculator: ConcatenateListsCalculator<LandmarkList> {}
/// `ConcatenateListsCalculator` of `ClassificationList`s.
public final class ConcatenateClassificationListCalculator: ConcatenateListsCalculator<ClassificationList> {}
