import FrameFlow

/// A TFLite builtin's kernel: the operator (its options and what fusion folded into it at
/// load), its inputs by position, how many there are, and the output shape the file declares.
typealias TFLiteKernel =
    @Sendable (_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, _ inputCount: Int, _ outShape: [Int]) throws -> Tensor

/// The kernel of a builtin with several outputs (UNPACK): as `TFLiteKernel`, given the shape
/// the file declares for each output, returning one tensor per output in order.
typealias TFLiteOutputsKernel =
    @Sendable (_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, _ inputCount: Int, _ outShapes: [[Int]]) throws -> [Tensor]

/// The TFLite builtins FrameFlow runs, on the NHWC kernels: one table from operator to kernel,
/// merged from the operator families' tables (`Operators/<Family>/NHWC+TFLite…`), as
/// `Ops.table` is for ONNX. Every `TFLiteOperator` has a kernel (a test checks it).
enum TFLiteKernels {
    /// Every builtin's kernel, the families' tables merged at first use; a one-output kernel
    /// is wrapped to return its tensor as a list of one.
    static let table: [TFLiteOperator: TFLiteOutputsKernel] = {
        let families: [[TFLiteOperator: TFLiteKernel]] = [
            NHWC.convolutionKernels, NHWC.poolingKernels, NHWC.elementWiseKernels, NHWC.shapeKernels, NHWC.matrixKernels,
            NHWC.normalizationKernels, NHWC.reductionKernels, NHWC.resizeKernels, NHWC.customKernels, NHWC.indexingKernels,
        ]
        let several: [[TFLiteOperator: TFLiteOutputsKernel]] = [NHWC.shapeOutputsKernels]
        var table = families.reduce(into: [TFLiteOperator: TFLiteOutputsKernel]()) { table, family in
            table.merge(family.mapValues(listing)) { _, _ in
                preconditionFailure("a TFLite operator registered twice")
            }
        }
        for family in several { table.merge(family) { _, _ in preconditionFailure("a TFLite operator registered twice") } }
        return table
    }()

    /// A one-output kernel as a kernel that returns a list of outputs.
    static func listing(_ kernel: @escaping TFLiteKernel) -> TFLiteOutputsKernel {
        { op, input, count, shapes in [try kernel(op, input, count, shapes[0])] }
    }

    /// For kernels that take a fixed number of inputs: an error naming `name` unless the
    /// operator lists exactly `expected`.
    static func expectInputs(_ name: String, _ count: Int, _ expected: Int) throws {
        guard count == expected else { throw ModelError("\(name) takes \(expected) input(s), not \(count)") }
    }

    /// Runs one operator; `input(i)` is its i-th input tensor, `outShapes` the declared shape
    /// of each output (at least one). Returns one tensor per output.
    static func run(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShapes: [[Int]]) throws -> [Tensor] {
        if op.hardSwish {  // fused at load (`fuseHardSwish`): the convolution, then HARD_SWISH in place
            var conv = op
            conv.hardSwish = false
            var t = try run(conv, input, inputCount: inputCount, outShapes: outShapes)
            for i in t.indices { NHWC.hardSwish(&t[i].floats) }
            return t
        }
        guard let kernel = table[op.code] else { throw ModelError("TFLite operator \(op.code.name) has no kernel") }
        let outs = try kernel(op, input, inputCount, outShapes)
        guard outs.count == outShapes.count else {
            throw ModelError("\(op.name) makes \(outs.count) output(s); the model declares \(outShapes.count)")
        }
        return outs
    }
}
