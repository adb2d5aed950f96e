import Foundation
import FrameFlow
import Testing

/// The Pose and Selfie Segmentation fixtures read back as the script wrote them: the shapes its
/// docstring gives, and every stored mask read through FFmpeg with the mean MediaPipe's float
/// mask had (within the PNG's rounding).
@Suite struct MediaPipePoseSelfieFixturesTests {
    typealias P = PoseSelfieFixtures

    @Test func poseRunsHaveTheDocumentedShape() throws {
        try #require(!P.pose.isEmpty, "Tests/Fixtures/mediapipe/pose.json is missing or unreadable")
        for run in P.pose {
            #expect(run.model_complexity == 1 && run.enable_segmentation == true, "\(run.source)")
            #expect(run.smooth_landmarks == !run.static_image_mode && run.use_prev_landmarks == !run.static_image_mode, "\(run.source)")
            #expect(run.frames.map(\.index) == Array(run.frames.indices), "\(run.source): frame indices")
            for f in run.frames {
                if let pose = f.pose {
                    #expect(pose.landmarks.count == 33 * 5 && pose.world_landmarks.count == 33 * 4, "\(run.source) \(f.index)")
                    let list = P.landmarks(pose)
                    #expect(list.landmark.count == 33 && Float(list.landmark[32].x) == pose.landmarks[160], "\(run.source) \(f.index)")
                    #expect(P.worldLandmarks(pose).landmark.count == 33 && P.xyz(pose).count == 99)
                }
                // MediaPipe's Pose gives a mask exactly on the frames with a pose.
                #expect((f.pose == nil) == (f.mask_mean == nil), "\(run.source) \(f.index)")
                #expect(f.mask == nil || f.mask_mean != nil, "\(run.source) \(f.index)")
            }
        }
        #expect(P.pose.filter(\.static_image_mode).filter { $0.frames[0].pose == nil }.map(\.source) == ["none"])
    }

    /// FrameFlow's MediaSource (rgb8) decodes every photo and clip to the very bytes the script
    /// fed MediaPipe (decoded there by the ffmpeg tool, and checked against OpenCV's decoder).
    @Test(arguments: P.pose.map(\.source))
    func frameFlowDecodesWhatMediaPipeWasFed(source: String) throws {
        let run = try #require(P.pose.first { $0.source == source })
        let want = try #require(run.rgb_sums, "\(source): no rgb_sums in pose.json")
        let images = try MediaPipeSolutionFixtures.frames(run.path, count: run.frames.count)
        #expect(images.count == run.frames.count && images.allSatisfy { $0.width == run.width && $0.height == run.height && $0.format == .rgb8 })
        #expect(P.rgbSums(images) == want, "\(source): FrameFlow decodes other bytes than MediaPipe was given")
        for selfie in P.selfieSegmentation where selfie.source == source { #expect(selfie.rgb_sums == want, "\(source): selfie run") }
    }

    static var storedMasks: [String] {
        (P.pose + P.selfieSegmentation).flatMap { run in run.frames.compactMap(\.mask) }
    }

    /// Each stored mask is the image's size and, read as value / 255, has MediaPipe's mean to
    /// within half a grey level.
    @Test func storedMasksHoldMediaPipesValues() throws {
        let runs = P.pose + P.selfieSegmentation
        try #require(runs.count > 2, "Tests/Fixtures/mediapipe/{pose,selfie_segmentation}.json are missing")
        var checked = 0
        for run in runs {
            for f in run.frames {
                guard let path = f.mask else { continue }
                let m = try P.mask(path)
                #expect(m.width == run.width && m.height == run.height, "\(path): \(m.width)x\(m.height)")
                let mean = m.values.reduce(0.0) { $0 + Double($1) } / Double(m.values.count)
                let want = Double(try #require(f.mask_mean, "\(path): no mask_mean"))
                #expect(abs(mean - want) <= 0.5 / 255 + 1e-6, "\(path): mean \(mean), MediaPipe's \(want)")
                checked += 1
            }
        }
        #expect(checked == Self.storedMasks.count && checked > 100)
    }

    /// IoU and mean absolute difference by their definitions, on masks small enough to count.
    @Test func maskComparisonFollowsItsDefinition() {
        let a: [Float] = [0.9, 0.6, 0.2, 0.51, 0.0, 1.0]
        let b: [Float] = [0.7, 0.4, 0.3, 0.8, 0.0, 0.49]
        // Above 0.5: a at 0, 1, 3, 5; b at 0, 3. Both: 0, 3 → 2 of 4.
        let r = P.compare(a, b)
        #expect(r.iou == 2.0 / 4.0)
        let mad = zip(a, b).map { Double(abs($0 - $1)) }.reduce(0, +) / 6
        #expect(abs(r.mad - mad) < 1e-9)
        #expect(P.compare([0.1, 0.2], [0.3, 0.0]).iou == 1)
        #expect(P.compare([0.1], [0.1, 0.2]).mad == .infinity)
    }
}
