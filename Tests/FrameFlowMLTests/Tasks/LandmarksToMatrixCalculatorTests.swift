import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTesting
import Testing

/// LandmarksToMatrixCalculator against MediaPipe's steps worked out by hand (aspect rescale
/// about 0.5, rotation about (0.5, 0.5), origin and extent normalisation).
@Suite struct LandmarksToMatrixCalculatorTests {
    typealias Calc = LandmarksToMatrixCalculator

    func run(
        _ list: NormalizedLandmarkList? = nil, world: LandmarkList? = nil, size: ImageSize? = nil, rect: NormalizedRect? = nil,
        normalize: Bool = false, origin: Int = 0
    ) throws -> Matrix? {
        var inputs = list != nil ? ["LANDMARKS:l"] : ["WORLD_LANDMARKS:w"]
        if size != nil || list != nil { inputs.append("IMAGE_SIZE:s") }
        if rect != nil { inputs.append("NORM_RECT:r") }
        let runner = try CalculatorRunner(
            Calc.self, options: Calc.Options(objectNormalization: normalize, objectNormalizationOriginOffset: origin), inputs: inputs,
            outputs: ["LANDMARKS_MATRIX:m"])
        if let list { runner.add(list, tag: "LANDMARKS", at: 0) }
        if let world { runner.add(world, tag: "WORLD_LANDMARKS", at: 0) }
        if let size { runner.add(size, tag: "IMAGE_SIZE", at: 0) }
        if let rect { runner.add(rect, tag: "NORM_RECT", at: 0) }
        try runner.run()
        return try runner.outputs("LANDMARKS_MATRIX").first?.get(Matrix.self)
    }

    static let points = NormalizedLandmarkList([
        NormalizedLandmark(x: 0.5, y: 0.5, z: 0.1), NormalizedLandmark(x: 0.7, y: 0.4, z: -0.2),
        NormalizedLandmark(x: 0.3, y: 0.9, z: 0.3),
    ])

    /// 200 × 100: x keeps its scale, y is squeezed by 0.5 about 0.5; z is untouched.
    @Test func aspectRatio() throws {
        let m = try #require(try run(Self.points, size: ImageSize(width: 200, height: 100)))
        #expect(m.rows == 3 && m.cols == 3)
        let want: [[Float]] = [[0.5, 0.5, 0.1], [0.7, 0.45, -0.2], [0.3, 0.7, 0.3]]
        for (i, w) in want.enumerated() {
            for r in 0..<3 { #expect(abs(m[r, i] - w[r]) < 1e-6, "(\(r), \(i)): \(m[r, i]) vs \(w[r])") }
        }
    }

    /// A square image and rotation π/2: centred (x, y) becomes (y, −x) (x′ = x cos r + y sin r,
    /// y′ = y cos r − x sin r).
    @Test func rotation() throws {
        let m = try #require(
            try run(
                Self.points, size: ImageSize(width: 100, height: 100),
                rect: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1, rotation: Double.pi / 2)))
        // Point 1: centred (0.2, −0.1) → (−0.1, −0.2) → (0.4, 0.3).
        #expect(abs(m[0, 1] - 0.4) < 1e-6 && abs(m[1, 1] - 0.3) < 1e-6)
    }

    /// Object normalisation about landmark 0: moved by (−0.5, −0.5, −0.1), divided by the larger
    /// extent (x: −0.2…0.2 = 0.4; y: −0.1…0.4 = 0.5) + 1e-5; world landmarks skip the aspect step.
    @Test func objectNormalization() throws {
        let world = LandmarkList(Self.points.landmark.map { Landmark(x: $0.x, y: $0.y, z: $0.z) })
        let m = try #require(try run(world: world, normalize: true))
        let scale = Float(0.5) + 1e-5
        #expect(abs(m[0, 1] - 0.2 / scale) < 1e-5 && abs(m[1, 1] - -0.1 / scale) < 1e-5 && abs(m[2, 1] - -0.3 / scale) < 1e-5)
        #expect(m[0, 0] == 0 && m[1, 0] == 0 && m[2, 0] == 0)
        // About landmark 2 instead.
        let about2 = try #require(try run(world: world, normalize: true, origin: 2))
        #expect(about2[0, 2] == 0 && abs(about2[0, 1] - 0.4 / scale) < 1e-5)
    }

    @Test func badInputsAreErrors() throws {
        #expect(TasksCalculatorTesting.thrown { _ = try run(Self.points, size: ImageSize(width: 0, height: 0)) }?.contains("no area") == true)
        let far = TasksCalculatorTesting.thrown { _ = try run(Self.points, size: ImageSize(width: 10, height: 10), normalize: true, origin: 3) }
        #expect(far?.contains("object_normalization_origin_offset") == true)
        let both = try CalculatorRunner(Calc.self, inputs: ["LANDMARKS:l", "WORLD_LANDMARKS:w", "IMAGE_SIZE:s"], outputs: ["LANDMARKS_MATRIX:m"])
        #expect(TasksCalculatorTesting.thrown { try both.run() }?.contains("exactly one") == true)
        let e = TasksCalculatorTesting.nodeError(
            """
            calculator: "LandmarksToMatrixCalculator" input_stream: "WORLD_LANDMARKS:w" output_stream: "LANDMARKS_MATRIX:m"
            options { [mediapipe.LandmarksToMatrixCalculatorOptions.ext] { object_normalization_origin_offset: -1 } }
            """, inputs: ["w"])
        TasksCalculatorTesting.expectInvalidOption(e, naming: "object_normalization_origin_offset", "-1")
    }
}
