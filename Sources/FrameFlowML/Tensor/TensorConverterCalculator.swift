import FrameFlow
import FrameFlowInference

/// A matrix as a float tensor, as MediaPipe's `TensorConverterCalculator` on its `MATRIX` input
/// (GestureRecognizer feeds the gesture embedder this way): a rows × cols matrix becomes one
/// tensor of shape `[1, rows, cols, 1]` whose data are the matrix column by column (Eigen's
/// order) — so a 3 × 21 landmark matrix reads x0 y0 z0 x1 … — or row by row with
/// `row_major_matrix`. Only the `MATRIX` path is implemented: an `IMAGE` input is refused when
/// the graph is built.
///
/// Inputs: `MATRIX` (Matrix). Outputs: `TENSORS` ([Tensor], one tensor).
/// Options: `mediapipe.TensorConverterCalculatorOptions` { row_major_matrix (false); the image
///   path's fields (zero_center, use_custom_normalization, custom_div, custom_sub,
///   flip_vertically, gpu_half_float, max_num_channels (1…4), output_tensor_float_range) are
///   accepted and not used }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "TensorConverterCalculator"
///   input_stream: "MATRIX:landmarks_matrix"
///   output_stream: "TENSORS:landmarks_tensor"
/// }
/// ```
public final class TensorConverterCalculator: Calculator {
    /// MediaPipe's `TensorConverterCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.TensorConverterCalculatorOptions"
        /// The image path's value range (not used).
        public struct Range: Codable, Sendable, Equatable {
            /// The lowest value.
            public var min: Double?
            /// The highest value.
            public var max: Double?
        }
        /// Write the matrix row by row instead of column by column.
        public var rowMajorMatrix = false
        /// Image path (not used).
        public var zeroCenter = true
        /// Image path (not used).
        public var useCustomNormalization = false
        /// Image path (not used).
        public var customDiv = -1.0
        /// Image path (not used).
        public var customSub = -1.0
        /// Image path (not used).
        public var flipVertically = false
        /// Image path (not used).
        public var gpuHalfFloat = false
        /// Image path (not used).
        public var maxNumChannels = 3
        /// Image path (not used).
        public var outputTensorFloatRange: Range?
        public init() {}
        /// Options writing the matrix row by row when `rowMajorMatrix`.
        public init(rowMajorMatrix: Bool) { self.rowMajorMatrix = rowMajorMatrix }

        public func validate() throws {
            try OptionCheck.range(maxNumChannels, 1...4, "max_num_channels")
        }
    }

    /// The matrix.
    public static let matrix = InputPort<Matrix>("MATRIX")
    /// The tensor.
    public static let tensors = OutputPort<[Tensor]>("TENSORS")

    public static let contract = CalculatorContract(ports: [matrix, tensors])

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let m = try cc.value(Self.matrix) else { return }
        try cc.emit([Self.tensor(m, rowMajor: options.rowMajorMatrix)], to: Self.tensors)
    }

    /// `m` as a `[1, rows, cols, 1]` float tensor.
    static func tensor(_ m: Matrix, rowMajor: Bool) -> Tensor {
        Tensor(shape: [1, m.rows, m.cols, 1], floats: rowMajor ? m.rowMajor : m.values)
    }
}
