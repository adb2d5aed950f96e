import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// Graphs/face_detection_short_range.pbtxt against an independent reference pipeline
/// (scripts/fixtures/make_blazeface_fixtures.py: OpenCV letterbox, LiteRT, numpy anchors,
/// decoding and weighted NMS), on real images: astronaut, carphone frames, two faces, and
/// coffee / rocket with no face.
@Suite struct BlazeFaceGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    struct Expected: Decodable {
        var box: [Double]
        var score: Double
        var keypoints: [[Double]]
    }

    static var cases: [String] {
        guard let data = FileManager.default.contents(atPath: path(".build/fixtures/blazeface/expected.json")),
            let all = try? JSONDecoder().decode([String: [Expected]].self, from: data)
        else { return ["(fixtures missing: run scripts/setup.sh test)"] }
        return all.keys.sorted()
    }

    @Test(arguments: cases)
    func matchesReferencePipeline(name: String) throws {
        let data = try #require(FileManager.default.contents(atPath: Self.path(".build/fixtures/blazeface/expected.json")), "run scripts/setup.sh test")
        let expected = try #require(try JSONDecoder().decode([String: [Expected]].self, from: data)[name])
        let image = try TestImages.readPNM(Self.path(".build/fixtures/blazeface/\(name).ppm"))
        let registry = CalculatorRegistry.standard.adding(CalculatorRegistry.mlCalculators)
        var text = try String(contentsOfFile: Self.path("Graphs/face_detection_short_range.pbtxt"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\".build/fixtures/models/", with: "\"\(Self.path(".build/fixtures/models"))/")
        let graph = try Graph(GraphConfig(parsing: text, file: "face_detection_short_range.pbtxt"), registry: registry)
        let out = try PacketCollector(graph, "detections")
        try graph.start()
        try graph.send(image, to: "input_video", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let got = try #require(out.packets.first).get([Detection].self)
        #expect(got.count == expected.count, "\(name): \(got.count) faces, the reference finds \(expected.count)")
        for e in expected {
            let want = Rect(x: e.box[0], y: e.box[1], width: e.box[2], height: e.box[3])
            let best = try #require(got.max { $0.box.iou(want) < $1.box.iou(want) }, "\(name): no face near \(want)")
            #expect(best.box.iou(want) >= 0.95, "\(name): IoU \(best.box.iou(want)) with the reference \(want), got \(best.box)")
            #expect(abs(best.score - e.score) <= 0.02, "\(name): score \(best.score) vs \(e.score)")
            #expect(best.keypoints.count == 6)
            for (k, p) in zip(best.keypoints, e.keypoints) {
                #expect(hypot(k.x - p[0], k.y - p[1]) <= 0.03 * want.width, "\(name): keypoint \(k) vs \(p)")
            }
            #expect(best.label == "face")
        }
    }
}
