import FrameFlow

/// The visibility of a single landmark as a score, as MediaPipe's
/// `LandmarkVisibilityCalculator` (Holistic gates a hand on its pose wrist's visibility).
///
/// The input is a list of exactly one landmark (split calculators give lists); its visibility
/// goes out as a `Float`, 0 when the landmark has none (protobuf's default). A timestamp
/// without landmarks gives nothing; a list of another length is an error naming the stream.
///
/// Inputs:
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList` of one landmark.
/// Outputs:
///   - `VISIBILITY`: `Float`.
/// Options: none.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarkVisibilityCalculator"
///   input_stream: "NORM_LANDMARKS:pose_wrist_landmark"
///   output_stream: "VISIBILITY:wrist_visibility_score"
/// }
/// ```
public final class LandmarkVisibilityCalculator: Calculator {
    /// One landmark, in a list.
    public static let landmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS")
    /// Its visibility.
    public static let visibility = OutputPort<Float>("VISIBILITY")

    public static let contract = CalculatorContract(ports: [landmarks, visibility])

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard let list = try cc.value(Self.landmarks) else { return }
        guard list.landmark.count == 1 else {
            throw GraphError(
                .calculatorFailed, "NORM_LANDMARKS must hold exactly one landmark, not \(list.landmark.count)", node: cc.nodeName,
                stream: cc.inputStreamName(Self.landmarks.tag))
        }
        try cc.emit(Float(list.landmark[0].visibility ?? 0), to: Self.visibility)
    }
}
