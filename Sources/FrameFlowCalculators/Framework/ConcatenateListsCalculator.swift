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
open class ConcatenateListsCalculator<List: ElementList & Sendable>: Calculator {
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
        var joined: [List.Element] = []
        for i in 0..<cc.inputCount {
            let packet = cc.input(at: i)
            if packet.isEmpty { continue }
            joined += try packet.get(List.self, stream: cc.inputStreamName(atPosition: i)).elements
        }
        cc.emit(packet: Packet(List(elements: joined), at: cc.inputTimestamp), atPosition: 0)
    }
}

/// `ConcatenateListsCalculator` of `NormalizedLandmarkList`s.
public final class ConcatenateNormalizedLandmarkListCalculator: ConcatenateListsCalculator<NormalizedLandmarkList> {}
/// `ConcatenateListsCalculator` of `LandmarkList`s.
public final class ConcatenateLandmarkListCalculator: ConcatenateListsCalculator<LandmarkList> {}
/// `ConcatenateListsCalculator` of `ClassificationList`s.
public final class ConcatenateClassificationListCalculator: ConcatenateListsCalculator<ClassificationList> {}
