import FrameFlow

/// The indices of a vector of landmark lists, as MediaPipe's
/// `NormalizedLandmarkListVectorIndicesCalculator` (a `VectorIndicesCalculator`): for a vector of
/// n lists, `[0, 1, …, n − 1]` (empty for an empty vector). GestureRecognizerGraph loops over
/// them with `BeginLoopIntCalculator` to handle each hand.
///
/// Inputs: `VECTOR` ([NormalizedLandmarkList]).
/// Outputs: `INDICES` ([Int]).
///
/// Example usage:
/// ```
/// node {
///   calculator: "NormalizedLandmarkListVectorIndicesCalculator"
///   input_stream: "VECTOR:multi_hand_landmarks"
///   output_stream: "INDICES:hand_indices"
/// }
/// ```
public final class NormalizedLandmarkListVectorIndicesCalculator: Calculator {
    /// The vector.
    public static let vector = InputPort<[NormalizedLandmarkList]>("VECTOR")
    /// Its indices.
    public static let indices = OutputPort<[Int]>("INDICES")

    public static let contract = CalculatorContract(ports: [vector, indices])

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard let lists = try cc.value(Self.vector) else { return }
        try cc.emit(Array(lists.indices), to: Self.indices)
    }
}
