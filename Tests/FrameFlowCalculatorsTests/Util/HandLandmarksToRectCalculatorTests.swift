import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// HandLandmarksToRectCalculator against the geometry written out here (a hand turned by θ
/// gives its upright rect turned by θ) and against MediaPipe's own calculator on the cases of
/// scripts/fixtures/make_hand_rect_fixtures.py (Tests/Fixtures/hands/rect_calculators.json).
@Suite struct HandLandmarksToRectCalculatorTests {
    typealias Calc = HandLandmarksToRectCalculator

    /// An upright hand: wrist low, fingers up. The points the calculator must ignore (finger
    /// tips and the third joints) are far off in a corner.
    static let upright: [(Double, Double)] = {
        var p = Array(repeating: (0.99, 0.01), count: 21)
        p[0] = (0.5, 0.9)
        p[1] = (0.4, 0.85); p[2] = (0.35, 0.8); p[3] = (0.3, 0.75)
        p[5] = (0.42, 0.6); p[6] = (0.42, 0.5)
        p[9] = (0.5, 0.6); p[10] = (0.5, 0.5)
        p[13] = (0.58, 0.6); p[14] = (0.58, 0.5)
        p[17] = (0.64, 0.65); p[18] = (0.66, 0.58)
        return p
    }()

    static func list(_ points: [(Double, Double)]) -> NormalizedLandmarkList {
        NormalizedLandmarkList(points.map { NormalizedLandmark(x: $0.0, y: $0.1) })
    }

    func expectClose(
        _ a: NormalizedRect, _ b: NormalizedRect, _ tolerance: Double = 1e-6, _ what: String = "",
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let pairs = [(a.xCenter, b.xCenter), (a.yCenter, b.yCenter), (a.width, b.width), (a.height, b.height), (a.rotation, b.rotation)]
        #expect(pairs.allSatisfy { abs($0.0 - $0.1) <= tolerance }, "\(what) \(a) ≠ \(b)", sourceLocation: sourceLocation)
    }

    func run(_ landmarks: NormalizedLandmarkList?, size: ImageSize?) throws -> [Packet] {
        let runner = try CalculatorRunner(Calc.self, inputs: ["NORM_LANDMARKS:l", "IMAGE_SIZE:s"], outputs: ["NORM_RECT:r"])
        if let landmarks { runner.add(landmarks, tag: "NORM_LANDMARKS", at: 0) }
        if let size { runner.add(size, tag: "IMAGE_SIZE", at: 0) }
        try runner.run()
        return runner.outputs("NORM_RECT")
    }

    /// Upright: no rotation, the box of the wrist and the first two joints of each finger:
    /// x 0.3…0.66, y 0.5…0.9.
    @Test func uprightHandGivesItsBoxUnrotated() throws {
        let r = try run(Self.list(Self.upright), size: ImageSize(width: 100, height: 100))
        try #require(r.count == 1)
        expectClose(try r[0].get(NormalizedRect.self), NormalizedRect(xCenter: 0.48, yCenter: 0.7, width: 0.36, height: 0.4))
    }

    /// The hand turned clockwise by θ about (0.5, 0.5) on a square image (y down: the rotation
    /// (x, y) → (x cos θ − y sin θ, x sin θ + y cos θ)) gives the upright rect, its centre
    /// turned the same way, with rotation θ normalized to [−π, π).
    @Test func turnedHandGivesTheUprightRectTurned() throws {
        for degrees in [30.0, 90, 135, 180, -60, -100] {
            let t = degrees * Double.pi / 180
            let turn = { (p: (Double, Double)) -> (Double, Double) in
                let x = p.0 - 0.5, y = p.1 - 0.5
                return (0.5 + x * cos(t) - y * sin(t), 0.5 + x * sin(t) + y * cos(t))
            }
            let centre = turn((0.48, 0.7))
            let rotation = t - 2 * Double.pi * ((t + Double.pi) / (2 * Double.pi)).rounded(.down)
            let r = try run(Self.list(Self.upright.map(turn)), size: ImageSize(width: 300, height: 300))[0].get(NormalizedRect.self)
            expectClose(
                r, NormalizedRect(xCenter: centre.0, yCenter: centre.1, width: 0.36, height: 0.4, rotation: rotation), 2e-6)
        }
    }

