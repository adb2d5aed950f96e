import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// Expected values follow mediapipe/calculators/util/detections_to_rects_calculator_test.cc
/// and the rotation formula of detections_to_rects_calculator.cc.
@Suite struct DetectionsToRectsCalculatorTests {
    typealias Calc = DetectionsToRectsCalculator

    static func keypointDetection(_ points: [(Double, Double)]) -> Detection {
        Detection(
            relativeBox: Rect(x: 0, y: 0, width: 1, height: 1), score: 1, keypoints: points.map { Point(x: $0.0, y: $0.1) })
    }

    /// The packets of `output` after one `input` packet (and `size`, when given) at timestamp 0.
    func run(
        _ value: any Sendable, input: String = "DETECTION", output: String, size: ImageSize? = nil, _ options: Calc.Options = .init()
    ) throws -> [Packet] {
        let inputs = ["\(input):d"] + (size == nil ? [] : ["IMAGE_SIZE:s"])
        let runner = try CalculatorRunner(Calc.self, options: options, inputs: inputs, outputs: ["\(output):r"])
        runner.add(value, tag: input, at: 0)
        if let size { runner.add(size, tag: "IMAGE_SIZE", at: 0) }
        try runner.run()
        return runner.outputs(output)
    }

    func expectClose(_ a: NormalizedRect, _ b: NormalizedRect, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let pairs = [(a.xCenter, b.xCenter), (a.yCenter, b.yCenter), (a.width, b.width), (a.height, b.height), (a.rotation, b.rotation)]
        #expect(pairs.allSatisfy { abs($0.0 - $0.1) < 1e-9 }, "\(a) ≠ \(b)", sourceLocation: sourceLocation)
    }

    @Test func pixelBoxToRectUsesIntegerCentre() throws {
        let d = Detection(pixelBox: .init(xmin: 100, ymin: 200, width: 300, height: 400), score: 1)
        let r = try run(d, output: "RECT")
        #expect(try r.map { try $0.get(RotatedRect.self) } == [RotatedRect(xCenter: 250, yCenter: 400, width: 300, height: 400)])
        // int32 fields: 3 + 5 / 2 = 5, 1 + 3 / 2 = 2.
        let odd = Detection(pixelBox: .init(xmin: 3, ymin: 1, width: 5, height: 3), score: 1)
        #expect(try run(odd, output: "RECT")[0].get(RotatedRect.self) == RotatedRect(xCenter: 5, yCenter: 2, width: 5, height: 3))
    }

    @Test func relativeBoxToNormalizedRect() throws {
        let d = Detection(relativeBox: Rect(x: 0.1, y: 0.2, width: 0.3, height: 0.4), score: 1)
        let r = try run(d, output: "NORM_RECT")[0].get(NormalizedRect.self)
        expectClose(r, NormalizedRect(xCenter: 0.25, yCenter: 0.4, width: 0.3, height: 0.4))
        // The wrong box format for the output is an error, both ways.
        #expect(throws: (any Error).self) { try run(d, output: "RECT") }
        let pixel = Detection(pixelBox: .init(xmin: 1, ymin: 1, width: 2, height: 2), score: 1)
        #expect(throws: (any Error).self) { try run(pixel, output: "NORM_RECT") }
    }

    @Test func keypointsToRectsInPixelsAndFractions() throws {
        var o = Calc.Options()
        o.conversionMode = .useKeypoints
        let size = ImageSize(width: 640, height: 480)
        let cases: [([(Double, Double)], RotatedRect)] = [
            ([(0, 0), (1, 1)], RotatedRect(xCenter: 320, yCenter: 240, width: 640, height: 480)),
            ([(0.25, 0.25), (0.75, 0.75)], RotatedRect(xCenter: 320, yCenter: 240, width: 320, height: 240)),
            ([(0, 0), (0.5, 0.5)], RotatedRect(xCenter: 160, yCenter: 120, width: 320, height: 240)),
            ([(0.5, 0.5), (1, 1)], RotatedRect(xCenter: 480, yCenter: 360, width: 320, height: 240)),
        ]
        for (points, expected) in cases {
            #expect(try run(Self.keypointDetection(points), output: "RECT", size: size, o)[0].get(RotatedRect.self) == expected)
        }
        let zeroSize = try run(Self.keypointDetection([(0.25, 0.25), (0.75, 0.75)]), output: "RECT", size: .init(width: 0, height: 0), o)
        #expect(try zeroSize[0].get(RotatedRect.self) == RotatedRect(xCenter: 0, yCenter: 0, width: 0, height: 0))
        // The box spans all keypoints, not just the first two.
        let norm = try run(Self.keypointDetection([(0.5, 0.5), (1, 1), (0.25, 0.75)]), output: "NORM_RECT", o)
        expectClose(try norm[0].get(NormalizedRect.self), NormalizedRect(xCenter: 0.625, yCenter: 0.75, width: 0.75, height: 0.5))
        // One keypoint is not enough.
        #expect(throws: (any Error).self) { try run(Self.keypointDetection([(0.5, 0.5)]), output: "NORM_RECT", o) }
    }

