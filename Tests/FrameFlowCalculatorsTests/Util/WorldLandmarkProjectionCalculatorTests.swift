import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTesting
import Testing

/// WorldLandmarkProjectionCalculator: rotation by the rect's angle against the rotation
/// formula, pass-through without a rect, missing packets, refused nodes.
@Suite struct WorldLandmarkProjectionCalculatorTests {
    func runner(_ body: String) throws -> CalculatorRunner {
        try CalculatorRunner(node: "calculator: \"WorldLandmarkProjectionCalculator\"\nname: \"world\"\n" + body, registry: .standard)
    }

    let withRect = """
        input_stream: "LANDMARKS:landmarks"
        input_stream: "NORM_RECT:roi"
        output_stream: "LANDMARKS:projected"
        """

    let points = LandmarkList([
        Landmark(x: 0.1, y: -0.2, z: 0.05, visibility: 0.9, presence: 0.7), Landmark(x: -0.03, y: 0.04, z: -0.01),
    ])

    @Test(arguments: [0.0, 0.6, Double.pi / 2, -2.5])
    func rotation(angle: Double) throws {
        let r = try runner(withRect)
        r.add(points, tag: "LANDMARKS", at: 5)
        r.add(NormalizedRect(xCenter: 0.3, yCenter: 0.6, width: 0.2, height: 0.4, rotation: angle), tag: "NORM_RECT", at: 5)
        try r.run()
        let out = try values(r.outputs("LANDMARKS"), as: LandmarkList.self)
        #expect(out.count == 1 && out.first?.0 == 5)
        guard let got = out.first?.1.landmark, got.count == 2 else { return }
        for (p, q) in zip(points.landmark, got) {
            // The rect's centre and size do not matter: world landmarks only turn.
            #expect(abs(q.x - (cos(angle) * p.x - sin(angle) * p.y)) < 1e-6)
            #expect(abs(q.y - (sin(angle) * p.x + cos(angle) * p.y)) < 1e-6)
            #expect(q.z == p.z && q.visibility == p.visibility && q.presence == p.presence)
        }
    }

    @Test func withoutRectPassesThrough() throws {
        let r = try runner("input_stream: \"LANDMARKS:l\"\noutput_stream: \"LANDMARKS:o\"")
        r.add(points, tag: "LANDMARKS", at: 1)
        try r.run()
        #expect(try r.outputs("LANDMARKS").map { try $0.get(LandmarkList.self) } == [points])
    }

    /// A timestamp without the rect, or without landmarks, gives nothing.
    @Test func missingPacketsGiveNothing() throws {
        let r = try runner(withRect)
        r.add(points, tag: "LANDMARKS", at: 1)
        r.add(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1, rotation: 1), tag: "NORM_RECT", at: 2)
        r.add(points, tag: "LANDMARKS", at: 3)
        r.add(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1), tag: "NORM_RECT", at: 3)
        try r.run()
        #expect(r.outputs("LANDMARKS").map(\.timestamp) == [3])
    }

    @Test(arguments: [
        ("input_stream: \"NORM_RECT:r\"\noutput_stream: \"LANDMARKS:o\"", "LANDMARKS"),
        ("input_stream: \"LANDMARKS:l\"\ninput_stream: \"NORM_RECT:r\"", "LANDMARKS"),
        ("input_stream: \"LANDMARKS:l\"\ninput_stream: \"RECT:r\"\noutput_stream: \"LANDMARKS:o\"", "RECT"),
    ])
    func badNodesAreRefused(body: String, needle: String) throws {
        let text = thrownDescription { try runner(body).run() }
        #expect(text?.contains("world") == true && text?.contains(needle) == true, "\(text ?? "")")
    }
}
