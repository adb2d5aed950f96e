import FrameFlow

/// Sets the visibility of a single landmark, as MediaPipe's `SetLandmarkVisibilityCalculator`
/// (Holistic's drawing marks a hand's wrist as visible before it joins the pose skeleton).
///
/// The landmark list must hold exactly one landmark; it goes out with its visibility replaced
/// by the `VISIBILITY` value, everything else kept. A timestamp missing either input gives
/// nothing; a list of another length is an error naming the stream.
///
/// Inputs:
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList` of one landmark.
///   - `VISIBILITY`: `Float`.
/// Outputs:
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList` of that landmark with the new visibility.
/// Options: none.
///
/// Example usage:
/// ```
/// node {
///   calculator: "SetLandmarkVisibilityCalculator"
///   input_stream: "NORM_LANDMARKS:hand_wrist_landmark"
///   input_stream: "VISIBILITY:visible_score"
///   output_stream: "NORM_LANDMARKS:hand_wrist_landmark_with_visibility"
/// }
/// ```
public final class SetLandmarkVisibilityCalculator: Calculator {
    /// One landmark, in a list.
    public static let landmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS")
    /// The visibility to give it.
    public static let visibility = InputPort<Float>("VISIBILITY")
    /// The landmark with that visibility.
    public static let output = OutputPort<NormalizedLandmarkList>("NORM_LANDMARKS")

    public static let contract = CalculatorContract(ports: [landmarks, visibility, output])

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard let list = try cc.value(Self.landmarks), let visibility = try cc.value(Self.visibility) else { return }
        guard list.landmark.count == 1 else {
            throw GraphError(
                .calculatorFailed, "NORM_LANDMARKS must hold exactly one landmark, not \(list.landmark.count)", node: cc.nodeName,
                stream: cc.inputStreamName(Self.landmarks.tag))
        }
        var landmark = list.landmark[0]
        landmark.visibility = Double(visibility)
        try cc.emit(NormalizedLandmarkList([landmark]), to: Self.output)
    }
}
