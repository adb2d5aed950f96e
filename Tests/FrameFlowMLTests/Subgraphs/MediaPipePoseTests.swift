import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTesting
import Testing

/// MediaPipe's Pose run from MediaPipe's own compiled graph (`pose_landmark_cpu.binarypb` from
/// the mediapipe==0.10.21 wheel) with MediaPipe's models and the side packets Python's
/// `solutions.pose` gives it, against that solution's results on the same pixels
/// (Tests/Fixtures/mediapipe/pose.json and masks/pose/).
@Suite(.serialized) struct MediaPipePoseTests {
    typealias F = MediaPipeSolutionFixtures
    typealias P = PoseSelfieFixtures
    static let binary = F.module("pose_landmark/pose_landmark_cpu.binarypb")

    struct Result {
        var landmarks: NormalizedLandmarkList?
        var world: LandmarkList?
        var mask: ImageFrame?
    }

    static var photoCases: [String] { P.pose.filter(\.static_image_mode).map(\.source) }

    /// Python's side packets: tracking and smoothing only in video mode.
    static func sidePackets(_ run: P.Run, complexity: Int? = nil) -> [String: any Sendable] {
        [
            "model_complexity": complexity ?? run.model_complexity ?? 1, "smooth_landmarks": run.smooth_landmarks ?? !run.static_image_mode,
            "enable_segmentation": run.enable_segmentation ?? true, "smooth_segmentation": run.smooth_segmentation ?? !run.static_image_mode,
            "use_prev_landmarks": run.use_prev_landmarks ?? !run.static_image_mode,
        ]
    }

    func poses(_ run: P.Run, _ images: [ImageFrame]) throws -> [Result] {
        let streams = ["pose_landmarks", "pose_world_landmarks", "segmentation_mask"]
        return try F.run(Self.binary, images: images, sidePackets: Self.sidePackets(run), streams: streams).map { packets in
            Result(
                landmarks: try packets[streams[0]]?.get(NormalizedLandmarkList.self), world: try packets[streams[1]]?.get(LandmarkList.self),
                mask: try packets[streams[2]]?.get(ImageFrame.self))
        }
    }

    /// The largest difference in visibility between our landmarks and MediaPipe's.
    static func visibilityGap(_ ours: NormalizedLandmarkList, _ theirs: P.Pose) -> Double {
        let want = P.landmarks(theirs).landmark
        guard ours.landmark.count == want.count else { return .infinity }
        return zip(ours.landmark, want).map { abs(($0.visibility ?? -1) - ($1.visibility ?? -1)) }.max() ?? 0
    }

