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

    /// The landmarks to copy from (or `NORM_LANDMARKS_FROM`).
    public static let landmarksFrom = InputPort<LandmarkList>("LANDMARKS_FROM", optional: true)
    /// The normalized landmarks to copy from (or `LANDMARKS_FROM`).
    public static let normLandmarksFrom = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS_FROM", optional: true)
    /// The landmarks to copy to (or `NORM_LANDMARKS_TO`).
    public static let landmarksTo = InputPort<LandmarkList>("LANDMARKS_TO", optional: true)
    /// The normalized landmarks to copy to (or `LANDMARKS_TO`).
    public static let normLandmarksTo = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS_TO", optional: true)
    /// `LANDMARKS_TO` with the copied values.
    public static let copiedLandmarks = OutputPort<LandmarkList>("LANDMARKS_TO", optional: true)
    /// `NORM_LANDMARKS_TO` with the copied values.
    public static let copiedNormLandmarks = OutputPort<NormalizedLandmarkList>("NORM_LANDMARKS_TO", optional: true)

    public static let contract = CalculatorContract(
        ports: [landmarksFrom, normLandmarksFrom, landmarksTo, normLandmarksTo, copiedLandmarks, copiedNormLandmarks])

    private let options: Options
    private var from = "NORM_LANDMARKS_FROM"
    private var to = "LANDMARKS_TO"

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        from = try cc.connectedInputTag(oneOf: [Self.landmarksFrom.tag, Self.normLandmarksFrom.tag])
        to = try cc.connectedInputTag(oneOf: [Self.landmarksTo.tag, Self.normLandmarksTo.tag])
        guard cc.hasOutputPort(to) else {
            throw GraphError(.invalidPort, "\(to) needs an output of the same tag", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.hasInput(from), cc.hasInput(to) else { return }
        let source: [(visibility: Double?, presence: Double?)]
        if from == Self.landmarksFrom.tag {
            source = try cc.get(Self.landmarksFrom).landmark.map { ($0.visibility, $0.presence) }
        } else {
            source = try cc.get(Self.normLandmarksFrom).landmark.map { ($0.visibility, $0.presence) }
        }
        if to == Self.landmarksTo.tag {
            try cc.emit(LandmarkList(try copy(source, to: cc.get(Self.landmarksTo).landmark, cc)), to: Self.copiedLandmarks)
        } else {
            try cc.emit(NormalizedLandmarkList(try copy(source, to: cc.get(Self.normLandmarksTo).landmark, cc)), to: Self.copiedNormLandmarks)
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
