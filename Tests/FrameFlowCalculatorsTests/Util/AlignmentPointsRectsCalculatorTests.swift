import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// AlignmentPointsRectsCalculator against the square written out here (centre keypoint, side
/// twice the distance to the scale keypoint, in pixels) and against MediaPipe's own
/// calculator (Tests/Fixtures/hands/rect_calculators.json, scripts/fixtures/make_hand_rect_fixtures.py).
@Suite struct AlignmentPointsRectsCalculatorTests {
    typealias Calc = AlignmentPointsRectsCalculator

    static func detection(_ points: [(Double, Double)]) -> Detection {
        Detection(
            relativeBox: Rect(x: 0.1, y: 0.1, width: 0.5, height: 0.5), score: 1, keypoints: points.map { Point(x: $0.0, y: $0.1) })
    }

    static var options: Calc.Options {
        var o = Calc.Options()
        o.rotationVectorStartKeypointIndex = 0
        o.rotationVectorEndKeypointIndex = 1
        o.rotationVectorTargetAngleDegrees = 90
        return o
    }

    func run(_ value: any Sendable, input: String = "DETECTION", output: String = "NORM_RECT", size: ImageSize, _ o: Calc.Options = options)
        throws -> [Packet]
    {
        let runner = try CalculatorRunner(Calc.self, options: o, inputs: ["\(input):d", "IMAGE_SIZE:s"], outputs: ["\(output):r"])
        runner.add(value, tag: input, at: 0)
        runner.add(size, tag: "IMAGE_SIZE", at: 0)
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

    /// 100×100, centre (50, 50), scale point (50, 25): side 2 × 25 = 50 px, i.e. 0.5 × 0.5; the
    /// vector points up (90°), the target, so no rotation. 200×100, centre (100, 50), scale
    /// point (150, 50): side 100 px = 0.5 of the width, 1.0 of the height; the vector points
    /// right (0°), so the rect turns by 90° − 0° = π/2.
    @Test func squareFromCentreAndScalePoint() throws {
        let up = try run(Self.detection([(0.5, 0.5), (0.5, 0.25)]), size: ImageSize(width: 100, height: 100))
        expectClose(try up[0].get(NormalizedRect.self), NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5))
        let right = try run(Self.detection([(0.5, 0.5), (0.75, 0.5)]), size: ImageSize(width: 200, height: 100))
        expectClose(
            try right[0].get(NormalizedRect.self),
            NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 1, rotation: Double.pi / 2))
        // A vector of detections gives one rect each; other keypoints do not matter.
        let many = try run(
            [Self.detection([(0.5, 0.5), (0.5, 0.25), (0.9, 0.9)]), Self.detection([(0.2, 0.3), (0.2, 0.4)])], input: "DETECTIONS",
            output: "NORM_RECTS", size: ImageSize(width: 100, height: 100))
        let rects = try many[0].get([NormalizedRect].self)
        try #require(rects.count == 2)
        expectClose(rects[0], NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5))
        // (20, 30) → (20, 40): 10 px down, side 20 px; the vector points at −90°, so 90° − (−90°) = π,
        // normalized to −π.
        expectClose(rects[1], NormalizedRect(xCenter: 0.2, yCenter: 0.3, width: 0.2, height: 0.2, rotation: -Double.pi))
    }

    struct Fixtures: Decodable {
        struct AlignmentCase: Decodable {
            var image_size: [Int]
            var keypoints: [[Double]]
            var rect: [String: Double]
        }
        var alignment_points_rects: [AlignmentCase]
    }

    @Test func matchesMediaPipe() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("hands/rect_calculators.json")))
        let cases = try JSONDecoder().decode(Fixtures.self, from: data).alignment_points_rects
        try #require(cases.count >= 9)
        for (i, c) in cases.enumerated() {
            let d = Self.detection(c.keypoints.map { ($0[0], $0[1]) })
            let got = try run(d, size: ImageSize(width: c.image_size[0], height: c.image_size[1]))[0].get(NormalizedRect.self)
            let want = NormalizedRect(
                xCenter: c.rect["x_center"]!, yCenter: c.rect["y_center"]!, width: c.rect["width"]!, height: c.rect["height"]!,
                rotation: c.rect["rotation"]!)
            expectClose(got, want, 1e-5, "case \(i)")
        }
    }

    /// As MediaPipe: pixel rects and empty detections come from DetectionsToRectsCalculator.
    @Test func pixelRectsAndEmptyDetectionsAsTheBase() throws {
        let pixel = Detection(pixelBox: .init(xmin: 10, ymin: 20, width: 30, height: 40), score: 1)
        var withPoints = pixel
        withPoints.locationData.relativeKeypoints = [.init(x: 0.5, y: 0.5), .init(x: 0.5, y: 0.25)]
        let rect = try run(withPoints, output: "RECT", size: ImageSize(width: 100, height: 100))[0].get(RotatedRect.self)
        #expect(rect.xCenter == 25 && rect.yCenter == 40 && rect.width == 30 && rect.height == 40 && abs(rect.rotation) < 1e-9)
        var o = Self.options
        o.outputZeroRectForEmptyDetections = true
        let zero = try run([Detection](), input: "DETECTIONS", size: ImageSize(width: 10, height: 10), o)
        #expect(try zero.map { try $0.get(NormalizedRect.self) } == [NormalizedRect(xCenter: 0, yCenter: 0, width: 0, height: 0)])
    }

    @Test func badOptionsAndDetectionsAreErrorsNamingTheNode() throws {
        var noEnd = Calc.Options()
        noEnd.rotationVectorStartKeypointIndex = 0
        noEnd.rotationVectorTargetAngle = 0
        #expect(throws: GraphError.self) { try noEnd.validate() }
        let none = thrownDescription { _ = try run(Self.detection([(0.5, 0.5), (0.5, 0.25)]), size: .init(width: 9, height: 9), Calc.Options()) }
        #expect(none?.contains("node 'AlignmentPointsRectsCalculator'") == true && none?.contains("rotation_vector_start") == true)
        let short = thrownDescription { _ = try run(Self.detection([(0.5, 0.5)]), size: .init(width: 9, height: 9)) }
        #expect(short?.contains("node 'AlignmentPointsRectsCalculator'") == true && short?.contains("out of range") == true)
    }

    @Test func optionsInTextAndBinary() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "AlignmentPointsRectsCalculator" input_stream: "DETECTIONS:d" input_stream: "IMAGE_SIZE:s"
                output_stream: "NORM_RECT:r"
                options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
                  rotation_vector_start_keypoint_index: 1 rotation_vector_end_keypoint_index: 0
                  rotation_vector_target_angle_degrees: 90 } }
                """, registry: .standard)
        runner.add([Self.detection([(0.5, 0.25), (0.5, 0.5)])], tag: "DETECTIONS", at: 0)
        runner.add(ImageSize(width: 100, height: 100), tag: "IMAGE_SIZE", at: 0)
        try runner.run()
        expectClose(
            try runner.outputs("NORM_RECT")[0].get(NormalizedRect.self),
            NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5))

        let o = try binaryGraphOptions(
            "AlignmentPointsRectsCalculator", ports: (["DETECTIONS:d", "IMAGE_SIZE:s"], ["NORM_RECT:r"]), ext: 262691807,
            as: Calc.Options.self
        ) { w in
            w.int(1, 0)
            w.int(2, 1)
            w.float(4, 90)
        }
        #expect(o == Self.options)
    }
}
