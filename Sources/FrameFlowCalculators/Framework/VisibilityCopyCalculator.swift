import FrameFlow

/// Copies visibility and presence from one landmark list to another, as MediaPipe's
/// `VisibilityCopyCalculator` (Pose gives its world landmarks the smoothed visibility of its
/// image landmarks with it).
///
/// Output landmark `i` is landmark `i` of the `…_TO` list with the visibility and presence of
/// landmark `i` of the `…_FROM` list (0 where that one has none), each as its option says. The
/// output has as many landmarks as the `…_FROM` list, as in MediaPipe; a shorter `…_TO` list is
/// an error. A timestamp where either list is missing gives nothing.
///
/// Inputs:
///   - `LANDMARKS_FROM`: `LandmarkList`, or `NORM_LANDMARKS_FROM`: `NormalizedLandmarkList`.
///   - `LANDMARKS_TO`: `LandmarkList`, or `NORM_LANDMARKS_TO`: `NormalizedLandmarkList`.
/// Outputs:
///   - `LANDMARKS_TO` or `NORM_LANDMARKS_TO`, the tag and type of the `…_TO` input.
/// Options: `mediapipe.VisibilityCopyCalculatorOptions` (extension 363728421)
/// { copy_visibility (true), copy_presence (true) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "VisibilityCopyCalculator"
///   input_stream: "NORM_LANDMARKS_FROM:filtered_landmarks"
///   input_stream: "LANDMARKS_TO:world_landmarks"
///   output_stream: "LANDMARKS_TO:world_landmarks_with_visibility"
///   options {
///     [mediapipe.VisibilityCopyCalculatorOptions.ext] { copy_visibility: true copy_presence: true }
///   }
/// }
/// ```
public final class VisibilityCopyCalculator: Calculator {
    /// MediaPipe's `VisibilityCopyCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.VisibilityCopyCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.visibilityCopyCalculatorOptions }

        public var copyVisibility = true
        public var copyPresence = true
        public init() {}
        public init(copyVisibility: Bool, copyPresence: Bool) {
            self.copyVisibility = copyVisibility
            self.copyPresence = copyPresence
        }
    }

    public static let contract = CalculatorContract(
        inputs: [
            PortSpec("LANDMARKS_FROM", LandmarkList.self, optional: true),
            PortSpec("NORM_LANDMARKS_FROM", NormalizedLandmarkList.self, optional: true),
            PortSpec("LANDMARKS_TO", LandmarkList.self, optional: true),
            PortSpec("NORM_LANDMARKS_TO", NormalizedLandmarkList.self, optional: true),
        ],
        outputs: [
            PortSpec("LANDMARKS_TO", LandmarkList.self, optional: true),
            PortSpec("NORM_LANDMARKS_TO", NormalizedLandmarkList.self, optional: true),
        ])

    private let options: Options
    private var from = "NORM_LANDMARKS_FROM"
    private var to = "LANDMARKS_TO"

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        from = try cc.connectedInputTag(oneOf: ["LANDMARKS_FROM", "NORM_LANDMARKS_FROM"])
        to = try cc.connectedInputTag(oneOf: ["LANDMARKS_TO", "NORM_LANDMARKS_TO"])
        guard cc.hasOutputPort(to) else {
            throw GraphError(.invalidPort, "\(to) needs an output of the same tag", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.hasInput(from), cc.hasInput(to) else { return }
        let source: [(visibility: Double?, presence: Double?)]
        if from == "LANDMARKS_FROM" {
            source = try cc.input(from, as: LandmarkList.self).landmark.map { ($0.visibility, $0.presence) }
        } else {
            source = try cc.input(from, as: NormalizedLandmarkList.self).landmark.map { ($0.visibility, $0.presence) }
        }
        if to == "LANDMARKS_TO" {
            try cc.emit(LandmarkList(try copy(source, to: cc.input(to, as: LandmarkList.self).landmark, cc)), tag: to)
        } else {
            try cc.emit(NormalizedLandmarkList(try copy(source, to: cc.input(to, as: NormalizedLandmarkList.self).landmark, cc)), tag: to)
        }
    }

    private func copy<Space>(
        _ source: [(visibility: Double?, presence: Double?)], to target: [LandmarkPoint<Space>], _ cc: CalculatorContext
    ) throws -> [LandmarkPoint<Space>] {
        guard target.count >= source.count else {
            throw GraphError(
                .calculatorFailed, "\(target.count) landmarks to copy to but \(source.count) to copy from", node: cc.nodeName,
                stream: cc.inputStreamName(to))
        }
        return source.indices.map { i in
            var p = target[i]
            if options.copyVisibility { p.visibility = source[i].visibility ?? 0 }
            if options.copyPresence { p.presence = source[i].presence ?? 0 }
            return p
        }
    }
}
