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
    static var cases: [String] { MLFixtures.expectedFaces?.keys.sorted() ?? ["(fixtures missing: run scripts/setup.sh test)"] }

    @Test(arguments: cases)
    func matchesReferencePipeline(name: String) throws {
        let expected = try #require(MLFixtures.expectedFaces?[name], "run scripts/setup.sh test")
        let image = try TestImages.readPNM(MLFixtures.path(".build/fixtures/blazeface/\(name).ppm"))
        let graph = try MLFixtures.graph("face_detection_short_range")
        let out = try PacketCollector(graph, "detections")
        try graph.start()
        try graph.send(image, to: "input_video", at: Timestamp(0))
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        let detections = try #require(out.packets.first).get([Detection].self)
        #expect(detections.allSatisfy { $0.isRelative && $0.locationData.format == .relativeBoundingBox })
        // The reference gives pixels: compare in the image's pixels.
        let got = detections.map { d in
            (
                box: d.box(inImageOfWidth: image.width, height: image.height), score: d.score, label: d.label,
                keypoints: d.keypoints(inImageOfWidth: image.width, height: image.height)
            )
        }
        #expect(got.count == expected.count, "\(name): \(got.count) faces, the reference finds \(expected.count)")
        for e in expected {
            let want = e.rect
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
