import FrameFlow
import FrameFlowInference
import FrameFlowML
import FrameFlowTesting
import Testing

/// TensorConverterCalculator's MATRIX path against Eigen's storage orders.
@Suite struct TensorConverterCalculatorTests {
    func run(_ m: Matrix, options: String = "") throws -> Tensor? {
        let runner = try CalculatorRunner(
            node: """
                calculator: "TensorConverterCalculator" input_stream: "MATRIX:m" output_stream: "TENSORS:t"
                options { [mediapipe.TensorConverterCalculatorOptions.ext] { \(options) } }
                """, registry: MLFixtures.registry)
        runner.add(m, tag: "MATRIX", at: 0)
        try runner.run()
        return try runner.outputs("TENSORS").first?.get([Tensor].self).first
    }

    /// A 2 × 3 matrix [[1, 2, 3], [4, 5, 6]]: column-major 1 4 2 5 3 6, row-major 1 2 3 4 5 6;
    /// shape [1, 2, 3, 1] either way.
    @Test func storageOrders() throws {
        var m = Matrix(rows: 2, cols: 3)
        for r in 0..<2 { for c in 0..<3 { m[r, c] = Float(r * 3 + c + 1) } }
        let col = try #require(try run(m))
        #expect(col.shape == [1, 2, 3, 1] && col.floats == [1, 4, 2, 5, 3, 6])
        let row = try #require(try run(m, options: "row_major_matrix: true"))
        #expect(row.shape == [1, 2, 3, 1] && row.floats == [1, 2, 3, 4, 5, 6])
    }

    @Test func imageInputIsRefused() {
        let errors = GraphBuildErrors.of(
            """
            input_stream: "i"
            node { calculator: "TensorConverterCalculator" input_stream: "IMAGE:i" output_stream: "TENSORS:t" }
            """, registry: MLFixtures.registry)
        #expect(!errors.isEmpty && errors.contains { "\($0)".contains("IMAGE") })
    }
}
