import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// ThresholdingCalculator: the cases of MediaPipe's thresholding semantics (strictly greater,
/// FLAG / ACCEPT / REJECT, threshold from option, side packet or stream) and the refused
/// combinations.
@Suite struct ThresholdingCalculatorTests {
    func runner(_ body: String) throws -> CalculatorRunner {
        try CalculatorRunner(node: "calculator: \"ThresholdingCalculator\"\n" + body, registry: .standard)
    }

    @Test func optionThresholdIsStrict() throws {
        let r = try runner(
            """
            input_stream: "FLOAT:score"
            output_stream: "FLAG:flag"
            output_stream: "ACCEPT:accept"
            output_stream: "REJECT:reject"
            options { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }
            """)
        for (t, s) in [(1, 0.4), (2, 0.5), (3, 0.6)] as [(Int64, Float)] { r.add(s, tag: "FLOAT", at: Timestamp(t)) }
        try r.run()
        let flag = try values(r.outputs("FLAG"), as: Bool.self)
        #expect(flag.map(\.0) == [1, 2, 3] && flag.map(\.1) == [false, false, true])
        let accept = try values(r.outputs("ACCEPT"), as: Bool.self)
        #expect(accept.map(\.0) == [3] && accept.map(\.1) == [true])
        // MediaPipe's REJECT packets carry false.
        let reject = try values(r.outputs("REJECT"), as: Bool.self)
        #expect(reject.map(\.0) == [1, 2] && reject.map(\.1) == [false, false])
    }

    /// The score is widened to double before the comparison: Float(0.1) > 0.1.
    @Test func comparesInDoublePrecision() throws {
        #expect(ThresholdingCalculator.accepts(0.1, threshold: 0.1))
        #expect(!ThresholdingCalculator.accepts(0.1, threshold: Double(Float(0.1))))
    }

    @Test func sidePacketThreshold() throws {
        let r = try runner("input_stream: \"FLOAT:score\"\ninput_side_packet: \"THRESHOLD:t\"\noutput_stream: \"FLAG:flag\"")
        r.setSidePacket(0.25, tag: "THRESHOLD")
        r.add(Float(0.2), tag: "FLOAT", at: 1)
        r.add(Float(0.3), tag: "FLOAT", at: 2)
        try r.run()
        #expect(try values(r.outputs("FLAG"), as: Bool.self).map(\.1) == [false, true])
    }

    /// A THRESHOLD packet holds until the next; before the first the threshold is 0.
    @Test func streamThresholdHoldsUntilTheNext() throws {
        let r = try runner("input_stream: \"FLOAT:score\"\ninput_stream: \"THRESHOLD:t\"\noutput_stream: \"FLAG:flag\"")
        r.add(Float(0.1), tag: "FLOAT", at: 1)
        r.add(Float(0.5), tag: "FLOAT", at: 2)
        r.add(0.6, tag: "THRESHOLD", at: 2)
        r.add(Float(0.7), tag: "FLOAT", at: 3)
        r.add(Float(0.5), tag: "FLOAT", at: 4)
        try r.run()
        let flag = try values(r.outputs("FLAG"), as: Bool.self)
        #expect(flag.map(\.0) == [1, 2, 3, 4] && flag.map(\.1) == [true, false, true, false])
    }

    @Test func aThresholdWithoutAScoreFails() throws {
        let r = try runner("input_stream: \"FLOAT:score\"\ninput_stream: \"THRESHOLD:t\"\noutput_stream: \"FLAG:flag\"")
        r.add(0.6, tag: "THRESHOLD", at: 1)
        #expect { try r.run() } throws: { "\($0)".contains("stream 'score'") && "\($0)".contains("FLOAT") }
    }

    @Test(arguments: [
        ("input_stream: \"THRESHOLD:t\"\noptions { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }", "threshold"),
        ("input_side_packet: \"THRESHOLD:t\"\noptions { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }", "threshold"),
        ("input_stream: \"THRESHOLD:t\"\ninput_side_packet: \"THRESHOLD:s\"", "not both"),
    ])
    func conflictingThresholdsAreRefused(extra: String, needle: String) throws {
        let r = try runner("input_stream: \"FLOAT:score\"\noutput_stream: \"FLAG:flag\"\n" + extra)
        if extra.contains("input_side_packet") { r.setSidePacket(0.5, tag: "THRESHOLD") }
        r.add(Float(1), tag: "FLOAT", at: 1)
        #expect { try r.run() } throws: { $0 is GraphError && "\($0)".contains(needle) && "\($0)".contains("THRESHOLD") }
    }

    @Test func binaryOptions() throws {
        let o = try binaryGraphOptions(
            "ThresholdingCalculator", ports: (["FLOAT:f"], ["FLAG:g"]), ext: 259990498, as: ThresholdingCalculator.Options.self
        ) { w in w.double(1, 0.75) }
        #expect(o?.threshold == 0.75)
    }
}
