import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowTesting
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

    /// A float RGBA image has no FFmpeg pixel format: an error naming the stream (swscale
    /// aborted the process on it).
    @Test func anImagePNGCannotHoldIsAnError() throws {
        var o = DebugSnapshotCalculator.Options()
        o.folder = NSTemporaryDirectory() + "frameflow-debug-snapshot-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: o.folder) }
        o.everyN = 1
        let r = try CalculatorRunner(DebugSnapshotCalculator.self, options: o, inputs: ["IMAGE:frames"])
        var m = try ImagePool.shared.makeImage(width: 8, height: 6, format: .rgbaFloat32)
        m.fill(0)
        r.add(m.freeze(), tag: "IMAGE", at: 0)
        #expect { try r.run() } throws: { "\($0)".contains("rgba_f32") && "\($0)".contains("frames") }
    }
}
