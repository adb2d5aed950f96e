import Foundation
import FrameFlow
import FrameFlowInference
import FrameFlowML
import FrameFlowTestSupport
import Testing

/// MediaPipe's classic Pose, Hands, Face Mesh and Holistic graphs (the wheel's `.binarypb`) in
/// video mode on the long real clips (≥ 300 frames, every frame: tracking and smoothing on),
/// against `mp.solutions` on the same pixels (Tests/Fixtures/mediapipe/clips/<solution>_<clip>.zip,
/// from scripts/fixtures/make_mediapipe_long_clip_fixtures.py, whose docstring defines the
/// measure), with issue 45's video measures: the same presence on ≥ 98 % of frames, ≥ 98 % of
/// frames within 1 % of the width, and the mean error of the clip's last third at most twice
/// that of its first. Each fixture also holds the yardstick: the same measure of MediaPipe
/// against itself when one byte of each frame is +3 (`pixel`) or every byte ±1 (`noise`).
/// They run in make test's optimized pass (minutes unoptimized).
@Suite(.enabled(if: TasksFixtures.clipsEnabled, "the long clips run in the optimized pass of make test"))
struct ClassicLongClipTests {
    typealias F = MediaPipeSolutionFixtures

    struct Yardstick: Decodable {
        var frames: Int
        var same_presence: Int
        var within: Int
        var first_third: Double
        var last_third: Double
    }
    struct Frame: Decodable {
        var index: Int
        var rgb_sums: [String]
        /// Per group, each list's x, y in 1e-5 units, as differences from the previous frame's
        /// list at the same group and position when that frame has one of the same length.
        var lists: [String: [[Int]]]
    }
    struct Run: Decodable {
        var solution: String
        var source: String
        var path: String
        var width: Int
        var height: Int
        var groups: [String]
        var frames: [Frame]
        var yardstick: [String: Yardstick]
    }

    /// One frame's lists by group: x, y pairs normalised by the image size.
    typealias Lists = [String: [[Double]]]

    static func load(_ solution: String, _ clip: String) throws -> Run {
        try TasksFixtures.zippedJSON("mediapipe/clips", "\(solution)_\(clip)", as: Run.self)
    }

    /// The fixture's lists as absolute coordinates (undoing the differences).
    static func decoded(_ run: Run) -> [Lists] {
        var previous: [String: [[Int]]] = [:]
        return run.frames.map { f in
            var out: Lists = [:]
            for (g, lists) in f.lists {
                let before = previous[g] ?? []
                let absolute = lists.enumerated().map { i, v in
                    i < before.count && before[i].count == v.count ? zip(v, before[i]).map { $0 + $1 } : v
                }
                previous[g] = absolute
                out[g] = absolute.map { $0.map { Double($0) * 1e-5 } }
            }
            return out
        }
    }

    typealias Figures = TasksLongClipTests.Figures

    /// The measure of the fixture script: `TasksLongClipTests`' grouped measure on x, y pairs.
    static func measure(ours: [Lists], theirs: [Lists], groups: [String], width: Int, height: Int) -> Figures {
        func points(_ lists: Lists) -> [String: [TasksLongClipTests.Points]] {
            lists.mapValues { $0.map { TasksLongClipTests.points(flat: $0, stride: 2) } }
        }
        return TasksLongClipTests.measure(ours: ours.map(points), theirs: theirs.map(points), groups: groups, width: width, height: height)
    }

    /// The binarypb, the side packets `mp.solutions` gives it in video mode, and how to read
    /// a frame's lists by group from the output packets.
    static func graph(_ solution: String) -> (
        binary: String, sides: [String: any Sendable], read: ([String: Packet]) throws -> Lists, streams: [String]
    ) {
        func xy(_ l: NormalizedLandmarkList) -> [Double] { l.landmark.flatMap { [$0.x, $0.y] } }
        switch solution {
        case "pose":
            return (
                F.module("pose_landmark/pose_landmark_cpu.binarypb"),
                [
                    "model_complexity": 1, "smooth_landmarks": true, "enable_segmentation": false, "smooth_segmentation": true,
                    "use_prev_landmarks": true,
                ],
                { p in ["pose": try p["pose_landmarks"].map { [xy(try $0.get(NormalizedLandmarkList.self))] } ?? []] }, ["pose_landmarks"]
            )
        case "hands":
            return (
                F.module("hand_landmark/hand_landmark_tracking_cpu.binarypb"),
                ["num_hands": 2, "model_complexity": 1, "use_prev_landmarks": true],
                { p in ["hands": try (p["multi_hand_landmarks"]?.get([NormalizedLandmarkList].self) ?? []).map(xy)] }, ["multi_hand_landmarks"]
            )
        case "face_mesh":
            return (
                F.module("face_landmark/face_landmark_front_cpu.binarypb"),
                ["num_faces": 1, "with_attention": false, "use_prev_landmarks": true],
                { p in ["faces": try (p["multi_face_landmarks"]?.get([NormalizedLandmarkList].self) ?? []).map(xy)] }, ["multi_face_landmarks"]
            )
        default:
            let parts = ["pose", "face", "left_hand", "right_hand"]
            return (
                F.module("holistic_landmark/holistic_landmark_cpu.binarypb"),
                [
                    "model_complexity": 1, "smooth_landmarks": true, "enable_segmentation": false, "smooth_segmentation": true,
                    "refine_face_landmarks": false, "use_prev_landmarks": true,
                ],
                { p in
                    var out: Lists = [:]
                    for part in parts { out[part] = try p[part + "_landmarks"].map { [xy(try $0.get(NormalizedLandmarkList.self))] } ?? [] }
                    return out
                }, parts.map { $0 + "_landmarks" }
            )
        }
    }

