import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// VisibilitySmoothingCalculator: MediaPipe's own outputs to the bit, the low-pass formula,
/// resets, and the refused setups.
@Suite struct VisibilitySmoothingCalculatorTests {
    @Test(arguments: ["visibility_low_pass", "visibility_low_pass_world"])
    func matchesMediaPipe(name: String) throws {
        try PoseSmoothingFixtures.expectMatches(name)
    }

    func runner(_ options: String) throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "VisibilitySmoothingCalculator"
                input_stream: "NORM_LANDMARKS:l"
                output_stream: "NORM_FILTERED_LANDMARKS:f"
                options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { \(options) } }
                """, registry: .standard)
    }

    /// v' = a·v + (1 − a)·v'_prev, the first passing; coordinates and presence untouched; a
    /// landmark without visibility counts as 0.
    @Test func lowPassFormula() throws {
        let r = try runner("low_pass_filter { alpha: 0.25 }")
        let vs: [Double?] = [0.8, 0.4, nil, 1.0]
        for (t, v) in vs.enumerated() {
            r.add(
                NormalizedLandmarkList([NormalizedLandmark(x: 0.1 * Double(t), y: 0.2, z: 0.3, visibility: v, presence: 0.7)]), tag: "NORM_LANDMARKS",
                at: Timestamp(Int64(t)))
        }
        try r.run()
        let got = try r.outputs("NORM_FILTERED_LANDMARKS").map { try $0.get(NormalizedLandmarkList.self).landmark[0] }
        var expected: [Double] = []
        var y = 0.0
        for (k, v) in vs.enumerated() {
            y = k == 0 ? (v ?? 0) : 0.25 * (v ?? 0) + 0.75 * y
            expected.append(y)
        }
        #expect(got.count == 4)
        for (k, p) in got.enumerated() {
            #expect(abs(p.visibility! - expected[k]) < 1e-6)
            #expect(p.x == 0.1 * Double(k) && p.y == 0.2 && p.z == 0.3 && p.presence == 0.7)
        }
    }

    @Test func noFilterPasses() throws {
        let r = try runner("no_filter {}")
        let l = NormalizedLandmarkList([NormalizedLandmark(x: 0.1, y: 0.2, visibility: 0.3)])
        r.add(l, tag: "NORM_LANDMARKS", at: 1)
        try r.run()
        #expect(try r.outputs("NORM_FILTERED_LANDMARKS").map { try $0.get(NormalizedLandmarkList.self) } == [l])
    }

    @Test func anotherLengthNamesTheStream() throws {
        let r = try runner("low_pass_filter { alpha: 0.1 }")
        r.add(NormalizedLandmarkList([NormalizedLandmark(x: 0, y: 0)]), tag: "NORM_LANDMARKS", at: 1)
        r.add(NormalizedLandmarkList([NormalizedLandmark(x: 0, y: 0), NormalizedLandmark(x: 1, y: 1)]), tag: "NORM_LANDMARKS", at: 2)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'l'") && "\($0)".contains("made for 1") }
    }

    @Test(arguments: [
        ("", "exactly one"), ("no_filter {} low_pass_filter {}", "exactly one"), ("low_pass_filter { alpha: 1.5 }", "alpha"),
    ])
    func badOptionsAreRefused(options: String, needle: String) throws {
        let message = thrownDescription {
            let r = try runner(options)
            r.add(NormalizedLandmarkList(), tag: "NORM_LANDMARKS", at: 1)
            try r.run()
        }
        #expect(message?.contains(needle) == true, "\(message ?? "")")
    }

    @Test func mismatchedPortsAreRefused() throws {
        let message = thrownDescription {
            let r = try CalculatorRunner(
                node: """
                    calculator: "VisibilitySmoothingCalculator"
                    input_stream: "LANDMARKS:l"
                    output_stream: "NORM_FILTERED_LANDMARKS:f"
                    options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { no_filter {} } }
                    """, registry: .standard)
            r.add(LandmarkList(), tag: "LANDMARKS", at: 1)
            try r.run()
        }
        #expect(message?.contains("FILTERED_LANDMARKS") == true, "\(message ?? "")")
    }

    @Test func binaryOptions() throws {
        let o = try binaryGraphOptions(
            "VisibilitySmoothingCalculator", ports: (["NORM_LANDMARKS:l"], ["NORM_FILTERED_LANDMARKS:f"]), ext: 360207350,
            as: VisibilitySmoothingCalculator.Options.self
        ) { w in w.message(2) { $0.float(1, 0.3) } }
        #expect(o?.lowPassFilter?.alpha == 0.3 && o?.noFilter == nil)
    }
}
