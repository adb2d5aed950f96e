import Foundation
import FrameFlow
import FrameFlowCalculators
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe's Holistic run from MediaPipe's own compiled graph (`holistic_landmark_cpu.binarypb`
/// from the mediapipe==0.10.21 wheel) with MediaPipe's models and the side packets Python's
/// `solutions.holistic` gives it in static_image_mode, against that solution's results on the
/// same photos (Tests/Fixtures/mediapipe/holistic.json and holistic/, made by
/// scripts/fixtures/make_mediapipe_holistic_fixtures.py).
@Suite(.serialized) struct MediaPipeHolisticTests {
    typealias F = MediaPipeSolutionFixtures
    typealias P = PoseSelfieFixtures
    static let binary = F.module("holistic_landmark/holistic_landmark_cpu.binarypb")

    struct Frame: Decodable {
        var index: Int
        var pose: P.Pose?
        /// x, y, z of each landmark (468, or 478 refined).
        var face: [Float]?
        var left_hand: [Float]?
        var right_hand: [Float]?
        var mask: String?
        var mask_mean: Float?
    }
    struct Run: Decodable {
        var source: String
        var path: String
        var width: Int
        var height: Int
        var rgb_sums: [String]
        var model_complexity: Int
        var enable_segmentation: Bool
        var refine_face_landmarks: Bool
        var frames: [Frame]
    }
    struct File: Decodable { var runs: [Run] }

    static let runs: [Run] = {
        guard let data = FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/holistic.json")),
            let f = try? JSONDecoder().decode(File.self, from: data)
        else { return [] }
        return f.runs
    }()
    static var cases: [String] { runs.map { "\($0.source) refine=\($0.refine_face_landmarks)" } }

    static let streams = ["pose_landmarks", "face_landmarks", "left_hand_landmarks", "right_hand_landmarks", "segmentation_mask"]

    /// Python's side packets in static_image_mode (no smoothing, no tracking of the pose).
    static func sidePackets(_ run: Run, complexity: Int? = nil) -> [String: any Sendable] {
        [
            "model_complexity": complexity ?? run.model_complexity, "smooth_landmarks": false,
            "enable_segmentation": run.enable_segmentation, "smooth_segmentation": false,
            "refine_face_landmarks": run.refine_face_landmarks, "use_prev_landmarks": false,
        ]
    }

    /// Static-image mode, one graph per photo as the fixtures were made: the same presence of
    /// pose, face, left and right hand; each list's landmarks within 0.5 % of the width on
    /// average and 2 % at worst; the mask at 0.5 with IoU ≥ 0.97. Six models per photo take a
    /// minute unoptimized for the 21 runs, so they run in the optimized pass of make test.
    @Test(.enabled(if: MediaPipeSolutionFixtures.optimized, "the photos run in the optimized pass of make test"), arguments: cases)
    func photosMatchMediaPipesPythonSolution(name: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(Self.runs.first { "\($0.source) refine=\($0.refine_face_landmarks)" == name })
        let images = try F.frames(run.path, count: 1)
        try #require(images.count == 1)
        #expect(P.rgbSums(images) == run.rgb_sums, "\(name): FrameFlow decodes other pixels than MediaPipe was given")
        let got = try F.run(Self.binary, images: images, sidePackets: Self.sidePackets(run), streams: Self.streams)[0]
        let want = run.frames[0]
        var report: [String] = []
        let parts: [(String, [Float]?)] = [
            ("pose_landmarks", want.pose.map(P.xyz)), ("face_landmarks", want.face), ("left_hand_landmarks", want.left_hand),
            ("right_hand_landmarks", want.right_hand),
        ]
        for (stream, theirs) in parts {
            let ours = try got[stream]?.get(NormalizedLandmarkList.self)
            #expect((ours != nil) == (theirs != nil), "\(name): \(stream) \(ours != nil), MediaPipe's \(theirs != nil)")
            guard let ours, let theirs else { continue }
            #expect(ours.landmark.count * 3 == theirs.count, "\(name): \(stream) has \(ours.landmark.count) landmarks")
            let d = F.distance(ours, theirs, width: run.width, height: run.height)
            #expect(d.mean <= 0.005 && d.max <= 0.02, "\(name): \(stream) mean \(d.mean), max \(d.max) of the width")
            report.append("\(stream.replacingOccurrences(of: "_landmarks", with: "")) mean \(d.mean) max \(d.max)")
        }
        let mask = try got["segmentation_mask"]?.get(ImageFrame.self)
        #expect((mask != nil) == (want.mask_mean != nil), "\(name): mask \(mask != nil), MediaPipe's \(want.mask_mean != nil)")
        if let mask, let path = want.mask {
            let stored = try P.mask(path)
            #expect(mask.width == stored.width && mask.height == stored.height)
            let c = P.compare(P.values(mask), stored.values)
            #expect(c.iou >= 0.97, "\(name): mask IoU \(c.iou), mean difference \(c.mad)")
            report.append("mask IoU \(c.iou) MAD \(c.mad)")
        }
        print("Holistic photo \(name): \(report.joined(separator: ", "))")
    }

    /// The holistic subgraphs expand to the nodes the wheel's C++ expands them to (the graph
    /// Python's solution runs, Tests/Fixtures/mediapipe/holistic_expanded.txt): the same
    /// calculators with the same ports, in any order. The nodes under PoseLandmarkCpu,
    /// FaceLandmarkCpu, HandLandmarkCpu and FaceDetectionShortRangeByRoiCpu are left out here:
    /// `BuiltInSubgraphsFollowMediaPipeTests` checks those against MediaPipe's own graphs.
    @Test func expandsAsTheWheelsCppExpandsIt() throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let text = try String(contentsOfFile: RepositoryFiles.fixture("mediapipe/holistic_expanded.txt"), encoding: .utf8)
        let theirs = text.split(separator: "\n").map(String.init)
        let graph = try Graph(
            GraphConfig(contentsOfFile: Self.binary, registry: MLFixtures.registry), registry: MLFixtures.registry,
            environment: MLFixtures.mediaPipeEnvironment)
        let inner = ["poselandmarkcpu", "facelandmarkcpu__", "handlandmarkcpu__", "facedetectionshortrangebyroicpu__"]
        let ours = graph.expandedConfig.nodes.filter { n in !inner.contains { (n.name ?? "").contains($0) } }.map { n in
            let ports = [n.inputStreams, n.outputStreams, n.inputSidePackets, n.outputSidePackets].map {
                "[" + $0.map { "\($0.tag):\($0.index)" }.joined(separator: ", ") + "]"
            }
            return "\(n.calculator) \(ports.joined(separator: " "))"
        }
        try #require(theirs.count >= 50)
        #expect(ours.count == theirs.count, "\(ours.count) nodes, MediaPipe's \(theirs.count)")
        var unmatched = theirs
        var extra: [String] = []
        for node in ours {
            if let i = unmatched.firstIndex(of: node) { unmatched.remove(at: i) } else { extra.append(node) }
        }
        #expect(extra.isEmpty && unmatched.isEmpty, "only ours \(extra.prefix(3)), only MediaPipe's \(unmatched.prefix(3))")
    }

    /// The wheel ships only the full pose landmark model: the lite and heavy ones fail by name.
    @Test(arguments: [(0, "pose_landmark_lite.tflite"), (2, "pose_landmark_heavy.tflite")])
    func missingPoseModelsAreNamed(complexity: Int, file: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        try #require(!FileManager.default.fileExists(atPath: F.module("pose_landmark/\(file)")), "\(file) is present")
        let run = try #require(Self.runs.first { $0.source == "kick" })
        let images = try F.frames(run.path, count: 1)
        do {
            _ = try F.run(Self.binary, images: images, sidePackets: Self.sidePackets(run, complexity: complexity), streams: ["pose_landmarks"])
            Issue.record("model_complexity \(complexity) ran without \(file)")
        } catch {
            #expect("\(error)".contains(file), "\(error)")
        }
    }

    /// Each Holistic subgraph offers the ports MediaPipe's graph of the same name declares
    /// (tags of streams and side packets, in MediaPipe's order).
    @Test(arguments: [
        (
            "HolisticLandmarkCpu", ["IMAGE"],
            [
                "POSE_LANDMARKS", "WORLD_LANDMARKS", "LEFT_HAND_LANDMARKS", "RIGHT_HAND_LANDMARKS", "FACE_LANDMARKS", "SEGMENTATION_MASK",
                "POSE_ROI", "POSE_DETECTION",
            ],
            ["MODEL_COMPLEXITY", "SMOOTH_LANDMARKS", "ENABLE_SEGMENTATION", "SMOOTH_SEGMENTATION", "REFINE_FACE_LANDMARKS", "USE_PREV_LANDMARKS"]
        ),
        (
            "HandLandmarksLeftAndRightCpu", ["IMAGE", "POSE_LANDMARKS"],
            [
                "LEFT_HAND_LANDMARKS", "RIGHT_HAND_LANDMARKS", "LEFT_HAND_ROI_FROM_POSE", "LEFT_HAND_ROI_FROM_RECROP", "LEFT_HAND_TRACKING_ROI",
                "RIGHT_HAND_ROI_FROM_POSE", "RIGHT_HAND_ROI_FROM_RECROP", "RIGHT_HAND_TRACKING_ROI",
            ], []
        ),
        (
            "HandLandmarksFromPoseCpu", ["IMAGE", "HAND_LANDMARKS_FROM_POSE"],
            ["HAND_LANDMARKS", "HAND_ROI_FROM_POSE", "HAND_ROI_FROM_RECROP", "HAND_TRACKING_ROI"], []
        ),
        ("HandVisibilityFromHandLandmarksFromPose", ["HAND_LANDMARKS_FROM_POSE"], ["VISIBILITY"], []),
        ("HandLandmarksFromPoseToRecropRoi", ["HAND_LANDMARKS_FROM_POSE", "IMAGE_SIZE"], ["ROI"], []),
        ("HandRecropByRoiCpu", ["IMAGE", "ROI"], ["HAND_ROI_FROM_RECROP"], []),
        ("HandTracking", ["LANDMARKS", "HAND_ROI_FROM_RECROP", "IMAGE_SIZE"], ["HAND_TRACKING_ROI"], []),
        ("HandLandmarksToRoi", ["LANDMARKS", "IMAGE_SIZE"], ["ROI"], []),
        ("HandWristForPose", ["HAND_LANDMARKS"], ["WRIST_LANDMARK"], []),
        (
            "FaceLandmarksFromPoseCpu", ["IMAGE", "FACE_LANDMARKS_FROM_POSE"],
            ["FACE_LANDMARKS", "FACE_ROI_FROM_POSE", "FACE_ROI_FROM_DETECTION", "FACE_TRACKING_ROI"], ["REFINE_LANDMARKS"]
        ),
        ("FaceLandmarksFromPoseToRecropRoi", ["FACE_LANDMARKS_FROM_POSE", "IMAGE_SIZE"], ["ROI"], []),
        ("FaceDetectionFrontDetectionsToRoi", ["DETECTIONS", "IMAGE_SIZE"], ["ROI"], []),
        ("FaceTracking", ["LANDMARKS", "FACE_RECROP_ROI", "IMAGE_SIZE"], ["FACE_TRACKING_ROI"], []),
        ("FaceLandmarksToRoi", ["LANDMARKS", "IMAGE_SIZE"], ["ROI"], []),
        (
            "HolisticTrackingToRenderData",
            ["IMAGE_SIZE", "POSE_LANDMARKS", "POSE_ROI", "LEFT_HAND_LANDMARKS", "RIGHT_HAND_LANDMARKS", "FACE_LANDMARKS"],
            ["RENDER_DATA_VECTOR"], []
        ),
    ])
    func subgraphsHaveMediaPipesPorts(name: String, inputs: [String], outputs: [String], sidePackets: [String]) throws {
        let config = try #require(try CalculatorRegistry.mlSubgraphs().first { $0.name == name }?.config, "\(name) is missing")
        #expect(config.inputStreams.map(\.tag) == inputs, "\(name)")
        #expect(config.outputStreams.map(\.tag) == outputs, "\(name)")
        #expect(config.inputSidePackets.map(\.tag) == sidePackets, "\(name)")
    }

    /// Graphs/holistic_tracking_desktop_live.pbtxt on a photo with a person, face and both
    /// hands: the landmarks MediaPipe finds, a mask of the image's size, and the drawing on
    /// the output frame (the face's points and both hands' joints).
    @Test func desktopGraphDrawsPoseFaceAndHands() throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(Self.runs.first { $0.source == "two_hands" && !$0.refine_face_landmarks })
        let want = run.frames[0]
        let image = try #require(try F.frames(run.path, count: 1).first)
        let streams = ["output_video", "pose_landmarks", "face_landmarks", "left_hand_landmarks", "right_hand_landmarks", "segmentation_mask"]
        let packets = try MLFixtures.withMediaPipeEnvironment { env in
            let text = try String(contentsOfFile: MLFixtures.path("Graphs/holistic_tracking_desktop_live.pbtxt"), encoding: .utf8)
            let graph = try Graph(
                GraphConfig(parsing: text, file: "holistic_tracking_desktop_live.pbtxt"), registry: MLFixtures.registry, environment: env)
            let collectors = try streams.map { try PacketCollector(graph, $0) }
            try graph.start()
            try graph.send(image, to: "input_video", at: Timestamp(0))
            try graph.closeAllInputStreams()
            try graph.waitUntilDone()
            return Dictionary(uniqueKeysWithValues: zip(streams, collectors.map { $0.packets.first }))
        }
        // One frame: smoothing and tracking have nothing before it, so it is the still's result.
        for (stream, theirs) in [
            ("pose_landmarks", want.pose.map(P.xyz)), ("face_landmarks", want.face), ("left_hand_landmarks", want.left_hand),
            ("right_hand_landmarks", want.right_hand),
        ] {
            let ours = try #require(try packets[stream]??.get(NormalizedLandmarkList.self), "no \(stream)")
            let theirs = try #require(theirs)
            #expect(F.distance(ours, theirs, width: run.width, height: run.height).mean <= 0.005, "\(stream)")
        }
        let mask = try #require(try packets["segmentation_mask"]??.get(ImageFrame.self))
        #expect(mask.width == image.width && mask.height == image.height)
        let out = try #require(try packets["output_video"]??.get(ImageFrame.self))
        #expect(out.width == image.width && out.height == image.height)
        let before = try ColorConvertCalculator.convert(image, to: out.format)
        func pixel(_ f: ImageFrame, _ x: Int, _ y: Int) -> [UInt8] {
            let n = f.format.bytesPerPixel(plane: 0)
            return Array(f.row(y)[(x * n)..<(x * n + n)])
        }
        // Hands' wrists and fingertips, the face's nose tip: each has a joint drawn on it.
        for (stream, indices) in [("left_hand_landmarks", [0, 8]), ("right_hand_landmarks", [0, 8]), ("face_landmarks", [1])] {
            let list = try #require(try packets[stream]??.get(NormalizedLandmarkList.self))
            for i in indices {
                let p = list.landmark[i]
                let x = min(image.width - 1, max(0, Int(p.x * Double(image.width))))
                let y = min(image.height - 1, max(0, Int(p.y * Double(image.height))))
                #expect(pixel(out, x, y) != pixel(before, x, y), "\(stream) \(i) at (\(x), \(y)) not drawn")
            }
        }
    }
}
