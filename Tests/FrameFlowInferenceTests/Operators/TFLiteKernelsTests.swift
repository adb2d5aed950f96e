import Testing

@testable import FrameFlowInference

/// The TFLite dispatch table: every operator a model may use (the loader refuses the others)
/// has a kernel, so no model that loads fails at run time for want of one.
@Suite struct TFLiteKernelsTests {
    @Test func everyOperatorHasAKernel() {
        let missing = TFLiteOperator.allCases.filter { TFLiteKernels.table[$0] == nil }.map(\.name)
        #expect(missing.isEmpty, "no kernel for \(missing)")
        #expect(TFLiteKernels.table.count == TFLiteOperator.allCases.count)
    }
}
