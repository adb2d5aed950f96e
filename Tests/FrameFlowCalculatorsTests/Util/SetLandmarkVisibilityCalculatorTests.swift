import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// SetLandmarkVisibilityCalculator against its definition in MediaPipe's
/// set_landmark_visibility_calculator.cc (the landmark kept, its visibility replaced; nothing
/// when either input is missing; one landmark only): the mediapipe wheel does not register
/// this calculator, so there is no MediaPipe run to compare with.
@Suite struct SetLandmarkVisibilityCalculatorTests {
    func runner() throws -> CalculatorRunner {
        try CalculatorRunner(
            SetLandmarkVisibilityCalculator.self, options: .init(), inputs: ["NORM_LANDMARKS:l", "VISIBILITY:v"],
            outputs: ["NORM_LANDMARKS:o"])
    }

    @Test func replacesTheVisibilityOnly() throws {
        let r = try runner()
        let point = NormalizedLandmark(x: 0.25, y: 0.5, z: -0.1, visibility: 0.2, presence: 0.7)
        r.add(NormalizedLandmarkList([point]), tag: "NORM_LANDMARKS", at: 1)
        r.add(Float(100), tag: "VISIBILITY", at: 1)
        // Either input alone gives nothing.
        r.add(NormalizedLandmarkList([point]), tag: "NORM_LANDMARKS", at: 2)
        r.add(Float(5), tag: "VISIBILITY", at: 3)
        try r.run()
        let out = try values(r.outputs("NORM_LANDMARKS"), as: NormalizedLandmarkList.self)
        var want = point
        want.visibility = 100
        #expect(out.map(\.0) == [1] && out.map(\.1) == [NormalizedLandmarkList([want])])
    }

    @Test func listsOfOtherLengthsAreErrors() throws {
        let r = try runner()
        r.add(NormalizedLandmarkList([NormalizedLandmark(x: 0, y: 0), NormalizedLandmark(x: 1, y: 1)]), tag: "NORM_LANDMARKS", at: 1)
        r.add(Float(1), tag: "VISIBILITY", at: 1)
        let e = thrownDescription { try r.run() }
        #expect(e?.contains("exactly one landmark") == true && e?.contains("stream 'l'") == true, "\(e ?? "")")
    }
}