    @Test func vectorsGiveOneRectPerDetectionAndSingleOutputsTheFirst() throws {
        let ds = [
            Detection(relativeBox: Rect(x: 0.1, y: 0.2, width: 0.3, height: 0.4), score: 1),
            Detection(relativeBox: Rect(x: 0.2, y: 0.3, width: 0.4, height: 0.5), score: 1),
        ]
        let rects = try run(ds, input: "DETECTIONS", output: "NORM_RECTS")[0].get([NormalizedRect].self)
        #expect(rects.count == 2)
        expectClose(rects[0], NormalizedRect(xCenter: 0.25, yCenter: 0.4, width: 0.3, height: 0.4))
        expectClose(rects[1], NormalizedRect(xCenter: 0.4, yCenter: 0.55, width: 0.4, height: 0.5))
        expectClose(
            try run(ds, input: "DETECTIONS", output: "NORM_RECT")[0].get(NormalizedRect.self),
            NormalizedRect(xCenter: 0.25, yCenter: 0.4, width: 0.3, height: 0.4))
        let pixel = [
            Detection(pixelBox: .init(xmin: 100, ymin: 200, width: 300, height: 400), score: 1),
            Detection(pixelBox: .init(xmin: 200, ymin: 300, width: 400, height: 500), score: 1),
        ]
        #expect(
            try run(pixel, input: "DETECTIONS", output: "RECTS")[0].get([RotatedRect].self) == [
                RotatedRect(xCenter: 250, yCenter: 400, width: 300, height: 400),
                RotatedRect(xCenter: 400, yCenter: 550, width: 400, height: 500),
            ])
        #expect(try run(pixel[0], output: "RECTS")[0].get([RotatedRect].self).count == 1)
    }

    /// Eyes at (0.25, 0.25) and (0.75, 0.75) of a 200×100 image: in pixels the vector is
    /// (100, 50), y down, so it points atan(0.5) below the x axis; a target of 0 turns the rect
    /// by +atan(0.5). (Ignoring the image's aspect would give π/4.)
    @Test func rotationUsesPixelVectorWithYFlipped() throws {
        var o = Calc.Options()
        o.rotationVectorStartKeypointIndex = 0
        o.rotationVectorEndKeypointIndex = 1
        o.rotationVectorTargetAngleDegrees = 0
        let size = ImageSize(width: 200, height: 100)
        let d = Self.keypointDetection([(0.25, 0.25), (0.75, 0.75)])
        let r = try run(d, output: "NORM_RECT", size: size, o)[0].get(NormalizedRect.self)
        expectClose(r, NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1, rotation: atan(0.5)))
        // Target 90°: π/2 + atan(0.5).
        o.rotationVectorTargetAngleDegrees = 90
        let turned = try run(d, output: "NORM_RECT", size: size, o)[0].get(NormalizedRect.self)
        #expect(abs(turned.rotation - (Double.pi / 2 + atan(0.5))) < 1e-9)
        // Keypoints swapped (vector straight down in the image) with a target of π radians:
        // π − (−π/2) = 3π/2, normalized to −π/2.
        o.rotationVectorTargetAngleDegrees = nil
        o.rotationVectorTargetAngle = Double.pi
        let down = Self.keypointDetection([(0.5, 0.25), (0.5, 0.75)])
        let n = try run([down, d], input: "DETECTIONS", output: "NORM_RECTS", size: size, o)[0].get([NormalizedRect].self)
        #expect(abs(n[0].rotation - -Double.pi / 2) < 1e-9)
        #expect(abs(n[1].rotation - (Double.pi + atan(0.5) - 2 * Double.pi)) < 1e-9)
        o.conversionMode = .useKeypoints
        let rects = try run([down], input: "DETECTIONS", output: "RECTS", size: size, o)[0].get([RotatedRect].self)
        #expect(rects.count == 1 && abs(rects[0].rotation - -Double.pi / 2) < 1e-9)
    }

    @Test func rotationWaitsForAnImageSizePacket() throws {
        var o = Calc.Options()
        o.rotationVectorStartKeypointIndex = 0
        o.rotationVectorEndKeypointIndex = 1
        o.rotationVectorTargetAngle = 0
        let runner = try CalculatorRunner(Calc.self, options: o, inputs: ["DETECTION:d", "IMAGE_SIZE:s"], outputs: ["NORM_RECT:r"])
        let d = Self.keypointDetection([(0.25, 0.5), (0.75, 0.5)])
        runner.add(d, tag: "DETECTION", at: 0)
        runner.add(d, tag: "DETECTION", at: 1)
        runner.add(ImageSize(width: 10, height: 10), tag: "IMAGE_SIZE", at: 1)
        try runner.run()
        #expect(runner.outputs("NORM_RECT").map(\.timestamp.microseconds) == [1])
        // Out-of-range keypoint indexes are an error, not a crash.
        o.rotationVectorEndKeypointIndex = 5
        #expect(throws: (any Error).self) { try run(d, output: "NORM_RECT", size: .init(width: 10, height: 10), o) }
    }

    @Test func emptyDetectionsGiveNothingOrAZeroRect() throws {
        let empty: [Detection] = []
        for tag in ["NORM_RECT", "RECT", "NORM_RECTS", "RECTS"] {
            #expect(try run(empty, input: "DETECTIONS", output: tag).isEmpty, "\(tag)")
        }
        var o = Calc.Options()
        o.outputZeroRectForEmptyDetections = true
        let zero = NormalizedRect(xCenter: 0, yCenter: 0, width: 0, height: 0)
        #expect(try run(empty, input: "DETECTIONS", output: "NORM_RECT", o).map { try $0.get(NormalizedRect.self) } == [zero])
        #expect(try run(empty, input: "DETECTIONS", output: "NORM_RECTS", o).map { try $0.get([NormalizedRect].self) } == [[zero]])
        #expect(
            try run(empty, input: "DETECTIONS", output: "RECT", o).map { try $0.get(RotatedRect.self) } == [
                RotatedRect(xCenter: 0, yCenter: 0, width: 0, height: 0)
            ])
        // As in MediaPipe, RECTS gets no zero rect.
        #expect(try run(empty, input: "DETECTIONS", output: "RECTS", o).isEmpty)
    }

    @Test func badOptionsAndPortsAreErrors() throws {
        var o = Calc.Options()
        o.rotationVectorStartKeypointIndex = 0
        o.rotationVectorTargetAngle = 0
        let noEnd = #expect(throws: GraphError.self) { try o.validate() }
        #expect(noEnd?.kind == .invalidOption && noEnd?.message.contains("rotation_vector_end_keypoint_index") == true)
        o.rotationVectorEndKeypointIndex = 1
        try o.validate()
        o.rotationVectorTargetAngleDegrees = 0
        let both = #expect(throws: GraphError.self) { try o.validate() }
        #expect(both?.kind == .invalidOption && both?.message.contains("rotation_vector_target_angle_degrees") == true)
        o.rotationVectorTargetAngle = nil
        o.rotationVectorTargetAngleDegrees = nil
        let none = #expect(throws: GraphError.self) { try o.validate() }
        #expect(none?.message.contains("rotation_vector_target_angle") == true)
        // Rotation without an IMAGE_SIZE input, two inputs, two outputs.
        o.rotationVectorTargetAngle = 0
        let d = Self.keypointDetection([(0, 0), (1, 1)])
        let noSize = thrownDescription { _ = try run(d, output: "NORM_RECT", o) }
        #expect(noSize?.contains("IMAGE_SIZE") == true)
        let two = try CalculatorRunner(Calc.self, inputs: ["DETECTION:a", "DETECTIONS:b"], outputs: ["NORM_RECT:r"])
        #expect(throws: (any Error).self) { try two.run() }
        let outs = try CalculatorRunner(Calc.self, inputs: ["DETECTION:a"], outputs: ["NORM_RECT:r", "RECT:q"])
        #expect(throws: (any Error).self) { try outs.run() }
    }

    /// MediaPipe Tasks' palm detector sets rotation_vector_target_angle 90 — radians, not degrees:
    /// an upward vector (atan2 = π/2) turns the rect by 90 − π/2 moved into [−π, π)
    /// (90 − π/2 − 14 · 2π ≈ 0.4646).
    @Test func targetAngleOf90Radians() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "DetectionsToRectsCalculator" input_stream: "DETECTION:d" input_stream: "IMAGE_SIZE:s"
                output_stream: "NORM_RECT:r"
                options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
                  rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 1
                  rotation_vector_target_angle: 90 conversion_mode: USE_KEYPOINTS } }
                """, registry: .standard)
        runner.add(Self.keypointDetection([(0.5, 0.75), (0.5, 0.25)]), tag: "DETECTION", at: 0)
        runner.add(ImageSize(width: 100, height: 100), tag: "IMAGE_SIZE", at: 0)
        try runner.run()
        let rotation = try runner.outputs("NORM_RECT")[0].get(NormalizedRect.self).rotation
        #expect(abs(rotation - (90 - Double.pi / 2 - 28 * Double.pi)) < 1e-9, "\(rotation)")
    }

    @Test func graphFileAndBinaryOptions() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "DetectionsToRectsCalculator" input_stream: "DETECTION:d" input_stream: "IMAGE_SIZE:s"
                output_stream: "NORM_RECT:r"
                options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
                  rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 1
                  rotation_vector_target_angle_degrees: 90 conversion_mode: USE_KEYPOINTS } }
                """, registry: .standard)
        runner.add(Self.keypointDetection([(0.5, 0.75), (0.5, 0.25)]), tag: "DETECTION", at: 0)
        runner.add(ImageSize(width: 100, height: 100), tag: "IMAGE_SIZE", at: 0)
        try runner.run()
        // The vector already points up (90°): no rotation; keypoint box 0 × 0.5.
        expectClose(
            try runner.outputs("NORM_RECT")[0].get(NormalizedRect.self),
            NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0.5))

        let o = try binaryGraphOptions(
            "DetectionsToRectsCalculator", ports: (["DETECTIONS:d"], ["NORM_RECTS:r"]), ext: 262691807, as: Calc.Options.self
        ) { w in
            w.int(5, 1)
            w.int(6, 2)
        }
        var expected = Calc.Options()
        expected.outputZeroRectForEmptyDetections = true
        expected.conversionMode = .useKeypoints
        #expect(o == expected)
    }

    /// Keypoint indexes and target angles outside their ranges are refused when the graph is built.
    @Test(arguments: [
        (
            "rotation_vector_start_keypoint_index: 1000001 rotation_vector_end_keypoint_index: 1 rotation_vector_target_angle: 0",
            "rotation_vector_start_keypoint_index"
        ),
        (
            "rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: -1 rotation_vector_target_angle: 0",
            "rotation_vector_end_keypoint_index"
        ),
        (
            "rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 1 rotation_vector_target_angle: 1e308",
            "rotation_vector_target_angle"
        ),
        (
            "rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 1 rotation_vector_target_angle_degrees: 361",
            "rotation_vector_target_angle_degrees"
        ),
    ])
    func refusesOptionsOutsideTheirRanges(options: String, field: String) {
        let e = nodeOptionError(
            """
            calculator: "DetectionsToRectsCalculator" input_stream: "DETECTION:d" input_stream: "IMAGE_SIZE:s"
            output_stream: "NORM_RECT:r"
            options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] { \(options) } }
            """)
        expectInvalidOption(e, naming: field, options)
    }
}
