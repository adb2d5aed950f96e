import FrameFlow

/// A hand's handedness as the 1 × 1 matrix the gesture embedder takes, as MediaPipe Tasks'
/// `HandednessToMatrixCalculator`: the probability of a right hand — the top classification's
/// score if its label is "Right", 1 − score if "Left" (labels compared ignoring case).
///
/// Inputs: `HANDEDNESS` (ClassificationList). Outputs: `HANDEDNESS_MATRIX` (Matrix, 1 × 1).
/// An empty list, a top score outside [0.5, 1], or another label is an error naming the node,
/// as in MediaPipe.
///
/// Example usage:
/// ```
/// node {
///   calculator: "HandednessToMatrixCalculator"
///   input_stream: "HANDEDNESS:handedness"
///   output_stream: "HANDEDNESS_MATRIX:handedness_matrix"
/// }
/// ```
public final class HandednessToMatrixCalculator: Calculator {
    /// The hand's handedness.
    public static let handedness = InputPort<ClassificationList>("HANDEDNESS")
    /// The right-hand probability.
    public static let matrix = OutputPort<Matrix>("HANDEDNESS_MATRIX")

    public static let contract = CalculatorContract(ports: [handedness, matrix])

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard let list = try cc.value(Self.handedness) else { return }
        var m = Matrix(rows: 1, cols: 1)
        do {
            m[0, 0] = try Self.rightHandScore(list)
        } catch var e as GraphError {
            e.node = cc.nodeName
            throw e
        }
        try cc.emit(m, to: Self.matrix)
    }

    /// The probability that `list` describes a right hand.
    static func rightHandScore(_ list: ClassificationList) throws -> Float {
        // The first of the highest scores, as std::max_element picks it.
        guard var top = list.classification.first else { throw GraphError(.calculatorFailed, "the handedness list is empty") }
        for c in list.classification.dropFirst() where Float(c.score) > Float(top.score) { top = c }
        let score = Float(top.score)
        guard score >= 0.5, score <= 1 else {
            throw GraphError(.calculatorFailed, "the top handedness score \(top.score) is not in [0.5, 1]")
        }
        switch (top.label ?? "").lowercased() {
        case "left": return 1 - score
        case "right": return score
        default: throw GraphError(.calculatorFailed, "unrecognised handedness '\(top.label ?? "")'")
        }
    }
}
