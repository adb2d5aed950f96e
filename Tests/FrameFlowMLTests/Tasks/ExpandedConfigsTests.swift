import Foundation
import FrameFlow
import FrameFlowML
import FrameFlowTestSupport
import FrameFlowTesting
import Testing

/// MediaPipe's expanded Tasks configs (Tests/Fixtures/mediapipe/tasks/graphs/<task>[_video[_single]]
/// _expanded.pbtxt, the `ValidatedGraphConfig` MediaPipe's Python package expands each task
/// graph into), run as written with the task's bundle as `ModelAssets(taskAsset:)`: every output
/// stream equals FrameFlow's own run of the top-level config exactly (same models, same
/// calculators), and the results are within the tasks tests' tolerances of MediaPipe's (image
/// mode: landmarks 0.5 % of the width on average, 2 % at worst, scores within 0.01; video: 1 % on
/// average). A couple of photos per task and the first frames of each clip, to stay quick in a
/// debug build; the task suites check every photo and whole clips.
@Suite struct ExpandedConfigsTests {
    /// One expanded config: its name, its model, the streams compared, the fixture task whose
    /// runs give the frames, and the photos (image mode) or the clip run (video mode).
    struct Case: CustomStringConvertible, Sendable {
        var config: String
        var asset: String
        var streams: [String]
        var task: String
        var photos: [String]
        /// For video configs: which of the task's video runs (its index among them).
        var videoRun: Int?
        var description: String { config }
    }

    static let videoFrames = 6

    static let cases: [Case] = [
        Case(
            config: "face_detector", asset: ".build/fixtures/tasks/face_detector.tflite", streams: ["detections"], task: "face_detector",
            photos: ["two_faces", "none"]),
        Case(
            config: "face_landmarker", asset: ".build/fixtures/tasks/face_landmarker.task",
            streams: ["norm_landmarks", "blendshapes", "face_geometry"], task: "face_landmarker", photos: ["two_faces", "face_and_hand"]),
        Case(
            config: "face_landmarker_video", asset: ".build/fixtures/tasks/face_landmarker.task",
            streams: ["norm_landmarks", "blendshapes", "face_geometry"], task: "face_landmarker", photos: [], videoRun: 0),
        Case(
            config: "face_landmarker_video_single", asset: ".build/fixtures/tasks/face_landmarker.task",
            streams: ["norm_landmarks", "blendshapes", "face_geometry"], task: "face_landmarker", photos: [], videoRun: 1),
        Case(
            config: "hand_landmarker", asset: ".build/fixtures/tasks/hand_landmarker.task",
            streams: ["landmarks", "world_landmarks", "handedness"], task: "hand_landmarker", photos: ["two_hands", "one_hand"]),
        Case(
            config: "hand_landmarker_video", asset: ".build/fixtures/tasks/hand_landmarker.task",
            streams: ["landmarks", "world_landmarks", "handedness"], task: "hand_landmarker", photos: [], videoRun: 0),
        Case(
            config: "gesture_recognizer", asset: ".build/fixtures/tasks/gesture_recognizer.task",
            streams: ["landmarks", "world_landmarks", "handedness", "hand_gestures"], task: "gesture_recognizer",
            photos: ["two_hands", "one_hand"]),
        Case(
            config: "gesture_recognizer_video", asset: ".build/fixtures/tasks/gesture_recognizer.task",
            streams: ["landmarks", "world_landmarks", "handedness", "hand_gestures"], task: "gesture_recognizer", photos: [], videoRun: 0),
        Case(
            config: "pose_landmarker", asset: ".build/fixtures/tasks/pose_landmarker_full.task",
            streams: ["norm_landmarks", "world_landmarks", "segmentation_mask"], task: "pose_landmarker", photos: ["two_people_half"]),
        Case(
            config: "image_segmenter", asset: ".build/fixtures/tasks/selfie_segmenter.tflite",
            streams: ["confidence_masks", "category_mask"], task: "image_segmenter", photos: ["two_people_half"]),
    ]

    /// The fields of a fixture frame the checks here read (each task's JSON has some of them).
    struct Frame: Decodable {
        var index: Int
        var timestamp_ms: Int64?
        var hands: [HandLandmarkerGraphTests.Hand]?
        var faces: [FaceLandmarkerGraphTests.Face]?
        var confidence_masks: [ImageSegmenterGraphTests.Mask]?

