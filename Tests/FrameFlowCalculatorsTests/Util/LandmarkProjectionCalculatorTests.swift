import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// LandmarkProjectionCalculator: the cases of MediaPipe's landmark_projection_calculator_test.cc
/// (default and cropped rects, rotation with and without image dimensions, identity, scale and
/// translation matrices), rect and matrix agreeing, indexed streams, and refused nodes.
@Suite struct LandmarkProjectionCalculatorTests {
    func runner(_ body: String) throws -> CalculatorRunner {
        try CalculatorRunner(node: "calculator: \"LandmarkProjectionCalculator\"\n" + body, registry: .standard)
    }

    func list(_ points: [(Double, Double, Double)]) -> NormalizedLandmarkList {
        NormalizedLandmarkList(points.map { NormalizedLandmark(x: $0.0, y: $0.1, z: $0.2) })
    }

    func close(_ l: NormalizedLandmark, _ x: Double, _ y: Double, _ z: Double) -> Bool {
        abs(l.x - x) < 1e-5 && abs(l.y - y) < 1e-5 && abs(l.z - z) < 1e-5
    }

    /// Projects `landmarks` through `control` on `tag` (plus IMAGE_DIMENSIONS when given).
    func project(
        _ landmarks: NormalizedLandmarkList, _ tag: String, _ control: any Sendable, size: ImageSize? = nil, options: String = ""
    ) throws -> [NormalizedLandmark] {
        let r = try runner(
            """
            input_stream: "NORM_LANDMARKS:landmarks"
            input_stream: "\(tag):control"
            \(size == nil ? "" : "input_stream: \"IMAGE_DIMENSIONS:size\"")
            output_stream: "NORM_LANDMARKS:projected"
            \(options)
            """)
        r.add(landmarks, tag: "NORM_LANDMARKS", at: 1)
        r.add(control, tag: tag, at: 1)
        if let size { r.add(size, tag: "IMAGE_DIMENSIONS", at: 1) }
        try r.run()
        let out = r.outputs("NORM_LANDMARKS")
        #expect(out.count == 1 && out.first?.timestamp == 1)
        return try out.first?.get(NormalizedLandmarkList.self).landmark ?? []
    }

