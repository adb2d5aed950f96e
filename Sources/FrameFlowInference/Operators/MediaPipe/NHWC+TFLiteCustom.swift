import FrameFlow

extension NHWC {
    /// The custom builtins' kernels (`TFLiteKernels.table`).
    static let customKernels: [TFLiteOperator: TFLiteKernel] = [.custom: runCustom]

    /// CUSTOM: MediaPipe's operators, read at load.
    static func runCustom(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        guard let custom = op.custom else { throw ModelError("CUSTOM operator without a custom code") }
        return try custom.run(input, inputCount: inputCount, outShape: outShape)
    }
}
