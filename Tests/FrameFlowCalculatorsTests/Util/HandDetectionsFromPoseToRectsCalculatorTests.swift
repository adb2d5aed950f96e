import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// HandDetectionsFromPoseToRectsCalculator against the rect worked out here (the middle finger
/// estimated from index and pinky, a square of twice its distance to the wrist, turned so the
/// wrist-to-finger vector points up) and against MediaPipe's own calculator
/// (Tests/Fixtures/holistic/calculators.json, scripts/fixtures/make_holistic_calculator_fixtures.py).
@Suite struct HandDetectionsFromPoseToRectsCalculatorTests {
    typealias Calc = HandDetectionsFromPoseToRectsCalculator

    static func detection(_ points: [(Double, Double)]) -> Detection {
        Detection(
            relativeBox: Rect(x: 0.2, y: 0.2, width: 0.3, height: 0.3), score: 1, keypoints: points.map { Point(x: $0.0, y: $0.1) })
    }

    func run(_ value: any Sendable, input: String = "DETECTION", output: String = "NORM_RECT", size: ImageSize?) throws -> [Packet] {
        let runner = try CalculatorRunner(Calc.self, options: .init(), inputs: ["\(input):d", "IMAGE_SIZE:s"], outputs: ["\(output):r"])
        runner.add(value, tag: input, at: 0)
        if let size { runner.add(size, tag: "IMAGE_SIZE", at: 0) }
        try runner.run()
        return runner.outputs(output)
    }

    func expectClose(
        _ a: NormalizedRect, _ b: NormalizedRect, _ tolerance: Double = 1e-6, _ what: String = "",
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let pairs = [(a.xCenter, b.xCenter), (a.yCenter, b.yCenter), (a.width, b.width), (a.height, b.height), (a.rotation, b.rotation)]
        #expect(pairs.allSatisfy { abs($0.0 - $0.1) <= tolerance }, "\(what) \(a) ≠ \(b)", sourceLocation: sourceLocation)
    }

    /// 200 × 100 px; wrist (100, 80), pinky (70, 20), index (130, 20): the middle finger is at
    /// ((2·130 + 70) / 3, 20) = (110, 20), 60.83 px from the wrist, so the square's side is
    /// 121.66 px; the vector (10, −60) points up and a little right: atan2(60, 10) = 80.54°,
    /// turned by 90° − 80.54° = 9.46° (0.16515 rad).
    @Test func rectByHand() throws {
        let got = try run(Self.detection([(0.5, 0.8), (0.35, 0.2), (0.65, 0.2)]), size: ImageSize(width: 200, height: 100))
        let side = 2 * (10.0 * 10 + 60 * 60).squareRoot()
        expectClose(
            try got[0].get(NormalizedRect.self),
            NormalizedRect(
                xCenter: 110.0 / 200, yCenter: 0.2, width: side / 200, height: side / 100, rotation: Double.pi / 2 - atan2(60.0, 10.0)),
            1e-5)
        // Vectors of detections give a rect each.
        let many = try run(
            [Self.detection([(0.5, 0.8), (0.35, 0.2), (0.65, 0.2)]), Self.detection([(0.5, 0.5), (0.5, 0.5), (0.5, 0.2)])],
            input: "DETECTIONS", output: "NORM_RECTS", size: ImageSize(width: 100, height: 100))
        let rects = try many[0].get([NormalizedRect].self)
        try #require(rects.count == 2)
        // Wrist (50, 50), middle finger (50, 30): straight up, no rotation, side 40 px.
        expectClose(rects[1], NormalizedRect(xCenter: 0.5, yCenter: 0.3, width: 0.4, height: 0.4))
    }

    struct Fixtures: Decodable {
        struct Case: Decodable {
            var image_size: [Int]
            var keypoints: [[Double]]
            var rect: [String: Double]
        }
        var hand_detections_from_pose: [Case]
    }

    @Test func matchesMediaPipe() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("holistic/calculators.json")))
        let cases = try JSONDecoder().decode(Fixtures.self, from: data).hand_detections_from_pose
        try #require(cases.count >= 16)
        for (i, c) in cases.enumerated() {
            let got = try run(
                Self.detection(c.keypoints.map { ($0[0], $0[1]) }), size: ImageSize(width: c.image_size[0], height: c.image_size[1]))
            let want = NormalizedRect(
                xCenter: c.rect["x_center"]!, yCenter: c.rect["y_center"]!, width: c.rect["width"]!, height: c.rect["height"]!,
                rotation: c.rect["rotation"]!)
            expectClose(try got[0].get(NormalizedRect.self), want, 1e-6, "case \(i)")
        }
    }

    /// No image size: nothing (MediaPipe's rule for turned rects); no IMAGE_SIZE input: refused
    /// when the graph opens; fewer than three keypoints: an error naming the node and stream.
    @Test func missingSizesAndKeypoints() throws {
        #expect(try run(Self.detection([(0.5, 0.8), (0.35, 0.2), (0.65, 0.2)]), size: nil).isEmpty)
        let noSize = thrownDescription {
            let r = try CalculatorRunner(Calc.self, options: .init(), inputs: ["DETECTION:d"], outputs: ["NORM_RECT:r"])
            r.add(Self.detection([(0.5, 0.8), (0.35, 0.2), (0.65, 0.2)]), tag: "DETECTION", at: 0)
            try r.run()
        }
        #expect(noSize?.contains("IMAGE_SIZE") == true, "\(noSize ?? "")")
        let short = thrownDescription { _ = try run(Self.detection([(0.5, 0.8), (0.35, 0.2)]), size: ImageSize(width: 9, height: 9)) }
        #expect(
            short?.contains("3 keypoints") == true && short?.contains("node 'HandDetectionsFromPoseToRectsCalculator'") == true
                && short?.contains("stream 'd'") == true, "\(short ?? "")")
    }

    /// The options are DetectionsToRectsCalculator's, validated the same way.
    @Test func optionsAreValidated() {
        let e = nodeOptionError(
            """
            calculator: "HandDetectionsFromPoseToRectsCalculator"
            input_stream: "DETECTION:d" input_stream: "IMAGE_SIZE:s" output_stream: "NORM_RECT:r"
            options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] { rotation_vector_start_keypoint_index: -1 } }
            """)
        expectInvalidOption(e, naming: "rotation_vector_start_keypoint_index", "negative index")
    }
}
