import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// LandmarksToDetectionCalculator: the box and keypoints against min/max written here, all or
/// selected landmarks, MediaPipe's starting maximum, options in text and binary, bad input.
@Suite struct LandmarksToDetectionCalculatorTests {
    func runner(_ options: String = "") throws -> CalculatorRunner {
        try CalculatorRunner(
            node: """
                calculator: "LandmarksToDetectionCalculator"
                name: "to_detection"
                input_stream: "NORM_LANDMARKS:landmarks"
                output_stream: "DETECTION:detection"
                \(options)
                """, registry: .standard)
    }

    let points: [(Double, Double)] = [(0.25, 0.5), (0.75, 0.125), (0.5, 0.875), (0.375, 0.25)]

    func detect(_ pts: [(Double, Double)], options: String = "") throws -> Detection? {
        let r = try runner(options)
        r.add(NormalizedLandmarkList(pts.map { NormalizedLandmark(x: $0.0, y: $0.1, z: 0.3) }), tag: "NORM_LANDMARKS", at: 7)
        try r.run()
        let out = try values(r.outputs("DETECTION"), as: Detection.self)
        #expect(out.map(\.0) == [7])
        return out.first?.1
    }

    /// The box bounds exactly `pts`; keypoints are `pts` in order.
    func check(_ d: Detection?, _ pts: [(Double, Double)]) {
        guard let d else {
            Issue.record("no detection")
            return
        }
        let xs = pts.map(\.0), ys = pts.map(\.1)
        #expect(d.locationData.format == .relativeBoundingBox)
        #expect(
            d.locationData.relativeBoundingBox == .init(xmin: xs.min()!, ymin: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
        )
        #expect(d.keypoints.map(\.x) == xs && d.keypoints.map(\.y) == ys)
        #expect(d.scores.isEmpty && d.labels.isEmpty && d.labelIDs.isEmpty)
    }

    @Test func allLandmarks() throws {
        check(try detect(points), points)
    }

    @Test func selectedLandmarksInText() throws {
        let d = try detect(points, options: "options { [mediapipe.LandmarksToDetectionCalculatorOptions.ext] { selected_landmark_indices: [3, 0] } }")
        check(d, [points[3], points[0]])
    }

    @Test func selectedLandmarksInBinary() throws {
        let o = try binaryGraphOptions(
            "LandmarksToDetectionCalculator", ports: (["NORM_LANDMARKS:l"], ["DETECTION:d"]), ext: 260199669,
            as: LandmarksToDetectionCalculator.Options.self
        ) { w in
            var packed = ProtobufWire()
            for v in [2, 0, 1] as [UInt64] { packed.varint(v) }
            w.data(1, packed.bytes)  // packed
            w.int(1, 3)  // and one more unpacked
        }
        #expect(o == LandmarksToDetectionCalculator.Options(selectedLandmarkIndices: [2, 0, 1, 3]))
    }

    /// MediaPipe starts the maximum at the smallest positive normal float, so landmarks all
    /// left of and above 0 reach to it.
    @Test func negativeLandmarksReachZero() throws {
        let d = try detect([(-0.5, -0.25), (-0.25, -0.75)])
        let tiny = Double(Float.leastNormalMagnitude)
        #expect(d?.locationData.relativeBoundingBox == .init(xmin: -0.5, ymin: -0.75, width: tiny + 0.5, height: tiny + 0.75))
    }

    @Test func emptyListAndIndexOutOfRangeNameTheNode() throws {
        for (pts, options) in [
            ([], ""), (points, "options { [mediapipe.LandmarksToDetectionCalculatorOptions.ext] { selected_landmark_indices: [1, 4] } }"),
        ] as [([(Double, Double)], String)] {
            let r = try runner(options)
            r.add(NormalizedLandmarkList(pts.map { NormalizedLandmark(x: $0.0, y: $0.1) }), tag: "NORM_LANDMARKS", at: 1)
            let text = thrownDescription { try r.run() }
            #expect(text?.contains("to_detection") == true && text?.contains(pts.isEmpty ? "empty" : "out of range") == true, "\(text ?? "")")
        }
    }

    @Test func negativeIndexAndMissingPortsAreRefused() throws {
        let negative = thrownDescription {
            try runner("options { [mediapipe.LandmarksToDetectionCalculatorOptions.ext] { selected_landmark_indices: -1 } }").run()
        }
        #expect(negative?.contains("to_detection") == true && negative?.contains("selected_landmark_indices") == true)
        let noOutput = thrownDescription {
            try CalculatorRunner(
                node: "calculator: \"LandmarksToDetectionCalculator\"\nname: \"to_detection\"\ninput_stream: \"NORM_LANDMARKS:l\"",
                registry: .standard
            ).run()
        }
        #expect(noOutput?.contains("to_detection") == true && noOutput?.contains("DETECTION") == true)
    }
}
