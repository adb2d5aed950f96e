import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowML
import Testing

/// MediaPipe's `*_desktop_live` graphs throttle themselves with a FlowLimiterCalculator. On a
/// file, `GraphRunner` makes the reader wait for each frame, so every frame comes out; on the
/// same input played in real time, the limiter still thins what the graph cannot take, and
/// the summary counts it.
@Suite(.serialized) struct DesktopLiveGraphsOnFilesTests {
    static let graphs = [
        "face_detection_desktop_live", "face_mesh_desktop_live", "hand_tracking_desktop_live", "holistic_tracking_desktop_live",
        "pose_tracking_desktop_live", "selfie_segmentation_desktop_live",
    ]

    static func run(_ name: String, input: String, frames: Int, realtime: Bool) throws -> GraphRunner.Summary {
        let text = try String(contentsOfFile: MLFixtures.path("Graphs/\(name).pbtxt"), encoding: .utf8)
        let graph = try Graph(
            GraphConfig(parsing: text, file: "\(name).pbtxt"), registry: MLFixtures.registry, environment: MLFixtures.mediaPipeEnvironment)
        var options = GraphRunner.Options()
        options.inputs = [(nil, input)]
        options.frames = frames
        options.output = "null"
        options.realtime = realtime
        return try GraphRunner(graph: graph, options: options).run()
    }

    @Test(
        .enabled(if: MediaPipeSolutionFixtures.optimized, "300 frames through the models run in the optimized pass of make test"),
        arguments: graphs)
    func aFileLosesNoFrame(graph: String) throws {
        try #require(
            FileManager.default.fileExists(atPath: MediaPipeSolutionFixtures.module("pose_landmark/pose_landmark_full.tflite")),
            "run scripts/setup.sh test")
        let s = try Self.run(graph, input: "testsrc:256x192@30", frames: 300, realtime: false)
        #expect(s.framesIn == 300, "\(graph): \(s)")
        #expect(s.framesOut == 300, "\(graph): \(s)")
        #expect(s.dropped == 0, "\(graph): \(s)")
    }

    @Test(.enabled(if: MediaPipeSolutionFixtures.optimized, "the models run in the optimized pass of make test"))
    func realTimeStillDropsWhatTheGraphCannotTakeAndCountsIt() throws {
        // 300 frames in 0.3 s: faster than face detection and the mesh run here.
        let s = try Self.run("face_mesh_desktop_live", input: "testsrc:256x192@1000", frames: 300, realtime: true)
        #expect(s.framesIn == 300, "\(s)")
        #expect(s.dropped > 0, "\(s)")
        #expect(s.framesOut + s.dropped == s.framesIn, "every frame either comes out or is counted as dropped: \(s)")
    }
}
