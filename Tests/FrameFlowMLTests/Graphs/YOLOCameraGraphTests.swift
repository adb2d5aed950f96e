import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// Graphs/object_detection_yolo.pbtxt as a camera app runs it: a real clip decoded by FFmpeg
/// into 640×480 NV12 (full range) at its own frame rate, with a YOLO export as the slow stage.
/// The video keeps every frame, the detector takes only the newest frame whenever it is free,
/// and the flow limiter's count in the graph's statistics (`frameflow run --stats`) says how
/// many frames the detector skipped.
@Suite struct YOLOCameraGraphTests {
    @Test func videoKeepsItsRateWhileTheDetectorSkipsFrames() throws {
        let clip = RepositoryFiles.built("yolo/carphone_640x480.mp4")  // FFmpeg-scaled by make_yolo_fixtures.py
        let model = RepositoryFiles.built("models/yolov8n.onnx")
        for f in [clip, model] where !FileManager.default.fileExists(atPath: f) {
            Issue.record("\(f) is missing: run scripts/setup.sh test (make test does)")
            return
        }
        let graph = try MLFixtures.graph("object_detection_yolo")
        let video = try PacketCollector(graph, "output_video"), dets = try PacketCollector(graph, "detections")
        let inputs = try PacketCollector(graph, "input_video")
        var o = GraphRunner.Options()
        o.inputs = [(nil, clip)]
        o.source.pixelFormat = .nv12(.full)
        o.frames = 45
        o.realtime = true
        o.sidePackets = ["model": model]
        let summary = try GraphRunner(graph: graph, options: o).run()

        let first = try #require(inputs.packets.first).get(ImageFrame.self)
        #expect(first.width == 640 && first.height == 480 && first.format == .nv12(.full))
        #expect(summary.framesIn == 45 && video.packets.count == 45, "\(summary)")
        #expect(graph.statistics.framesRejected == 0, "no frame is refused at the input")
        #expect(video.timestamps == inputs.timestamps, "every frame reaches the output at its own timestamp")
        let nodes = graph.statistics.nodes
        let limiter = try #require(nodes.first { $0.name.contains("FlowLimiter") }, "\(nodes.map(\.name))")
        let inference = try #require(nodes.first { $0.name.contains("Inference") }, "\(nodes.map(\.name))")
        let detected = 45 - limiter.dropped
        #expect(detected >= 1 && detected < 45, "the detector took \(detected) of 45 frames")
        #expect(dets.packets.count == detected, "one detection list per frame the detector took")
        // The clip's rate (carphone: 30 fps) is kept: 45 frames take about 1.5 s, not 45 × the
        // network's latency.
        let span = Double(inputs.timestamps.last!.microseconds - inputs.timestamps.first!.microseconds) / 1e6
        // At the end the run waits for the detector's last frame (one latency); a debug build on
        // a busy machine may also drain a short backlog of video frames.
        let latency = inference.busySeconds / Double(max(1, inference.calls))
        #expect(summary.seconds < span + 2 + 2 * latency, "\(summary)")
    }
}
