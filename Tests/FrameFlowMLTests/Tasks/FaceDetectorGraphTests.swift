import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import Testing

/// `mediapipe.tasks.vision.face_detector.FaceDetectorGraph`, loaded through MediaPipe's own
/// top-level task config, against MediaPipe Tasks' FaceDetector on the same pixels: the same
/// faces, pixel boxes IoU ≥ 0.95, keypoints within 0.5 % of the width, scores within 0.01.
@Suite struct FaceDetectorGraphTests {
    struct Face: Decodable {
        struct Point: Decodable {
            var x: Double
            var y: Double
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                x = try c.decode(Double.self)
                y = try c.decode(Double.self)
            }
        }
        struct Category: Decodable {
            var score: Double
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                _ = try c.decode(Int.self)
                score = try c.decode(Double.self)
            }
        }
        var box: [Int]
        var categories: [Category]
        var keypoints: [Point]
    }
    struct Frame: Decodable {
        var index: Int
        var timestamp_ms: Int64?
        var rgb_sums: [String]
        var faces: [Face]
    }

    static func compare(_ got: [Detection], _ want: [Face], width: Int, height: Int, where label: String) {
        #expect(got.count == want.count, "\(label): \(got.count) faces, MediaPipe \(want.count)")
        for w in want {
            let wantBox = Rect(x: Double(w.box[0]), y: Double(w.box[1]), width: Double(w.box[2]), height: Double(w.box[3]))
            let pixel = got.compactMap { d -> (Detection, Rect)? in
                guard let b = d.locationData.boundingBox else { return nil }
                return (d, Rect(x: Double(b.xmin), y: Double(b.ymin), width: Double(b.width), height: Double(b.height)))
            }
            guard let (d, box) = pixel.max(by: { $0.1.iou(wantBox) < $1.1.iou(wantBox) }) else {
                Issue.record("\(label): no face near \(wantBox)")
                continue
            }
            #expect(box.iou(wantBox) >= 0.95, "\(label): IoU \(box.iou(wantBox)): \(box) vs MediaPipe's \(wantBox)")
            #expect(abs(d.score - (w.categories.first?.score ?? 0)) <= 0.01, "\(label): score \(d.score)")
            let kps = d.locationData.relativeKeypoints
            #expect(kps.count == w.keypoints.count, "\(label): \(kps.count) keypoints")
            for (k, p) in zip(kps, w.keypoints) {
                #expect(abs(k.x - p.x) <= 0.005 && abs(k.y - p.y) * Double(height) / Double(width) <= 0.005, "\(label): \(k) vs \(p)")
            }
        }
    }

    @Test func photosMatchMediaPipeTasks() throws {
        try TasksFixtures.requireModels()
        let runs = try TasksFixtures.runs("face_detector", as: Frame.self).filter { $0.mode == "image" }
        #expect(runs.count >= 14)
        for run in runs {
            let image = try #require(try RepositoryFiles.frames(run.path, count: 1).first)
            #expect(TasksFixtures.rgbSums(image) == run.frames[0].rgb_sums, "\(run.source): not the pixels MediaPipe was given")
            let out = try TasksFixtures.run("face_detector", images: [image], streams: ["detections"])
            let got = try out[0]["detections"]?.get([Detection].self) ?? []
            Self.compare(got, run.frames[0].faces, width: run.width, height: run.height, where: run.source)
        }
    }

    @Test func clipsMatchMediaPipeTasksFrameByFrame() throws {
        try TasksFixtures.requireModels()
        let runs = try TasksFixtures.runs("face_detector", as: Frame.self).filter { $0.mode == "video" }
        #expect(!runs.isEmpty)
        for run in runs {
            let frames = try RepositoryFiles.frames(run.path, count: run.frames.count)
            try #require(frames.count == run.frames.count, "\(run.source): \(frames.count) frames decoded")
            let out = try TasksFixtures.run(
                "face_detector_video", images: frames, timestampsMs: run.frames.map { $0.timestamp_ms ?? Int64($0.index) },
                streams: ["detections"])
            for (k, f) in run.frames.enumerated() {
                let got = try out[k]["detections"]?.get([Detection].self) ?? []
                Self.compare(got, f.faces, width: run.width, height: run.height, where: "\(run.source) frame \(k)")
            }
        }
    }
}
