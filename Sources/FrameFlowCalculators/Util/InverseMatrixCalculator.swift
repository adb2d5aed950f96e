import FrameFlow

/// Inverts a 4×4 matrix, as MediaPipe's `InverseMatrixCalculator`; Pose turns the
/// `ImageToTensorCalculator` matrix (tensor to image) around with it, to warp its mask back onto
/// the image.
///
/// The inverse is the adjugate over the determinant, computed in double and rounded to float.
/// A matrix whose determinant is not above double's epsilon in magnitude (MediaPipe's
/// threshold) has no inverse: that is an error naming the stream.
///
/// Inputs:
///   - `MATRIX`: `ProjectionMatrix` (MediaPipe's `std::array<float, 16>`, row-major).
/// Outputs:
///   - `MATRIX`: `ProjectionMatrix`, the inverse.
///
/// Example usage:
/// ```
/// node {
///   calculator: "InverseMatrixCalculator"
///   input_stream: "MATRIX:transformation_matrix"
///   output_stream: "MATRIX:inverse_transformation_matrix"
/// }
/// ```
public final class InverseMatrixCalculator: Calculator {
    /// The matrix to invert.
    public static let matrix = InputPort<ProjectionMatrix>("MATRIX")
    /// Its inverse.
    public static let inverted = OutputPort<ProjectionMatrix>("MATRIX")

    public static let contract = CalculatorContract(ports: [matrix, inverted])

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard let m = try cc.value(Self.matrix) else { return }
        guard let inverse = Self.inverse(of: m) else {
            throw GraphError(
                .calculatorFailed, "the matrix \(m.values) has no inverse (|determinant| ≤ \(Double.ulpOfOne))", node: cc.nodeName,
                stream: cc.inputStreamName(Self.matrix.tag))
        }
        try cc.emit(inverse, to: Self.inverted)
    }

    /// The inverse of `matrix`, or nil when |determinant| ≤ `Double.ulpOfOne`.
    public static func inverse(of matrix: ProjectionMatrix) -> ProjectionMatrix? {
        let a = matrix.values.map(Double.init)
        // The 2×2 minors of the top two rows (s) and of the bottom two rows (c).
        let s0 = a[0] * a[5] - a[4] * a[1], s1 = a[0] * a[6] - a[4] * a[2], s2 = a[0] * a[7] - a[4] * a[3]
        let s3 = a[1] * a[6] - a[5] * a[2], s4 = a[1] * a[7] - a[5] * a[3], s5 = a[2] * a[7] - a[6] * a[3]
        let c5 = a[10] * a[15] - a[14] * a[11], c4 = a[9] * a[15] - a[13] * a[11], c3 = a[9] * a[14] - a[13] * a[10]
        let c2 = a[8] * a[15] - a[12] * a[11], c1 = a[8] * a[14] - a[12] * a[10], c0 = a[8] * a[13] - a[12] * a[9]
        let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
        guard abs(det) > Double.ulpOfOne else { return nil }
        let d = 1 / det
        let r: [Double] = [
            (a[5] * c5 - a[6] * c4 + a[7] * c3) * d, (-a[1] * c5 + a[2] * c4 - a[3] * c3) * d,
            (a[13] * s5 - a[14] * s4 + a[15] * s3) * d, (-a[9] * s5 + a[10] * s4 - a[11] * s3) * d,
            (-a[4] * c5 + a[6] * c2 - a[7] * c1) * d, (a[0] * c5 - a[2] * c2 + a[3] * c1) * d,
            (-a[12] * s5 + a[14] * s2 - a[15] * s1) * d, (a[8] * s5 - a[10] * s2 + a[11] * s1) * d,
            (a[4] * c4 - a[5] * c2 + a[7] * c0) * d, (-a[0] * c4 + a[1] * c2 - a[3] * c0) * d,
            (a[12] * s4 - a[13] * s2 + a[15] * s0) * d, (-a[8] * s4 + a[9] * s2 - a[11] * s0) * d,
            (-a[4] * c3 + a[5] * c1 - a[6] * c0) * d, (a[0] * c3 - a[1] * c1 + a[2] * c0) * d,
            (-a[12] * s3 + a[13] * s1 - a[14] * s0) * d, (a[8] * s3 - a[9] * s1 + a[10] * s0) * d,
        ]
        return ProjectionMatrix(r.map(Float.init))
    }
}