    /// 21 landmarks and the 12 of the legacy subset give the same rect.
    @Test func legacySubsetGivesTheSameRect() throws {
        let subset = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18].map { Self.upright[$0] }
        let size = ImageSize(width: 640, height: 480)
        #expect(try Calc.rect(Self.list(subset).landmark, imageSize: size) == Calc.rect(Self.list(Self.upright).landmark, imageSize: size))
    }

    struct Fixtures: Decodable {
        struct HandCase: Decodable {
            var image_size: [Int]
            var landmarks: [[Double]]
            var rect: [String: Double]
        }
        var hand_landmarks_to_rect: [HandCase]
    }

    /// MediaPipe's calculator on hand-like landmark sets of 21 and 12, on images of four shapes,
    /// and on a hand wholly off the image (where its FLT_MIN start shows).
    @Test func matchesMediaPipe() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("hands/rect_calculators.json")))
        let cases = try JSONDecoder().decode(Fixtures.self, from: data).hand_landmarks_to_rect
        try #require(cases.count >= 10)
        #expect(cases.contains { $0.landmarks.count == 12 } && cases.contains { $0.landmarks.allSatisfy { $0[0] < 0 && $0[1] < 0 } })
        for (i, c) in cases.enumerated() {
            let list = NormalizedLandmarkList(c.landmarks.map { NormalizedLandmark(x: $0[0], y: $0[1], z: $0[2]) })
            let got = try Calc.rect(list.landmark, imageSize: ImageSize(width: c.image_size[0], height: c.image_size[1]))
            let want = NormalizedRect(
                xCenter: c.rect["x_center"]!, yCenter: c.rect["y_center"]!, width: c.rect["width"]!, height: c.rect["height"]!,
                rotation: c.rect["rotation"]!)
            // Single precision on both sides; MediaPipe's build may fuse multiply-adds.
            expectClose(got, want, 1e-5, "case \(i)")
        }
    }

    @Test func missingInputsAndBadListsAreErrorsNamingTheNode() throws {
        // No landmarks at a timestamp: nothing.
        #expect(try run(nil, size: ImageSize(width: 10, height: 10)).isEmpty)
        // Landmarks without an image size.
        let noSize = thrownDescription { _ = try run(Self.list(Self.upright), size: nil) }
        #expect(noSize?.contains("node 'HandLandmarksToRectCalculator'") == true && noSize?.contains("IMAGE_SIZE") == true)
        // Too few landmarks for the wrist and the MCPs.
        let few = thrownDescription { _ = try run(Self.list(Array(Self.upright.prefix(5))), size: ImageSize(width: 10, height: 10)) }
        #expect(few?.contains("node 'HandLandmarksToRectCalculator'") == true && few?.contains("got 5") == true)
        // Unconnected ports are a graph error.
        let runner = try CalculatorRunner(Calc.self, inputs: ["NORM_LANDMARKS:l"], outputs: ["NORM_RECT:r"])
        #expect(throws: (any Error).self) { try runner.run() }
    }

    @Test func graphFileForm() throws {
        let runner = try CalculatorRunner(
            node: """
                calculator: "HandLandmarksToRectCalculator" input_stream: "NORM_LANDMARKS:hand_landmarks"
                input_stream: "IMAGE_SIZE:image_size" output_stream: "NORM_RECT:hand_rect_from_landmarks"
                """, registry: .standard)
        runner.add(Self.list(Self.upright), tag: "NORM_LANDMARKS", at: 5)
        runner.add(ImageSize(width: 100, height: 100), tag: "IMAGE_SIZE", at: 5)
        try runner.run()
        let out = runner.outputs("NORM_RECT")
        #expect(out.map(\.timestamp.microseconds) == [5])
        expectClose(try out[0].get(NormalizedRect.self), NormalizedRect(xCenter: 0.48, yCenter: 0.7, width: 0.36, height: 0.4))
    }
}
