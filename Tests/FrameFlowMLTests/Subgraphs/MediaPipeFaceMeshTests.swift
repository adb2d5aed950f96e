import Foundation
import FrameFlow
import FrameFlowML
import Testing

/// MediaPipe's Face Mesh run from MediaPipe's own compiled graph (`face_landmark_front_cpu.binarypb`
/// from the mediapipe==0.10.21 wheel) with MediaPipe's models, against MediaPipe's Python
/// `solutions.face_mesh` on the same pixels (Tests/Fixtures/mediapipe/face_mesh.json).
@Suite(.serialized) struct MediaPipeFaceMeshTests {
    typealias F = MediaPipeSolutionFixtures
    static let binary = F.module("face_landmark/face_landmark_front_cpu.binarypb")

    static var photoCases: [String] {
        F.faceMesh.filter(\.static_image_mode).map { "\($0.source) refine=\($0.refine_landmarks ?? false)" }
    }

    func faces(_ run: F.Run, _ images: [ImageFrame]) throws -> [[NormalizedLandmarkList]] {
        let sides: [String: any Sendable] = [
            "num_faces": run.max_num_faces ?? 1, "with_attention": run.refine_landmarks ?? false,
            "use_prev_landmarks": !run.static_image_mode,
        ]
        return try F.run(Self.binary, images: images, sidePackets: sides, streams: ["multi_face_landmarks"]).map {
            try $0["multi_face_landmarks"]?.get([NormalizedLandmarkList].self) ?? []
        }
    }

    /// Static-image mode: the same faces, mean landmark distance ≤ 0.5 % of the width, none over 2 %.
    @Test(arguments: photoCases)
    func photosMatchMediaPipesPythonSolution(name: String) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(F.faceMesh.first { "\($0.source) refine=\($0.refine_landmarks ?? false)" == name })
        let images = try F.frames(run.path, count: 1)
        #expect(images.first?.width == run.width && images.first?.height == run.height)
        let got = try faces(run, images)[0]
        let want = run.frames[0].faces ?? []
        #expect(got.count == want.count, "\(name): \(got.count) faces, MediaPipe finds \(want.count)")
        for m in F.match(got, want, width: run.width, height: run.height) {
            #expect(got[m.ours].landmark.count == (run.refine_landmarks == true ? 478 : 468))
            #expect(m.mean <= 0.005 && m.max <= 0.02, "\(name): face \(m.theirs): mean \(m.mean), max \(m.max) of the width")
        }
    }

    /// Tracking mode on a real clip, every frame: the same frames with a face, and per-frame
    /// landmarks within 1 % of the width (mean) on at least 95 % of frames.
    @Test(.enabled(if: MediaPipeSolutionFixtures.optimized, "a clip runs in the optimized pass of make test"), arguments: [false, true])
    func clipTracksLikeMediaPipe(refine: Bool) throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary), "run scripts/setup.sh test")
        let run = try #require(F.faceMesh.first { !$0.static_image_mode && $0.refine_landmarks == refine })
        let images = try F.frames(run.path, count: run.frames.count)
        try #require(images.count == run.frames.count)
        let got = try faces(run, images)
        var close = 0, sameCount = 0, worst = 0.0
        for (k, frame) in run.frames.enumerated() {
            let want = frame.faces ?? []
            #expect(got[k].isEmpty == want.isEmpty, "frame \(k): \(got[k].count) faces, MediaPipe \(want.count)")
            if got[k].count == want.count { sameCount += 1 }
            let matches = F.match(got[k], want, width: run.width, height: run.height)
            let mean = matches.map(\.mean).max() ?? 0
            worst = max(worst, mean)
            if got[k].count == want.count && mean <= 0.01 { close += 1 }
        }
        let n = run.frames.count
        #expect(Double(close) >= 0.95 * Double(n), "refine=\(refine): \(close) of \(n) frames within 1 %; worst frame mean \(worst)")
        print(
            "Face Mesh clip refine=\(refine): \(close)/\(n) frames within 1 % of the width, \(sameCount)/\(n) with the same count, worst frame mean \(worst)"
        )
    }
}
