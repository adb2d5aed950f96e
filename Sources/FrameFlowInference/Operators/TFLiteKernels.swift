import FrameFlow

/// A TFLite builtin's kernel: the operator (its options and what fusion folded into it at
/// load), its inputs by position, how many there are, and the output shape the file declares.
typealias TFLiteKernel =
    @Sendable (_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, _ inputCount: Int, _ outShape: [Int]) throws -> Tensor

/// The TFLite builtins FrameFlow runs, on the NHWC kernels: one table from operator to kernel,
/// merged from the operator families' tables (`Operators/<Family>/NHWC+TFLite…`), as
/// `Ops.table` is for ONNX. Every `TFLiteOperator` has a kernel (a test checks it).
enum TFLiteKernels {
    /// Every builtin's kernel, the families' tables merged at first use.
    static let table: [TFLiteOperator: TFLiteKernel] = {
        let families: [[TFLiteOperator: TFLiteKernel]] = [
            NHWC.convolutionKernels, NHWC.poolingKernels, NHWC.elementWiseKernels, NHWC.shapeKernels, NHWC.matrixKernels,
            NHWC.normalizationKernels, NHWC.reductionKernels, NHWC.resizeKernels, NHWC.customKernels,
        ]
        return families.reduce(into: [:]) { table, family in
            table.merge(family) { _, _ in preconditionFailure("a TFLite operator registered twice") }
        }
    }()

    /// Runs one operator; `input(i)` is its i-th input tensor.
    static func run(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        if op.hardSwish {  // fused at load (`fuseHardSwish`): the convolution, then HARD_SWISH in place
            var conv = op
            conv.hardSwish = false
            var t = try run(conv, input, inputCount: inputCount, outShape: outShape)
            NHWC.hardSwish(&t.floats)
            return t
        }
        guard let kernel = table[op.code] else { throw ModelError("TFLite operator \(op.code.name) has no kernel") }
        return try kernel(op, input, inputCount, outShape)
    }
}
