import Foundation
import FrameFlow
import FrameFlowML
import Testing

/// MediaPipe's Hands run from MediaPipe's own compiled graph (`hand_landmark_tracking_cpu.binarypb`
/// from the mediapipe==0.10.21 wheel) with MediaPipe's models, against MediaPipe's Python
/// `solutions.hands` on the same pixels (Tests/Fixtures/mediapipe/hands.json).
@Suite(.serialized) struct MediaPipeHandsTests {
    typealias F = MediaPipeSolutionFixtures
    static let binary = F.module("hand_landmark/hand_landmark_tracking_cpu.binarypb")

    struct Hand {
        var landmarks: NormalizedLandmarkList
        var world: LandmarkList?
        var handedness: ClassificationList?
    }

    static var photoCases: [String] {
        F.hands.filter(\.static_image_mode).map { "\($0.source) complexity=\($0.model_complexity ?? 1)" }
    }

    func hands(_ run: F.Run, _ images: [ImageFrame]) throws -> [[Hand]] {
        let sides: [String: any Sendable] = [
            "num_hands": run.max_num_hands ?? 2, "model_complexity": run.model_complexity ?? 1,
            "use_prev_landmarks": !run.static_image_mode,
        ]
        let streams = ["multi_hand_landmarks", "multi_hand_world_landmarks", "multi_handedness"]
        return try F.run(Self.binary, images: images, sidePackets: sides, streams: streams).map { packets in
            let landmarks = try packets[streams[0]]?.get([NormalizedLandmarkList].self) ?? []
            let world = try packets[streams[1]]?.get([LandmarkList].self) ?? []
            let handedness = try packets[streams[2]]?.get([ClassificationList].self) ?? []
            return landmarks.indices.map { i in
                Hand(landmarks: landmarks[i], world: i < world.count ? world[i] : nil, handedness: i < handedness.count ? handedness[i] : nil)
            }
        }
    }

    /// Static-image mode: the same hands with the same handedness, mean landmark distance ≤ 0.5 %
    /// of the width, none over 2 %; world landmarks within 5 mm.
    @Test(arguments: photoCases)
    func photosMatchMediaPipesPythonSolution(name: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(F.hands.first { "\($0.source) complexity=\($0.model_complexity ?? 1)" == name })
        let images = try F.frames(run.path, count: 1)
        #expect(images.first?.width == run.width && images.first?.height == run.height)
        let got = try hands(run, images)[0]
        let want = run.frames[0].hands ?? []
        #expect(got.count == want.count, "\(name): \(got.count) hands, MediaPipe finds \(want.count)")
        for m in F.match(got.map(\.landmarks), want.map(\.landmarks), width: run.width, height: run.height) {
            let ours = got[m.ours], theirs = want[m.theirs]
            #expect(m.mean <= 0.005 && m.max <= 0.02, "\(name): hand \(m.theirs): mean \(m.mean), max \(m.max) of the width")
            let label = ours.handedness?.classification.first
            #expect(label?.label == theirs.label, "\(name): \(label?.label ?? "none") vs MediaPipe's \(theirs.label)")
            #expect(abs((label?.score ?? 0) - Double(theirs.score)) <= 0.01, "\(name): handedness score \(label?.score ?? 0) vs \(theirs.score)")
            if let world = ours.world {
                var worst = world.landmark.count == 21 ? 0.0 : Double.infinity
                for (i, p) in world.landmark.enumerated() where 3 * i + 2 < theirs.world_landmarks.count {
                    let ref = theirs.world_landmarks[(3 * i)..<(3 * i + 3)].map(Double.init)
                    worst = max(worst, abs(p.x - ref[0]), abs(p.y - ref[1]), abs(p.z - ref[2]))
                }
                #expect(world.landmark.count == 21 && worst <= 0.005, "\(name): world landmarks off by \(worst) m")
            } else {
                Issue.record("\(name): no world landmarks")
            }
        }
    }

    /// Tracking mode on a real clip, every frame: the same frames with a hand, and per-frame
    /// landmarks within 1 % of the width (mean) on at least 95 % of frames.
    @Test(.enabled(if: MediaPipeSolutionFixtures.optimized, "a clip runs in the optimized pass of make test"), arguments: [0, 1])
    func clipTracksLikeMediaPipe(complexity: Int) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(F.hands.first { $0.source == "hand_clip" && $0.model_complexity == complexity })
        let images = try F.frames(run.path, count: run.frames.count)
        try #require(images.count == run.frames.count)
        let got = try hands(run, images)
        var close = 0, sameCount = 0, worst = 0.0
        for (k, frame) in run.frames.enumerated() {
            let want = frame.hands ?? []
            #expect(got[k].isEmpty == want.isEmpty, "frame \(k): \(got[k].count) hands, MediaPipe \(want.count)")
            if got[k].count == want.count { sameCount += 1 }
            let matches = F.match(got[k].map(\.landmarks), want.map(\.landmarks), width: run.width, height: run.height)
            let mean = matches.map(\.mean).max() ?? 0
            worst = max(worst, mean)
            if got[k].count == want.count && mean <= 0.01 { close += 1 }
            if ProcessInfo.processInfo.environment["FRAMEFLOW_TEST_VERBOSE"] != nil {
                print(
                    "frame \(k): ours \(got[k].count) \(got[k].map { $0.handedness?.classification.first?.label ?? "?" }) theirs \(want.count) \(want.map(\.label)) mean \(matches.map(\.mean))"
                )
            }
        }
        let n = run.frames.count
        #expect(Double(close) >= 0.95 * Double(n), "complexity \(complexity): \(close) of \(n) frames within 1 %; worst frame mean \(worst)")
        print(
            "Hands clip complexity \(complexity): \(close)/\(n) frames within 1 % of the width, \(sameCount)/\(n) with the same count, worst frame mean \(worst)"
        )
    }
}