    /// Static-image mode: a pose on the same photos; mean landmark distance ≤ 0.5 % of the
    /// width, visibility within 0.05, world landmarks within 1 cm on average; the mask at 0.5
    /// with IoU ≥ 0.97 and mean absolute difference ≤ 0.02.
    @Test(arguments: photoCases)
    func photosMatchMediaPipesPythonSolution(source: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(P.pose.first { $0.source == source && $0.static_image_mode })
        let images = try F.frames(run.path, count: 1)
        #expect(images.first?.width == run.width && images.first?.height == run.height)
        let got = try poses(run, images)[0]
        let want = run.frames[0]
        #expect((got.landmarks != nil) == (want.pose != nil), "\(source): pose \(got.landmarks != nil), MediaPipe's \(want.pose != nil)")
        guard let ours = got.landmarks, let theirs = want.pose else {
            #expect(got.mask == nil, "\(source): a mask without a pose")
            return
        }
        let d = F.distance(ours, P.xyz(theirs), width: run.width, height: run.height)
        #expect(d.mean <= 0.005, "\(source): mean \(d.mean), max \(d.max) of the width")
        let gap = Self.visibilityGap(ours, theirs)
        #expect(gap <= 0.05, "\(source): visibility off by \(gap)")

        let world = try #require(got.world, "\(source): no world landmarks")
        let wantWorld = P.worldLandmarks(theirs).landmark
        #expect(world.landmark.count == wantWorld.count)
        let worldMean =
            zip(world.landmark, wantWorld).map { a, b in
                ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)).squareRoot()
            }.reduce(0, +) / Double(max(1, wantWorld.count))
        #expect(worldMean <= 0.01, "\(source): world landmarks off by \(worldMean) m on average")

        let mask = try #require(got.mask, "\(source): no mask")
        let stored = try P.mask(try #require(want.mask, "\(source): MediaPipe's mask is not stored"))
        #expect(mask.width == stored.width && mask.height == stored.height)
        let c = P.compare(P.values(mask), stored.values)
        #expect(c.iou >= 0.97 && c.mad <= 0.02, "\(source): mask IoU \(c.iou), mean difference \(c.mad)")
        print("Pose photo \(source): landmarks mean \(d.mean) max \(d.max), visibility \(gap), world \(worldMean) m, mask IoU \(c.iou) MAD \(c.mad)")
    }

    /// Video mode on a real clip, every frame, smoothing on: a pose on the same frames, and
    /// per-frame landmarks within 1 % of the width on at least 95 % of frames; the masks
    /// (stored every tenth frame) with IoU ≥ 0.95 where both found the pose.
    @Test(.enabled(if: MediaPipeSolutionFixtures.optimized, "a clip runs in the optimized pass of make test"), arguments: ["walk_clip", "carphone"])
    func clipTracksLikeMediaPipe(source: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(P.pose.first { $0.source == source && !$0.static_image_mode })
        let images = try F.frames(run.path, count: run.frames.count)
        try #require(images.count == run.frames.count)
        let got = try poses(run, images)
        var close = 0, samePresence = 0, worst = 0.0, masks = 0, worstIoU = 1.0
        for (k, frame) in run.frames.enumerated() {
            if (got[k].landmarks != nil) == (frame.pose != nil) { samePresence += 1 }
            switch (got[k].landmarks, frame.pose) {
            case (let ours?, let theirs?):
                let d = F.distance(ours, P.xyz(theirs), width: run.width, height: run.height)
                worst = max(worst, d.mean)
                if d.mean <= 0.01 { close += 1 }
            case (nil, nil): close += 1
            default: break
            }
            // Masks where both found the pose (a frame without one counts against the 95 %).
            if let path = frame.mask, let ours = got[k].mask {
                let c = P.compare(P.values(ours), try P.mask(path).values)
                masks += 1
                worstIoU = min(worstIoU, c.iou)
                #expect(c.iou >= 0.95, "\(source) frame \(k): mask IoU \(c.iou), mean difference \(c.mad)")
            }
        }
        let n = run.frames.count
        #expect(Double(close) >= 0.95 * Double(n), "\(source): \(close) of \(n) frames within 1 %; worst frame mean \(worst)")
        print(
            "Pose clip \(source): \(close)/\(n) frames within 1 % of the width, \(samePresence)/\(n) with the same presence, worst frame mean \(worst); \(masks) masks, worst IoU \(worstIoU)"
        )
    }

    /// Each Pose subgraph offers the ports MediaPipe's graph of the same name declares (tags of
    /// streams and side packets, in MediaPipe's order).
    @Test(arguments: [
        (
            "PoseLandmarkCpu", ["IMAGE"],
            ["LANDMARKS", "WORLD_LANDMARKS", "SEGMENTATION_MASK", "DETECTION", "ROI_FROM_LANDMARKS", "ROI_FROM_DETECTION"],
            ["SMOOTH_LANDMARKS", "ENABLE_SEGMENTATION", "SMOOTH_SEGMENTATION", "MODEL_COMPLEXITY", "USE_PREV_LANDMARKS"]
        ),
        (
            "PoseLandmarkByRoiCpu", ["IMAGE", "ROI"], ["LANDMARKS", "AUXILIARY_LANDMARKS", "WORLD_LANDMARKS", "SEGMENTATION_MASK"],
            ["ENABLE_SEGMENTATION", "MODEL_COMPLEXITY"]
        ),
        ("PoseLandmarkModelLoader", [], [], ["MODEL_COMPLEXITY"]),
        (
            "TensorsToPoseLandmarksAndSegmentation", ["TENSORS"], ["LANDMARKS", "AUXILIARY_LANDMARKS", "WORLD_LANDMARKS", "SEGMENTATION_MASK"],
            ["ENABLE_SEGMENTATION"]
        ),
        (
            "PoseLandmarksAndSegmentationInverseProjection",
            ["IMAGE_SIZE", "NORM_RECT", "LETTERBOX_PADDING", "MATRIX", "LANDMARKS", "AUXILIARY_LANDMARKS", "WORLD_LANDMARKS", "SEGMENTATION_MASK"],
            ["LANDMARKS", "AUXILIARY_LANDMARKS", "WORLD_LANDMARKS", "SEGMENTATION_MASK"], []
        ),
        (
            "PoseLandmarkFiltering", ["IMAGE_SIZE", "NORM_LANDMARKS", "AUX_NORM_LANDMARKS", "WORLD_LANDMARKS"],
            ["FILTERED_NORM_LANDMARKS", "FILTERED_AUX_NORM_LANDMARKS", "FILTERED_WORLD_LANDMARKS"], ["ENABLE"]
        ),
        ("PoseSegmentationFiltering", ["SEGMENTATION_MASK"], ["FILTERED_SEGMENTATION_MASK"], ["ENABLE"]),
        ("PoseDetectionCpu", ["IMAGE"], ["DETECTIONS"], []),
        ("PoseDetectionToRoi", ["DETECTION", "IMAGE_SIZE"], ["ROI"], []),
        ("PoseLandmarksToRoi", ["LANDMARKS", "IMAGE_SIZE"], ["ROI"], []),
        ("PoseRendererCpu", ["IMAGE", "LANDMARKS", "SEGMENTATION_MASK", "ROI", "DETECTION"], ["IMAGE"], []),
        ("PoseLandmarksToRenderData", ["LANDMARKS", "ROI", "IMAGE_SIZE"], ["RENDER_DATA"], []),
    ])
    func subgraphsHaveMediaPipesPorts(name: String, inputs: [String], outputs: [String], sidePackets: [String]) throws {
        let config = try #require(try CalculatorRegistry.mlSubgraphs().first { $0.name == name }?.config, "\(name) is missing")
        #expect(config.inputStreams.map(\.tag) == inputs, "\(name)")
        #expect(config.outputStreams.map(\.tag) == outputs, "\(name)")
        #expect(config.inputSidePackets.map(\.tag) == sidePackets, "\(name)")
    }

    /// The wheel ships only the full landmark model: the lite and heavy ones fail by name.
    @Test(arguments: [(0, "pose_landmark_lite.tflite"), (2, "pose_landmark_heavy.tflite")])
    func missingModelsAreNamed(complexity: Int, file: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        try #require(!FileManager.default.fileExists(atPath: F.module("pose_landmark/\(file)")), "\(file) is present")
        let run = try #require(P.pose.first { $0.source == "whole_body" })
        let images = try F.frames(run.path, count: 1)
        do {
            _ = try F.run(Self.binary, images: images, sidePackets: Self.sidePackets(run, complexity: complexity), streams: ["pose_landmarks"])
            Issue.record("model_complexity \(complexity) ran without \(file)")
        } catch {
            #expect("\(error)".contains(file), "\(error)")
        }
    }

    /// Graphs/pose_tracking_desktop_live.pbtxt on a photo: the landmarks MediaPipe finds, a
    /// mask of the image's size, and the skeleton drawn on the output frame.
    @Test func desktopGraphDrawsTheSkeleton() throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(P.pose.first { $0.source == "whole_body" })
        let image = try #require(try F.frames(run.path, count: 1).first)
        let (video, landmarks, mask) = try MLFixtures.withMediaPipeEnvironment { env in
            let text = try String(contentsOfFile: MLFixtures.path("Graphs/pose_tracking_desktop_live.pbtxt"), encoding: .utf8)
            let graph = try Graph(
                GraphConfig(parsing: text, file: "pose_tracking_desktop_live.pbtxt"), registry: MLFixtures.registry, environment: env)
            let video = try PacketCollector(graph, "output_video"), landmarks = try PacketCollector(graph, "pose_landmarks")
            let mask = try PacketCollector(graph, "segmentation_mask")
            try graph.start()
            try graph.send(image, to: "input_video", at: Timestamp(0))
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return (
                try video.packets.first?.get(ImageFrame.self), try landmarks.packets.first?.get(NormalizedLandmarkList.self),
                try mask.packets.first?.get(ImageFrame.self)
            )
        }
        let ours = try #require(landmarks, "no pose")
        let theirs = try #require(run.frames[0].pose)
        #expect(F.distance(ours, P.xyz(theirs), width: run.width, height: run.height).mean <= 0.005)
        #expect(mask?.width == image.width && mask?.height == image.height)
        let out = try #require(video)
        #expect(out.width == image.width && out.height == image.height)
        let before = try ColorConvertCalculator.convert(image, to: out.format)
        func pixel(_ f: ImageFrame, _ x: Int, _ y: Int) -> [UInt8] {
            let n = f.format.bytesPerPixel(plane: 0)
            return Array(f.row(y)[(x * n)..<(x * n + n)])
        }
        // The shoulders (landmarks 11, 12) are visible: a line is drawn over them.
        for i in [11, 12] {
            let p = ours.landmark[i]
            let x = min(image.width - 1, Int(p.x * Double(image.width))), y = min(image.height - 1, Int(p.y * Double(image.height)))
            #expect(pixel(out, x, y) != pixel(before, x, y), "landmark \(i) at (\(x), \(y)) not drawn")
        }
    }
}
