import FrameFlow

extension NHWC {
    /// The normalization builtins' kernels (`TFLiteKernels.table`).
    static let normalizationKernels: [TFLiteOperator: TFLiteKernel] = [.softmax: runSoftmax]

    /// SOFTMAX over the last axis, inputs scaled by `beta`.
    static func runSoftmax(_ op: TFLiteGraph.Op, _ input: (Int) throws -> Tensor, inputCount: Int, outShape: [Int]) throws -> Tensor {
        let o = op.options
        let x = try input(0)
        let beta = try o?.float(0, 1) ?? 1
        var node = ONNXNode(name: "", opType: "Softmax", domain: "", inputs: [], outputs: [], attributes: [:])
        node.attributes["axis"] = .int(-1)
        return try Ops.softmax(beta == 1 ? x : Ops.map(x) { $0 * beta }, node, opset: 13, log: false)
    }
}
