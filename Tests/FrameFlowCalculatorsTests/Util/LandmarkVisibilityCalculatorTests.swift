import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// LandmarkVisibilityCalculator against MediaPipe's own calculator
/// (Tests/Fixtures/holistic/calculators.json, scripts/fixtures/make_holistic_calculator_fixtures.py),
/// and its errors.
@Suite struct LandmarkVisibilityCalculatorTests {
    struct Fixtures: Decodable {
        struct Case: Decodable {
            var visibility: Double?
            var output: Float
        }
        var landmark_visibility: [Case]
    }

    func run(_ list: NormalizedLandmarkList?, at t: Int64 = 0) throws -> [Float] {
        let runner = try CalculatorRunner(
            LandmarkVisibilityCalculator.self, options: .init(), inputs: ["NORM_LANDMARKS:l"], outputs: ["VISIBILITY:v"])
        if let list { runner.add(list, tag: "NORM_LANDMARKS", at: Timestamp(t)) }
        try runner.run()
        return try runner.outputs("VISIBILITY").map { try $0.get(Float.self) }
    }

    /// The landmark's visibility as a float; 0 when it has none, as MediaPipe.
    @Test func matchesMediaPipe() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("holistic/calculators.json")))
        let cases = try JSONDecoder().decode(Fixtures.self, from: data).landmark_visibility
        try #require(cases.count == 3 && cases.contains { $0.visibility == nil })
        for c in cases {
            let got = try run(NormalizedLandmarkList([NormalizedLandmark(x: 0.25, y: 0.5, z: -0.1, visibility: c.visibility)]))
            #expect(got == [c.output], "visibility \(String(describing: c.visibility))")
        }
    }

    @Test func emptyAndLongListsAreErrorsNamingTheStream() throws {
        for n in [0, 2] {
            let list = NormalizedLandmarkList(Array(repeating: NormalizedLandmark(x: 0, y: 0, visibility: 1), count: n))
            let e = thrownDescription { _ = try run(list) }
            #expect(e?.contains("exactly one landmark") == true && e?.contains("stream 'l'") == true, "\(e ?? "")")
        }
    }
}
