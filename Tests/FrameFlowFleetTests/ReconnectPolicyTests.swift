import FrameFlowTestSupport
import Testing

@testable import FrameFlowFleet

@Suite struct ReconnectPolicyTests {
    @Test func ceilingsDoubleUpToTheMaximum() {
        let p = ReconnectPolicy(initialSeconds: 0.5, maxSeconds: 6)
        // min(6, 0.5 × 2^(n−1)), written out.
        #expect((1...7).map { p.ceiling(afterFailures: $0) } == [0.5, 1, 2, 4, 6, 6, 6])
        #expect(p.ceiling(afterFailures: 10_000) == 6)
    }

    /// Full jitter: uniform over 0...ceiling, so the mean is half the ceiling and both halves
    /// of the range are used.
    @Test func delaysAreUniformBelowTheCeiling() {
        var g = SplitMix64(seed: 29)
        let p = ReconnectPolicy(initialSeconds: 1, maxSeconds: 30)
        for failures in [1, 3, 8] {
            let ceiling = p.ceiling(afterFailures: failures)
            let d = (0..<4000).map { _ in p.delay(afterFailures: failures, using: &g) }
            #expect(d.allSatisfy { $0 >= 0 && $0 <= ceiling })
            let mean = d.reduce(0, +) / Double(d.count)
            // Standard error of the mean: ceiling / sqrt(12 × 4000) ≈ 0.0046 × ceiling.
            #expect(abs(mean - ceiling / 2) < 0.03 * ceiling)
            #expect(d.filter { $0 < ceiling / 4 }.count > 800)
            #expect(d.filter { $0 > 3 * ceiling / 4 }.count > 800)
        }
    }
}