    let cropped = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 2)
    let turned = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 1, rotation: 1.57079632679)

    @Test func rectProjection() throws {
        let whole = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)
        #expect(close(try project(list([(10, 20, -0.5)]), "NORM_RECT", whole)[0], 10, 20, -0.5))
        // (1, 1) in a half-wide, double-high rect: x 0.75, y 1.5, z halved.
        #expect(close(try project(list([(1, 1, -0.5)]), "NORM_RECT", cropped)[0], 0.75, 1.5, -0.25))
        #expect(close(try project(list([(1, 1, -0.5)]), "NORM_RECT", cropped, size: ImageSize(width: 1, height: 1))[0], 0.75, 1.5, -0.25))
    }

    @Test func rotationWithImageDimensions() throws {
        let p = list([(0.5, 1, 0)])
        #expect(close(try project(p, "NORM_RECT", turned, size: ImageSize(width: 1, height: 1))[0], 0, 0.5, 0))
        #expect(close(try project(p, "NORM_RECT", turned, size: ImageSize(width: 2, height: 1))[0], 0.25, 0.5, 0))
        // Without image dimensions MediaPipe scales after rotating (exact only for a square
        // region): (0, 0.5) from the centre turns to (−0.5, 0), times the width 0.5.
        #expect(close(try project(p, "NORM_RECT", turned)[0], 0.25, 0.5, 0))
        // ignore_rotation: straight down from the centre, y 0.5 + 0.5 · 1.
        let straight = try project(
            p, "NORM_RECT", turned, options: "options { [mediapipe.LandmarkProjectionCalculatorOptions.ext] { ignore_rotation: true } }")
        #expect(close(straight[0], 0.5, 1, 0))
    }

    @Test func matrices() throws {
        let p = list([(10, 20, -0.5), (5, 6, 7)])
        let id = try project(p, "PROJECTION_MATRIX", ProjectionMatrix.identity)
        #expect(close(id[0], 10, 20, -0.5) && close(id[1], 5, 6, 7))
        let scale = try project(p, "PROJECTION_MATRIX", ProjectionMatrix([10, 0, 0, 0, 0, 100, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])!)
        #expect(close(scale[0], 100, 2000, -5) && close(scale[1], 50, 600, 70))
        let move = try project(p, "PROJECTION_MATRIX", ProjectionMatrix([1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 0, 0, 0, 0, 1])!)
        #expect(close(move[0], 11, 22, -0.5))
        // The z column acts on x and y too.
        let zx = try project(list([(1, 2, 3)]), "PROJECTION_MATRIX", ProjectionMatrix([1, 0, 2, 0, 0, 1, -1, 0, 0, 0, 1, 0, 0, 0, 0, 1])!)
        #expect(close(zx[0], 7, -1, 3))
    }

    /// A rotated rect in a 1280 × 720 image as a matrix gives what the rect with the image's
    /// dimensions gives, and for a square image what the rect alone gives (z included).
    @Test func rectAndMatrixAgree() throws {
        let p = list([(0.2, 0.7, 0.3), (0.9, 0.1, -0.4)])
        let rect = NormalizedRect(xCenter: 0.4, yCenter: 0.6, width: 0.3, height: 0.5, rotation: 0.6)
        for (w, h) in [(1280, 720), (500, 500)] {
            let m = ProjectionMatrix.rotatedSubRect(
                centerX: 0.4 * Double(w), centerY: 0.6 * Double(h), width: 0.3 * Double(w), height: 0.5 * Double(h),
                rotation: 0.6, imageWidth: w, imageHeight: h)
            let viaMatrix = try project(p, "PROJECTION_MATRIX", m)
            let viaRect = try project(p, "NORM_RECT", rect, size: ImageSize(width: w, height: h))
            for (a, b) in zip(viaMatrix, viaRect) { #expect(close(a, b.x, b.y, b.z)) }
            if w == h {
                let plain = try project(p, "NORM_RECT", NormalizedRect(xCenter: 0.4, yCenter: 0.6, width: 0.3, height: 0.3, rotation: 0.6))
                let square = try project(
                    p, "PROJECTION_MATRIX",
                    ProjectionMatrix.rotatedSubRect(
                        centerX: 200, centerY: 300, width: 150, height: 150, rotation: 0.6, imageWidth: w, imageHeight: h))
                for (a, b) in zip(plain, square) { #expect(close(a, b.x, b.y, b.z)) }
                // z scales by the rect's width.
                #expect(abs(plain[0].z - 0.3 * 0.3) < 1e-6)
            }
        }
    }

    /// Indexed streams are projected each to its own output; visibility is kept; a missing
    /// list gives no packet on its output.
    @Test func indexedStreams() throws {
        let r = try runner(
            """
            input_stream: "NORM_LANDMARKS:0:a"
            input_stream: "NORM_LANDMARKS:1:b"
            input_stream: "NORM_RECT:rect"
            output_stream: "NORM_LANDMARKS:0:pa"
            output_stream: "NORM_LANDMARKS:1:pb"
            """)
        var seen = NormalizedLandmark(x: 0.5, y: 0.5, z: 0)
        seen.visibility = 0.9
        r.add(NormalizedLandmarkList([seen]), tag: "NORM_LANDMARKS", index: 0, at: 1)
        r.add(list([(0, 0, 0)]), tag: "NORM_LANDMARKS", index: 1, at: 1)
        r.add(list([(0, 0, 0)]), tag: "NORM_LANDMARKS", index: 1, at: 2)
        r.add(NormalizedRect(xCenter: 0.3, yCenter: 0.4, width: 0.2, height: 0.2), tag: "NORM_RECT", at: 1)
        r.add(NormalizedRect(xCenter: 0.3, yCenter: 0.4, width: 0.2, height: 0.2), tag: "NORM_RECT", at: 2)
        try r.run()
        let a = try r.outputs("NORM_LANDMARKS", 0).map { try $0.get(NormalizedLandmarkList.self).landmark[0] }
        let b = try r.outputs("NORM_LANDMARKS", 1).map { try $0.get(NormalizedLandmarkList.self).landmark[0] }
        #expect(a.count == 1 && close(a[0], 0.3, 0.4, 0) && a[0].visibility == 0.9)
        #expect(b.count == 2 && close(b[0], 0.2, 0.3, 0))
    }

    @Test func noRectNoOutput() throws {
        let r = try runner("input_stream: \"NORM_LANDMARKS:l\"\ninput_stream: \"NORM_RECT:r\"\noutput_stream: \"NORM_LANDMARKS:p\"")
        r.add(list([(0, 0, 0)]), tag: "NORM_LANDMARKS", at: 1)
        try r.run()
        #expect(r.outputs("NORM_LANDMARKS").isEmpty)
    }

    @Test(arguments: [
        ("input_stream: \"NORM_LANDMARKS:l\"\noutput_stream: \"NORM_LANDMARKS:p\"", "NORM_RECT or PROJECTION_MATRIX"),
        (
            "input_stream: \"NORM_LANDMARKS:l\"\ninput_stream: \"NORM_RECT:r\"\ninput_stream: \"PROJECTION_MATRIX:m\"\noutput_stream: \"NORM_LANDMARKS:p\"",
            "NORM_RECT or PROJECTION_MATRIX"
        ),
        (
            "input_stream: \"NORM_LANDMARKS:l\"\ninput_stream: \"PROJECTION_MATRIX:m\"\ninput_stream: \"IMAGE_DIMENSIONS:d\"\noutput_stream: \"NORM_LANDMARKS:p\"",
            "IMAGE_DIMENSIONS"
        ),
        (
            "input_stream: \"NORM_LANDMARKS:0:l\"\ninput_stream: \"NORM_LANDMARKS:1:k\"\ninput_stream: \"NORM_RECT:r\"\noutput_stream: \"NORM_LANDMARKS:p\"",
            "one output per input"
        ),
    ])
    func badNodesAreRefused(body: String, needle: String) throws {
        #expect {
            let r = try runner(body)
            try r.run()
        } throws: { $0 is GraphError && "\($0)".contains(needle) }
    }
}