        enum CodingKeys: String, CodingKey { case index, timestamp_ms, hands, faces, confidence_masks }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            index = try c.decode(Int.self, forKey: .index)
            timestamp_ms = try c.decodeIfPresent(Int64.self, forKey: .timestamp_ms)
            hands = try c.decodeIfPresent([HandLandmarkerGraphTests.Hand].self, forKey: .hands)
            // FaceDetector's faces are boxes, not landmarks: checked by the exact comparison only.
            faces = try? c.decodeIfPresent([FaceLandmarkerGraphTests.Face].self, forKey: .faces)
            confidence_masks = try c.decodeIfPresent([ImageSegmenterGraphTests.Mask].self, forKey: .confidence_masks)
        }
    }

    /// A packet's payload as text that is equal only for equal values: an image's size,
    /// format and every byte; anything else dumped field by field (floats print exactly).
    static func fingerprint(_ packet: Packet?) -> String {
        func image(_ f: ImageFrame) -> String {
            "\(f.width)x\(f.height) \(f.format) \(f.packedBytes())"
        }
        switch packet?.payload {
        case nil: return "none"
        case let f as ImageFrame: return image(f)
        case let v as [ImageFrame]: return v.map(image).joined(separator: " | ")
        case let other?:
            var text = ""
            dump(other, to: &text)
            return text
        }
    }

    /// The case's frames (photos, or the first frames of its clip) and their fixture results.
    static func frames(_ c: Case) throws -> (images: [ImageFrame], times: [Int64], runs: [TasksFixtures.Run<Frame>]) {
        let all = try TasksFixtures.runs(c.task, as: Frame.self)
        if let v = c.videoRun {
            let run = try #require(all.filter { $0.mode == "video" }.dropFirst(v).first, "\(c.task): no video run \(v)")
            let images = try RepositoryFiles.frames(run.path, count: Self.videoFrames)
            try #require(images.count == Self.videoFrames)
            return (images, run.frames.prefix(Self.videoFrames).map { $0.timestamp_ms ?? Int64($0.index) }, [run])
        }
        let runs = try c.photos.map { name in try #require(all.first { $0.mode == "image" && $0.source == name }, "\(c.task): no \(name)") }
        let images = try runs.map { try #require(try RepositoryFiles.frames($0.path, count: 1).first) }
        return (images, images.indices.map(Int64.init), runs)
    }

    @Test(arguments: cases)
    func expandedConfigEqualsTopLevelAndMediaPipe(_ c: Case) throws {
        try TasksFixtures.requireModels()
        let (images, times, runs) = try Self.frames(c)
        // Image mode runs each photo on its own graph, as the task suites do.
        func run(_ asset: String?) throws -> [[String: Packet]] {
            if c.videoRun != nil {
                return try TasksFixtures.run(c.config, images: images, timestampsMs: times, streams: c.streams, taskAsset: asset)
            }
            return try images.flatMap { try TasksFixtures.run(c.config, images: [$0], streams: c.streams, taskAsset: asset) }
        }
        let expanded = try run(c.asset)
        let topLevel = try run(nil)
        try #require(expanded.count == images.count && topLevel.count == images.count)
        for k in images.indices {
            for s in c.streams {
                #expect(
                    Self.fingerprint(expanded[k][s]) == Self.fingerprint(topLevel[k][s]),
                    "\(c.config) frame \(k), \(s): the expanded config's packet differs from the top-level config's")
            }
        }
        // The streams FrameFlow's task graphs make carry something on these frames.
        #expect(expanded.contains { $0[c.streams[0]] != nil }, "\(c.config): no \(c.streams[0]) at all")
        try checkAgainstMediaPipe(c, expanded, runs)
    }

    /// The expanded run's results against MediaPipe's fixture results.
    func checkAgainstMediaPipe(_ c: Case, _ out: [[String: Packet]], _ runs: [TasksFixtures.Run<Frame>]) throws {
        let video = c.videoRun != nil
        let mean = video ? 0.01 : 0.005
        for k in out.indices {
            let run = video ? runs[0] : runs[k]
            let want = video ? run.frames[k] : run.frames[0]
            let label = "\(c.config) \(run.source) frame \(k)"
            if let hands = want.hands {
                let e = HandLandmarkerGraphTests.compare(
                    try HandLandmarkerGraphTests.hands(out[k]), hands, width: run.width, height: run.height)
                #expect(e.sameCount && e.sameCategories, "\(label): other hands or categories")
                #expect(e.meanLandmark <= mean && (video || e.maxLandmark <= 0.02), "\(label): landmarks \(e.meanLandmark), \(e.maxLandmark)")
                #expect(video || (e.handednessScore <= 0.01 && e.gestureScore <= 0.01), "\(label): scores \(e)")
            }
            if let faces = want.faces {
                for d in try FaceLandmarkerGraphTests.pair(out[k], faces, width: run.width, height: run.height, where: label) {
                    #expect(d.mean <= mean && (video || d.worst <= 0.02), "\(label): landmarks \(d.mean), \(d.worst)")
                    #expect(video || d.blendshapes <= 0.01, "\(label): blendshapes \(d.blendshapes)")
                }
            }
            if let masks = want.confidence_masks {
                let got = try #require(try out[k]["confidence_masks"]?.get([ImageFrame].self), "\(label): no confidence masks")
                try #require(got.count == masks.count, "\(label): \(got.count) masks, MediaPipe \(masks.count)")
                for (m, w) in zip(got, masks) {
                    let ref = try ImageSegmenterGraphTests.bytes(ImageSegmenterGraphTests.png(try #require(w.mask)))
                    let (iou, mad) = ImageSegmenterGraphTests.compare(try ImageSegmenterGraphTests.bytes(m), ref) { $0 >= 128 }
                    #expect(iou >= 0.97 && mad <= 0.02, "\(label): mask IoU \(iou), mean difference \(mad)")
                }
            }
        }
    }
}
