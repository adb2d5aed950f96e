import Foundation
import FrameFlow
import FrameFlowTasks
import FrameFlowTestSupport
import Testing

/// `FaceDetector`, the Swift API in MediaPipeTasksVision's shape, against MediaPipe Tasks'
/// FaceDetector (Tests/Fixtures/mediapipe/tasks/face_detector.json) in image and video mode,
/// and its errors (live stream: `LiveStreamTests`).
@Suite struct FaceDetectorTests {
    struct Face: Decodable {
        var box: [Int]
    }
    struct Frame: Decodable {
        var timestamp_ms: Int?
        var faces: [Face]
    }
    struct Run: Decodable {
        var source: String
        var path: String
        var mode: String
        var frames: [Frame]
    }
    struct File: Decodable { var runs: [Run] }

    static func runs() throws -> [Run] {
        let data = try #require(FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/tasks/face_detector.json")))
        return try JSONDecoder().decode(File.self, from: data).runs
    }

    static func boxes(_ r: FaceDetectorResult) -> [[Int]] {
        r.detections.map { [$0.boundingBox.originX, $0.boundingBox.originY, $0.boundingBox.width, $0.boundingBox.height] }.sorted {
            $0.lexicographicallyPrecedes($1)
        }
    }

    /// Boxes within 2 pixels of MediaPipe's on each side (MediaPipe truncates to whole pixels).
    static func close(_ a: [[Int]], _ b: [[Int]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in zip(x, y).allSatisfy { abs($0 - $1) <= 2 } }
    }

    @Test func imagesGiveMediaPipesFaces() throws {
        let detector = try FaceDetector(modelPath: try TaskFixtures.model("face_detector.tflite"))
        for run in try Self.runs() where run.mode == "image" {
            let image = try #require(try RepositoryFiles.frames(run.path, count: 1).first)
            let want = run.frames[0].faces.map(\.box).sorted { $0.lexicographicallyPrecedes($1) }
            let got = Self.boxes(try detector.detect(image: image))
            #expect(Self.close(got, want), "\(run.source): \(got) vs MediaPipe's \(want)")
        }
    }

    @Test func theBundleAndBytesWorkLikeTheModelFile() throws {
        let (model, bundle) = (try TaskFixtures.model("face_detector.tflite"), try TaskFixtures.model("face_landmarker.task"))
        let image = try #require(try RepositoryFiles.frames("Tests/Fixtures/mediapipe/photos/two_faces.png", count: 1).first)
        let fromFile = Self.boxes(try FaceDetector(modelPath: model).detect(image: image))
        let fromBundle = Self.boxes(try FaceDetector(modelPath: bundle).detect(image: image))
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetBuffer = [UInt8](try Data(contentsOf: URL(fileURLWithPath: model)))
        let fromBytes = Self.boxes(try FaceDetector(options: options).detect(image: image))
        #expect(fromFile.count == 2 && fromBundle == fromFile && fromBytes == fromFile, "\(fromFile) \(fromBundle) \(fromBytes)")
    }

    @Test func videoFramesGiveMediaPipesFaces() throws {
        let model = try TaskFixtures.model("face_detector.tflite")
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = model
        options.runningMode = .video
        for run in try Self.runs() where run.mode == "video" {
            let detector = try FaceDetector(options: options)
            let frames = try RepositoryFiles.frames(run.path, count: run.frames.count)
            var same = 0
            for (f, want) in zip(frames, run.frames) {
                let got = Self.boxes(try detector.detect(videoFrame: f, timestampInMilliseconds: want.timestamp_ms ?? 0))
                if Self.close(got, want.faces.map(\.box).sorted { $0.lexicographicallyPrecedes($1) }) { same += 1 }
            }
            #expect(Double(same) >= 0.97 * Double(run.frames.count), "\(run.source): \(same) of \(run.frames.count) frames")
        }
    }

    /// `BaseOptions.numThreads` sets the task graph's threads: the same faces at 1 and 2
    /// threads as with one per core; counts outside 1…1024 are refused naming the option.
    @Test func threadCountsGiveTheSameFaces() throws {
        let model = try TaskFixtures.model("face_detector.tflite")
        let image = try #require(try RepositoryFiles.frames("Tests/Fixtures/mediapipe/photos/two_faces.png", count: 1).first)
        let perCore = Self.boxes(try FaceDetector(modelPath: model).detect(image: image))
        for threads in [1, 2] {
            var o = FaceDetectorOptions()
            o.baseOptions.modelAssetPath = model
            o.baseOptions.numThreads = threads
            let got = Self.boxes(try FaceDetector(options: o).detect(image: image))
            #expect(perCore.count == 2 && got == perCore, "\(threads) threads: \(got) vs \(perCore)")
        }
        for bad in [0, -1, 1025, Int.max, Int.min] {
            var o = FaceDetectorOptions()
            o.baseOptions.modelAssetPath = model
            o.baseOptions.numThreads = bad
            #expect(throws: TaskError.invalidOption(name: "baseOptions.numThreads", reason: "\(bad) is not in 1…1024")) {
                try FaceDetector(options: o)
            }
        }
    }

    @Test func badOptionsAndCallsAreTypedErrors() throws {
        let model = try TaskFixtures.model("face_detector.tflite")
        for bad: Float in [.nan, .infinity, -1, 1.5, 1e30] {
            var o = FaceDetectorOptions()
            o.baseOptions.modelAssetPath = model
            o.minDetectionConfidence = bad
            #expect(throws: TaskError.invalidOption(name: "minDetectionConfidence", reason: "\(bad) is not in 0.0…1.0")) {
                try FaceDetector(options: o)
            }
        }
        #expect(throws: TaskError.self) { try FaceDetector(options: FaceDetectorOptions()) }  // no model
        let missing = #expect(throws: TaskError.self) { try FaceDetector(modelPath: "/nonexistent/face.tflite") }
        #expect("\(missing!)".contains("/nonexistent/face.tflite"), "\(missing!)")
        let wrongEntry = #expect(throws: TaskError.self) { try FaceDetector(modelPath: try TaskFixtures.model("hand_landmarker.task")) }
        #expect("\(wrongEntry!)".contains("face_detector.tflite"), "\(wrongEntry!)")
        var live = FaceDetectorOptions()
        live.baseOptions.modelAssetPath = model
        live.runningMode = .liveStream
        #expect(throws: TaskError.invalidOption(name: "resultListener", reason: "a live-stream task needs a result listener")) {
            try FaceDetector(options: live)
        }
        let image = try ImageFrame(width: 64, height: 48) { _, _, c in c == 3 ? 255 : 0 }
        let detector = try FaceDetector(modelPath: model)
        #expect(throws: TaskError.wrongRunningMode(call: "detect(videoFrame:timestampInMilliseconds:)", mode: .image)) {
            try detector.detect(videoFrame: image, timestampInMilliseconds: 1)
        }
        var video = FaceDetectorOptions()
        video.baseOptions.modelAssetPath = model
        video.runningMode = .video
        let v = try FaceDetector(options: video)
        _ = try v.detect(videoFrame: image, timestampInMilliseconds: 10)
        #expect(throws: TaskError.timestampOrder(got: 10, after: 10)) { try v.detect(videoFrame: image, timestampInMilliseconds: 10) }
        #expect(try v.detect(videoFrame: image, timestampInMilliseconds: 11).detections.isEmpty)
    }
}