    static let cases = [
        ("pose", "asl_face"), ("pose", "asl_hands"), ("pose", "asl_body"), ("pose", "walk_long"),
        ("hands", "asl_face"), ("hands", "asl_hands"), ("hands", "asl_body"),
        ("face_mesh", "asl_face"), ("face_mesh", "asl_hands"), ("face_mesh", "asl_body"),
        ("holistic", "asl_face"), ("holistic", "asl_hands"), ("holistic", "asl_body"), ("holistic", "walk_long"),
    ].map { "\($0.0) \($0.1)" }

    @Test(arguments: cases)
    func tracksLikeMediaPipe(name: String) throws {
        let parts = name.split(separator: " ").map(String.init)
        let run = try Self.load(parts[0], parts[1])
        #expect(run.frames.count >= 300, "\(name): \(run.frames.count) frames, not a long clip")
        let g = Self.graph(run.solution)
        try #require(FileManager.default.fileExists(atPath: g.binary), "run scripts/setup.sh test")
        let images = try F.frames(run.path, count: run.frames.count)
        try #require(images.count == run.frames.count, "\(name): \(images.count) frames decoded")
        let other = run.frames.indices.filter { TasksFixtures.rgbSums(images[$0]) != run.frames[$0].rgb_sums }
        #expect(other.isEmpty, "\(name): frames \(other.prefix(10)) are not the pixels MediaPipe was given")
        let ours = try F.run(g.binary, images: images, sidePackets: g.sides, streams: g.streams).map(g.read)
        let f = Self.measure(ours: ours, theirs: Self.decoded(run), groups: run.groups, width: run.width, height: run.height)
        let yard = ["pixel", "noise"].compactMap { k in run.yardstick[k].map { (k, $0) } }
        print("Classic \(name): \(f)")
        for (k, y) in yard {
            print(
                "  MediaPipe against itself (\(k)): same presence \(y.same_presence)/\(y.frames), within 1 % \(y.within)/\(y.frames), "
                    + "mean error first third \(y.first_third), last third \(y.last_third)")
        }
        #expect(f.frames == run.frames.count)
        Self.check(name, f, against: run.yardstick["pixel"])
    }

    /// Issue 45's thresholds. Where MediaPipe misses one against itself with one byte of each
    /// frame changed (the `pixel` yardstick), tracking there is chaotic — a difference far
    /// below anything visible flips a detection gate, and the loop carries it — and no
    /// implementation that is not bit-identical to MediaPipe's can hold it: the threshold is a
    /// known issue, and FrameFlow must stay as close as that yardstick (3 % of the frames to
    /// spare: other machines' kernels round differently, and the flips move).
    static func check(_ name: String, _ f: Figures, against y: Yardstick?) {
        let growth = f.third(2) / max(f.third(0), 1e-9)
        let yPresence = y.map { Double($0.same_presence) / Double(max($0.frames, 1)) } ?? 1
        let yWithin = y.map { Double($0.within) / Double(max($0.frames, 1)) } ?? 1
        let yGrowth = y.map { $0.last_third / max($0.first_third, 1e-9) } ?? 0
        let criteria: [(what: String, ours: Double, theirs: Double, holds: (Double) -> Bool, floor: Double)] = [
            ("same presence", f.presenceShare, yPresence, { $0 >= 0.98 }, yPresence - 0.03),
            ("within 1 %", f.withinShare, yWithin, { $0 >= 0.98 }, yWithin - 0.03),
            ("last third / first third", growth, yGrowth, { $0 <= 2 }, 0),
        ]
        for c in criteria {
            let message = Comment(rawValue: "\(name): \(c.what) \(c.ours), MediaPipe against itself \(c.theirs)")
            if c.holds(c.theirs) {
                #expect(c.holds(c.ours), message)
            } else if c.floor > 0 {
                // Chaotic cases: the floor was measured with AVX-512 kernels, whose rounding is
                // closest to MediaPipe's XNNPACK; other levels' rounding flips other gates (pose
                // walk_long: same presence 83.8 % with AVX2, 77.5 % baseline, 2026-12-05).
                if KernelLevel.active == .avx512 { #expect(c.ours >= c.floor, message) }
                withKnownIssue(message, isIntermittent: true) { #expect(c.holds(c.ours), message) }
            } else {
                #expect(c.ours <= c.theirs * 1.5, message)
                withKnownIssue(message, isIntermittent: true) { #expect(c.holds(c.ours), message) }
            }
        }
    }
}
