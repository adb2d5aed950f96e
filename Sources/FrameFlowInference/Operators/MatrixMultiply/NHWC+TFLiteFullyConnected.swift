import FrameFlow

extension NHWC {
    /// The matrix builtins' kernels (`TFLiteKernels.table`).
    static let matrixKernels: [TFLiteOperator: TFLiteKernel] = [.fullyConnected: runFullyConnected]

    /// FULLY_CONNECTED: the rows of the input times the transposed weights, plus the bias;
    /// `keep_num_dims` (option 2) keeps the input's leading axes.
    static func runFullyConnected(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        let x = try input(0), w = try input(1)
        guard w.shape.count == 2, w.shape[1] > 0 else { throw ModelError("fully connected weights \(w.shape) are not a matrix") }
        let k = w.shape[1], outN = w.shape[0]
        guard x.count % k == 0 else { throw ModelError("input \(x.shape) does not fit weights \(w.shape)") }
        let rows = x.count / k
        var y = try Ops.matmul(Tensor(shape: [rows, k], floats: x.asFloats), Ops.transpose(w, [1, 0]))
        if inputCount > 2, let b = try? input(2) { y = try Ops.elementwise("Add", y, b) }
        activation(try op.activation(field: 0), &y.floats)
        if try o?.byte(2) ?? 0 != 0 { y.shape = Array(x.shape.dropLast()) + [outN] }
        return y
    }
}
