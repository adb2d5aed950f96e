import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// VisibilityCopyCalculator: MediaPipe's own outputs, each option, the four tag combinations
/// and the refused inputs.
@Suite struct VisibilityCopyCalculatorTests {
    @Test func matchesMediaPipe() throws {
        try PoseSmoothingFixtures.expectMatches("visibility_copy")
    }

    func runner(from: String, to: String, options: String = "") throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "VisibilityCopyCalculator"
                input_stream: "\(from):a"
                input_stream: "\(to):b"
                output_stream: "\(to):c"
                \(options.isEmpty ? "" : "options { [mediapipe.VisibilityCopyCalculatorOptions.ext] { \(options) } }")
                """, registry: .standard)
    }

    /// Coordinates from `…_TO`, visibility and presence from `…_FROM` (0 where it has none).
    @Test func copiesBothByDefault() throws {
        let r = try runner(from: "LANDMARKS_FROM", to: "NORM_LANDMARKS_TO")
        r.add(LandmarkList([Landmark(x: 9, y: 9, visibility: 0.25, presence: 0.5), Landmark(x: 8, y: 8)]), tag: "LANDMARKS_FROM", at: 1)
        r.add(
            NormalizedLandmarkList([NormalizedLandmark(x: 0.1, y: 0.2, z: 0.3, visibility: 0.9), NormalizedLandmark(x: 0.4, y: 0.5, presence: 0.6)]),
            tag: "NORM_LANDMARKS_TO", at: 1)
        try r.run()
        let out = try #require(try r.outputs("NORM_LANDMARKS_TO").first?.get(NormalizedLandmarkList.self))
        #expect(
            out.landmark == [
                NormalizedLandmark(x: 0.1, y: 0.2, z: 0.3, visibility: 0.25, presence: 0.5),
                NormalizedLandmark(x: 0.4, y: 0.5, visibility: 0, presence: 0),
            ])
    }

    @Test func optionsChooseWhatIsCopied() throws {
        let r = try runner(from: "NORM_LANDMARKS_FROM", to: "LANDMARKS_TO", options: "copy_visibility: false")
        r.add(NormalizedLandmarkList([NormalizedLandmark(x: 0, y: 0, visibility: 0.25, presence: 0.5)]), tag: "NORM_LANDMARKS_FROM", at: 1)
        r.add(LandmarkList([Landmark(x: 1, y: 2, z: 3, visibility: 0.9, presence: 0.1)]), tag: "LANDMARKS_TO", at: 1)
        // A timestamp with one list only gives nothing.
        r.add(LandmarkList([Landmark(x: 1, y: 2)]), tag: "LANDMARKS_TO", at: 2)
        try r.run()
        let out = try r.outputs("LANDMARKS_TO").map { try $0.get(LandmarkList.self) }
        #expect(out == [LandmarkList([Landmark(x: 1, y: 2, z: 3, visibility: 0.9, presence: 0.5)])])
    }

    /// MediaPipe's length is the `…_FROM` list's; a shorter `…_TO` list is an error naming it.
    @Test func lengths() throws {
        let r = try runner(from: "LANDMARKS_FROM", to: "LANDMARKS_TO")
        r.add(LandmarkList([Landmark(x: 0, y: 0, visibility: 1)]), tag: "LANDMARKS_FROM", at: 1)
        r.add(LandmarkList([Landmark(x: 1, y: 1), Landmark(x: 2, y: 2)]), tag: "LANDMARKS_TO", at: 1)
        r.add(LandmarkList([Landmark(x: 0, y: 0), Landmark(x: 0, y: 0)]), tag: "LANDMARKS_FROM", at: 2)
        r.add(LandmarkList([Landmark(x: 1, y: 1)]), tag: "LANDMARKS_TO", at: 2)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'b'") }
        #expect(try r.outputs("LANDMARKS_TO").map { try $0.get(LandmarkList.self).landmark.count } == [1])
    }

    @Test func missingPortsAreRefused() throws {
        let message = thrownDescription {
            let r = try CalculatorRunner(
                node: "calculator: \"VisibilityCopyCalculator\"\ninput_stream: \"LANDMARKS_TO:b\"\noutput_stream: \"LANDMARKS_TO:c\"",
                registry: .standard)
            r.add(LandmarkList(), tag: "LANDMARKS_TO", at: 1)
            try r.run()
        }
        #expect(message?.contains("LANDMARKS_FROM") == true, "\(message ?? "")")
    }
}
