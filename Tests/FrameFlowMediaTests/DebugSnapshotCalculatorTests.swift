import FrameFlow
import FrameFlowMedia
import Testing

@Suite struct DebugSnapshotCalculatorTests {
    /// every_n is checked when the graph is built (`validate`), so `frameflow validate` and
    /// the run agree.
    @Test func everyNOutsideItsRangeIsRefusedNamingTheField() {
        for n in [0, -1, Int.min, 1_000_000_001] {
            var o = DebugSnapshotCalculator.Options()
            o.everyN = n
            let e = #expect(throws: GraphError.self) { try o.validate() }
            #expect(e?.kind == .invalidOption && e?.message.contains("every_n") == true)
        }
        #expect(throws: Never.self) { try DebugSnapshotCalculator.Options().validate() }
    }
}
