import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// FrameFlow against MediaPipe stream by stream: MediaPipe's own expanded Tasks graph, run as
/// written on FrameFlow, every stream compared frame by frame with MediaPipe's run of it
/// (Tests/Fixtures/mediapipe/streams, from scripts/fixtures/record_mediapipe_streams.py).
struct StreamComparisonTests {
    /// A recording and what it was made from.
    struct Case {
        var recording: String
        var graph: String
        var clip: String
        var fps: Double
        var asset: String
    }

    static let poseCarphone = Case(
        recording: "mediapipe/streams/pose_landmarker_video_single_carphone.json", graph: "pose_landmarker_video_single",
        clip: ".build/fixtures/carphone_pristine.mp4", fps: 30000.0 / 1001, asset: ".build/fixtures/tasks/pose_landmarker_full.task")

    /// Runs a case (or, with FRAMEFLOW_STREAMS=recording.json, FF_GRAPH, FF_CLIP, FF_FPS and
    /// FF_ASSET, any other recording) and returns both runs.
    static func run(_ c: Case) throws -> (
        ours: [String: [Int: [StreamComparison.Value]]], reference: StreamComparison.Recording, depth: [String: Int], config: GraphConfig
    ) {
        try TasksFixtures.requireModels()
        let data = try #require(
            FileManager.default.contents(atPath: RepositoryFiles.fixture(c.recording)) ?? FileManager.default.contents(atPath: c.recording))
        let reference = try JSONDecoder().decode(StreamComparison.Recording.self, from: data)
        let config = try GraphConfig(
            contentsOfFile: RepositoryFiles.fixture("mediapipe/tasks/graphs/\(c.graph)_expanded.pbtxt"), registry: MLFixtures.registry)
        let images = try RepositoryFiles.frames(c.clip, count: reference.frames)
        let times = images.indices.map { Int64((Double($0) * 1000 / c.fps).rounded()) }
        let environment = GraphEnvironment(resourceRoots: [RepositoryFiles.path("")]).with(ModelAssets(taskAsset: c.asset))
        let ours = try StreamComparison.record(
            config, images: images, timestampsMs: times, streams: reference.streams, registry: MLFixtures.registry, environment: environment)
        return (ours, reference, StreamComparison.depths(config), config)
    }

    /// The streams of MediaPipe's pose graph before the landmark model: the detector's
    /// detections, the regions from them, and the region each landmark run crops.
    static let beforeLandmarkModel = [
        "posedetectorgraph____stream_8", "posedetectorgraph____stream_9", "posedetectorgraph____stream_10",
        "posedetectorgraph____stream_11", "poselandmarkergraph____stream_3", "poselandmarkergraph____stream_4",
        "multipleposelandmarksdetectorgraph____stream_4",
    ]

    /// On the first frame, every stream up to the landmark model's input agrees with
    /// MediaPipe's to float rounding, and the runs part first at the model's output: there, a
    /// region that differs by 1e-6 moves samples of the 256×256 crop across OpenCV's 1/32-pixel
    /// grid (MediaPipe's warp, which FrameFlow's reproduces), and the landmark model turns those
    /// few changed bytes into differences of 1e-3 to 1e-2. From then on the tracked region
    /// carries them from frame to frame: MediaPipe's own run moves as far from itself when its
    /// pixels change by ±1 (docs/tasks.md). Which of the landmark model's outputs parts first
    /// depends on the kernels' rounding: the landmarks (stream_18) with AVX-512, the world
    /// landmarks (stream_22) with AVX2.
    @Test func poseLandmarkerCarphonePartsOnlyAtTheModel() throws {
        let (ours, reference, depth, config) = try Self.run(Self.poseCarphone)
        let frame0 = StreamComparison.firstParting(ours, reference, frames: 1, tolerance: 1e-5, depth: depth)
        print("pose carphone, first frame, tolerance 1e-5: \(frame0.map { "\($0)" } ?? "no parting")")
        for s in reference.streams where (reference.values[s]?["0"]?.isEmpty == false) {
            let mine = ours[s]?[0] ?? []
            let theirs = reference.values[s]?["0"] ?? []
            try #require(mine.count == theirs.count, "frame 0, \(s): \(mine.count) packets, MediaPipe \(theirs.count)")
            let d = zip(mine, theirs).map { $0.distance(to: $1) ?? .infinity }.max() ?? 0
            if Self.beforeLandmarkModel.contains(where: { s.hasSuffix($0) }) {
                #expect(d <= 1e-5, "frame 0, \(s): \(d) from MediaPipe's before the landmark model")
            }
            #expect(d <= 2e-3, "frame 0, \(s): \(d) from MediaPipe's")
        }
        for tolerance in [1e-4, 1e-3, 1e-2] {
            let p = StreamComparison.firstParting(ours, reference, frames: reference.frames, tolerance: tolerance, depth: depth)
            print("pose carphone, \(reference.frames) frames, tolerance \(tolerance): \(p.map { "\($0)" } ?? "no parting")")
        }
        let first = try #require(StreamComparison.firstParting(ours, reference, frames: reference.frames, tolerance: 1e-4, depth: depth))
        let models = StreamComparison.modelOutputs(config, recorded: Set(reference.streams))
        #expect(
            models.contains(first.stream) && first.stream.contains("singleposelandmarksdetectorgraph____"),
            "the runs part first at \(first), not at the landmark model's output")
    }

    /// Any recording, for looking (FRAMEFLOW_STREAMS=recording.json; writes FrameFlow's run to
    /// FRAMEFLOW_STREAMS_OUT for record_mediapipe_streams.py's `compare`).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FRAMEFLOW_STREAMS"] != nil))
    func anyRecording() throws {
        let env = ProcessInfo.processInfo.environment
        let c = Case(
            recording: env["FRAMEFLOW_STREAMS"]!, graph: env["FF_GRAPH"] ?? "pose_landmarker_video_single",
            clip: env["FF_CLIP"] ?? Self.poseCarphone.clip, fps: Double(env["FF_FPS"] ?? "") ?? Self.poseCarphone.fps,
            asset: env["FF_ASSET"] ?? Self.poseCarphone.asset)
        let (ours, reference, depth, _) = try Self.run(c)
        if let out = env["FRAMEFLOW_STREAMS_OUT"] { try StreamComparison.write(ours, to: out) }
        for tolerance in [1e-4, 1e-3, 1e-2] {
            let p = StreamComparison.firstParting(ours, reference, frames: reference.frames, tolerance: tolerance, depth: depth)
            print("tolerance \(tolerance): \(p.map { "\($0)" } ?? "no parting")")
        }
    }
}
