/// MediaPipe's `Matrix` (an Eigen `MatrixXf`): a rows × cols matrix of floats, stored column by
/// column as Eigen stores it. GestureRecognizer's `LandmarksToMatrixCalculator` and
/// `HandednessToMatrixCalculator` make them; `TensorConverterCalculator` turns them into tensors.
public struct Matrix: Sendable, Equatable {
    /// The number of rows.
    public let rows: Int
    /// The number of columns.
    public let cols: Int
    /// The values, column-major: element (r, c) is `values[c * rows + r]`.
    public private(set) var values: [Float]

    /// A rows × cols matrix of zeros (a negative size counts as 0).
    public init(rows: Int, cols: Int) {
        self.rows = max(rows, 0)
        self.cols = max(cols, 0)
        values = Array(repeating: 0, count: self.rows * self.cols)
    }

    /// Element (`row`, `col`).
    public subscript(row: Int, col: Int) -> Float {
        get { values[col * rows + row] }
        set { values[col * rows + row] = newValue }
    }

    /// The values row by row.
    public var rowMajor: [Float] {
        var out: [Float] = []
        out.reserveCapacity(values.count)
        for r in 0..<rows { for c in 0..<cols { out.append(self[r, c]) } }
        return out
    }
}
