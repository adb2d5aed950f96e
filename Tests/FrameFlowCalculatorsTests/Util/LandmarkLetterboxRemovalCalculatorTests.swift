import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// LandmarkLetterboxRemovalCalculator: the cases of MediaPipe's
/// landmark_letterbox_removal_calculator_test.cc (padding left/right and top/bottom), z scaled
/// as x, indexed streams, missing packets, and refused nodes and paddings.
@Suite struct LandmarkLetterboxRemovalCalculatorTests {
    func runner(_ body: String) throws -> CalculatorRunner {
        try CalculatorRunner(node: "calculator: \"LandmarkLetterboxRemovalCalculator\"\nname: \"unbox\"\n" + body, registry: .standard)
    }

    let single = """
        input_stream: "LANDMARKS:landmarks"
        input_stream: "LETTERBOX_PADDING:letterbox_padding"
        output_stream: "LANDMARKS:adjusted_landmarks"
        """

    func list(_ points: [(Double, Double)], z: Double = 0) -> NormalizedLandmarkList {
        NormalizedLandmarkList(points.map { NormalizedLandmark(x: $0.0, y: $0.1, z: z) })
    }

    func unbox(_ l: NormalizedLandmarkList, padding: [Double]) throws -> [NormalizedLandmark] {
        let r = try runner(single)
        r.add(l, tag: "LANDMARKS", at: .postStream)
        r.add(padding, tag: "LETTERBOX_PADDING", at: .postStream)
        try r.run()
        let out = r.outputs("LANDMARKS")
        #expect(out.count == 1)
        return try out.first?.get(NormalizedLandmarkList.self).landmark ?? []
    }

    func near(_ p: NormalizedLandmark, _ x: Double, _ y: Double) -> Bool { abs(p.x - x) < 1e-5 && abs(p.y - y) < 1e-5 }

    @Test func paddingLeftRight() throws {
        let out = try unbox(list([(0.5, 0.5), (0.2, 0.2), (0.7, 0.7)]), padding: [0.2, 0, 0.3, 0])
        #expect(out.count == 3)
        #expect(near(out[0], 0.6, 0.5) && near(out[1], 0, 0.2) && near(out[2], 1, 0.7))
    }

    @Test func paddingTopBottom() throws {
        let out = try unbox(list([(0.5, 0.5), (0.2, 0.2), (0.7, 0.7)]), padding: [0, 0.2, 0, 0.3])
        #expect(out.count == 3)
        #expect(near(out[0], 0.5, 0.6) && near(out[1], 0.2, 0) && near(out[2], 0.7, 1))
    }

    /// Every coordinate against the formula; z scales as x; visibility and presence stay.
    @Test func formulaAndZ() throws {
        var p = NormalizedLandmark(x: 0.3, y: 0.9, z: -0.25, visibility: 0.8, presence: 0.6)
        p.z = -0.25
        let pad = [0.1, 0.05, 0.15, 0.25]
        let out = try unbox(NormalizedLandmarkList([p]), padding: pad)
        let sx = 1 - (pad[0] + pad[2]), sy = 1 - (pad[1] + pad[3])
        #expect(abs(out[0].x - (0.3 - pad[0]) / sx) < 1e-6)
        #expect(abs(out[0].y - (0.9 - pad[1]) / sy) < 1e-6)
        #expect(abs(out[0].z - -0.25 / sx) < 1e-6)
        #expect(out[0].visibility == 0.8 && out[0].presence == 0.6)
    }

    /// Indexed streams each to their output; a list without a packet gives none; a timestamp
    /// without padding gives nothing.
    @Test func indexedStreams() throws {
        let r = try runner(
            """
            input_stream: "LANDMARKS:0:a"
            input_stream: "LANDMARKS:1:b"
            input_stream: "LETTERBOX_PADDING:p"
            output_stream: "LANDMARKS:0:ua"
            output_stream: "LANDMARKS:1:ub"
            """)
        r.add(list([(0.5, 0.5)]), tag: "LANDMARKS", index: 0, at: 1)
        r.add(list([(0.2, 0.2)]), tag: "LANDMARKS", index: 1, at: 1)
        r.add(list([(0.2, 0.2)]), tag: "LANDMARKS", index: 1, at: 2)
        r.add(list([(0.2, 0.2)]), tag: "LANDMARKS", index: 0, at: 3)
        r.add([0.2, 0, 0.3, 0], tag: "LETTERBOX_PADDING", at: 1)
        r.add([0, 0.2, 0, 0.3], tag: "LETTERBOX_PADDING", at: 2)
        try r.run()
        let a = try values(r.outputs("LANDMARKS", 0), as: NormalizedLandmarkList.self)
        let b = try values(r.outputs("LANDMARKS", 1), as: NormalizedLandmarkList.self)
        #expect(a.map(\.0) == [1] && near(a[0].1.landmark[0], 0.6, 0.5))
        #expect(b.map(\.0) == [1, 2] && near(b[0].1.landmark[0], 0, 0.2) && near(b[1].1.landmark[0], 0.2, 0))
    }

    @Test(arguments: [[0.2, 0.2, 0.2], [0.5, 0, 0.5, 0], [0, 0.7, 0, 0.4]])
    func badPaddingNamesNodeAndStream(padding: [Double]) throws {
        let r = try runner(single)
        r.add(list([(0.5, 0.5)]), tag: "LANDMARKS", at: 1)
        r.add(padding, tag: "LETTERBOX_PADDING", at: 1)
        let text = thrownDescription { try r.run() }
        #expect(text?.contains("unbox") == true && text?.contains("LETTERBOX_PADDING") == true)
    }

    @Test(arguments: [
        ("input_stream: \"LANDMARKS:l\"\noutput_stream: \"LANDMARKS:o\"", "LETTERBOX_PADDING"),
        (
            "input_stream: \"LANDMARKS:0:l\"\ninput_stream: \"LANDMARKS:1:k\"\ninput_stream: \"LETTERBOX_PADDING:p\"\noutput_stream: \"LANDMARKS:o\"",
            "one output per input"
        ),
        ("input_stream: \"LETTERBOX_PADDING:p\"\noutput_stream: \"LANDMARKS:o\"", "LANDMARKS"),
    ])
    func badNodesAreRefused(body: String, needle: String) throws {
        let text = thrownDescription { try runner(body).run() }
        #expect(text?.contains("unbox") == true && text?.contains(needle) == true, "\(text ?? "")")
    }
}
