import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Tests/Fixtures/pose/smoothing_calculators.json, made by
/// scripts/fixtures/make_pose_smoothing_fixtures.py: MediaPipe's own smoothing and visibility
/// calculators on made-up landmark sequences.
struct PoseSmoothingFixtures: Decodable {
    struct Frame: Decodable {
        var timestamp: Int64
        var landmarks: [[Double]]?
        var roi: [Double]?
        var rectRoi: [Int]?
        var to: [[Double]]?
    }
    struct Output: Decodable {
        var timestamp: Int64
        var landmarks: [[Double]]
    }
    struct Case: Decodable {
        var name: String
        var node: String
        var normalized: Bool
        var imageSize: [Int]?
        var frames: [Frame]
        var outputs: [Output]
    }
    var cases: [Case]

    static let all: PoseSmoothingFixtures? = {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.fixture("pose/smoothing_calculators.json")))
        else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try? decoder.decode(PoseSmoothingFixtures.self, from: data)
    }()

    static func named(_ name: String) throws -> Case {
        let c = try #require(all?.cases.first { $0.name == name }, "fixture case \(name) (pose/smoothing_calculators.json)")
        return c
    }

    static func point<Space>(_ v: [Double]) -> LandmarkPoint<Space> {
        LandmarkPoint(x: v[0], y: v[1], z: v[2], visibility: v.count > 3 ? v[3] : nil, presence: v.count > 4 ? v[4] : nil)
    }

    /// Runs the case's node on its frames; returns the outputs as (timestamp, [x, y, z, visibility, presence]).
    static func run(_ c: Case) throws -> [(Int64, [[Double]])] {
        var body = c.node.trimmingCharacters(in: .whitespacesAndNewlines)
        body = String(body.dropFirst("node {".count).dropLast())
        let r = try CalculatorRunner(node: body, registry: .standard)
        let tag = c.normalized ? "NORM_LANDMARKS" : "LANDMARKS"
        for f in c.frames {
            let t = Timestamp(f.timestamp)
            if let l = f.landmarks {
                if body.contains("NORM_LANDMARKS_FROM") {
                    r.add(NormalizedLandmarkList(l.map(point)), tag: "NORM_LANDMARKS_FROM", at: t)
                } else if c.normalized {
                    r.add(NormalizedLandmarkList(l.map(point)), tag: tag, at: t)
                } else {
                    r.add(LandmarkList(l.map(point)), tag: tag, at: t)
                }
            }
            if let to = f.to { r.add(LandmarkList(to.map(point)), tag: "LANDMARKS_TO", at: t) }
            if let s = c.imageSize, body.contains("IMAGE_SIZE") { r.add(ImageSize(width: s[0], height: s[1]), tag: "IMAGE_SIZE", at: t) }
            if let roi = f.roi {
                r.add(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: roi[0], height: roi[1]), tag: "OBJECT_SCALE_ROI", at: t)
            }
            if let roi = f.rectRoi {
                r.add(RotatedRect(xCenter: 0, yCenter: 0, width: roi[0], height: roi[1]), tag: "OBJECT_SCALE_ROI", at: t)
            }
        }
        try r.run()
        let outTag = body.contains("LANDMARKS_TO:out") ? "LANDMARKS_TO" : (c.normalized ? "NORM_FILTERED_LANDMARKS" : "FILTERED_LANDMARKS")
        return try r.outputs(outTag).map { p in
            func values<Space>(_ l: LandmarkPointList<Space>) -> [[Double]] {
                l.landmark.map { [$0.x, $0.y, $0.z, $0.visibility ?? 0, $0.presence ?? 0] }
            }
            if let l = p.payload as? NormalizedLandmarkList { return (p.timestamp.microseconds, values(l)) }
            return (p.timestamp.microseconds, values(try p.get(LandmarkList.self)))
        }
    }

    /// The case's outputs equal MediaPipe's as float32 values, every one of them.
    static func expectMatches(_ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let c = try named(name)
        let got = try run(c)
        #expect(got.map(\.0) == c.outputs.map(\.timestamp), "\(name): output timestamps", sourceLocation: sourceLocation)
        var mismatches = 0
        var first = ""
        for (g, e) in zip(got, c.outputs) {
            for (i, (a, b)) in zip(g.1, e.landmarks).enumerated() where a.map(Float.init) != b.map(Float.init) {
                if mismatches == 0 { first = "t=\(g.0) landmark \(i): \(a.map(Float.init)) vs MediaPipe \(b.map(Float.init))" }
                mismatches += 1
            }
            #expect(g.1.count == e.landmarks.count, sourceLocation: sourceLocation)
        }
        #expect(mismatches == 0, "\(name): \(mismatches) landmarks differ from MediaPipe's; first: \(first)", sourceLocation: sourceLocation)
    }
}
