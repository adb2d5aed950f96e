import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// Graphs/object_detection_camera.pbtxt: 640×480 NV12 (full range) frames sent faster than
/// the detector runs; every frame reaches the output, the detector sees only some (late
/// frames skip it rather than queue), and the detections it makes find the face.
@Suite struct ObjectDetectionCameraGraphTests {
    @Test func fullRateVideoWithDetectionsAtTheDetectorsPace() throws {
        let astronaut = try TestImages.readPNM(MLFixtures.path(".build/fixtures/blazeface/astronaut.ppm"))
        // The astronaut's top 480 rows centred in a black 640×480 frame (64 columns each side).
        var canvas = try ImagePool.shared.makeImage(width: 640, height: 480, format: .rgb8)
        canvas.fill(0)
        for y in 0..<480 {
            let src = astronaut.row(y)
            canvas.withMutableRow(y) { r in for i in 0..<(512 * 3) { r[64 * 3 + i] = src[i] } }
        }
        let frame = try ColorConvertCalculator.convert(canvas.freeze(), to: .nv12(.full))
        let graph = try MLFixtures.graph("object_detection_camera")
        let video = try PacketCollector(graph, "output_video"), dets = try PacketCollector(graph, "detections")
        try graph.start()
        let n = 60
        for i in 0..<n { try graph.send(frame, to: "input_video", at: Timestamp(Int64(i) * 33_333)) }
        try graph.closeAllInputStreams()
        try graph.waitUntilDone()
        #expect(video.packets.count == n, "every frame reaches the output")
        let detected = try dets.packets.map { try $0.get([Detection].self) }
        #expect(!detected.isEmpty && detected.count < n, "the detector ran on \(detected.count) of \(n) frames")
        // The face where the reference pipeline finds it in the whole astronaut, moved 64 right.
        var want = try #require(MLFixtures.expectedFaces?["astronaut"]?.first, "run scripts/setup.sh test").rect
        want.x += 64
        for d in detected {
            #expect(d.count == 1)
            if let f = d.first?.box(inImageOfWidth: 640, height: 480) { #expect(f.iou(want) > 0.85, "\(f) vs \(want)") }
        }
        let out = try video.packets[n - 1].get(ImageFrame.self)
        #expect(out.width == 640 && out.height == 480)
    }

    @Test func yoloGraphNeedsItsModelSidePacket() throws {
        let graph = try MLFixtures.graph("object_detection_yolo")
        #expect { try graph.start() } throws: { "\($0)".contains("model") }
        #expect { try graph.start(sidePackets: ["model": "/nonexistent/yolov8n.onnx"]) } throws: { "\($0)".contains("/nonexistent/yolov8n.onnx") }
    }
}
