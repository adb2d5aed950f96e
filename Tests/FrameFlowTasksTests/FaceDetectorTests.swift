import Foundation
import FrameFlow
import FrameFlowMedia
import FrameFlowTasks
import FrameFlowTestSupport
import Testing

/// `FaceDetector`, the Swift API in MediaPipeTasksVision's shape, against MediaPipe Tasks'
/// FaceDetector (Tests/Fixtures/mediapipe/tasks/face_detector.json) in image and video mode;
/// live stream with frames sent faster than it runs; its errors.
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

    static let model = RepositoryFiles.built("tasks/face_detector.tflite")
    static let bundle = RepositoryFiles.built("tasks/face_landmarker.task")

    static func runs() throws -> [Run] {
        let data = try #require(FileManager.default.contents(atPath: RepositoryFiles.fixture("mediapipe/tasks/face_detector.json")))
        return try JSONDecoder().decode(File.self, from: data).runs
    }

    static func frames(_ path: String, count: Int = .max) throws -> [ImageFrame] {
        let source = try MediaSource(RepositoryFiles.path(path), options: .init(pixelFormat: .rgb8))
        var out: [ImageFrame] = []
        while out.count < count, let f = try source.read() { out.append(f.image) }
        return out
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
        try #require(FileManager.default.fileExists(atPath: Self.model), "run scripts/setup.sh test")
        let detector = try FaceDetector(modelPath: Self.model)
        for run in try Self.runs() where run.mode == "image" {
            let image = try #require(try Self.frames(run.path, count: 1).first)
            let want = run.frames[0].faces.map(\.box).sorted { $0.lexicographicallyPrecedes($1) }
            let got = Self.boxes(try detector.detect(image: image))
            #expect(Self.close(got, want), "\(run.source): \(got) vs MediaPipe's \(want)")
        }
    }

    @Test func theBundleAndBytesWorkLikeTheModelFile() throws {
        try #require(FileManager.default.fileExists(atPath: Self.bundle), "run scripts/setup.sh test")
        let image = try #require(try Self.frames("Tests/Fixtures/mediapipe/photos/two_faces.png", count: 1).first)
        let fromFile = Self.boxes(try FaceDetector(modelPath: Self.model).detect(image: image))
        let fromBundle = Self.boxes(try FaceDetector(modelPath: Self.bundle).detect(image: image))
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetBuffer = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.model)))
        let fromBytes = Self.boxes(try FaceDetector(options: options).detect(image: image))
        #expect(fromFile.count == 2 && fromBundle == fromFile && fromBytes == fromFile, "\(fromFile) \(fromBundle) \(fromBytes)")
    }

    @Test func videoFramesGiveMediaPipesFaces() throws {
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = Self.model
        options.runningMode = .video
        for run in try Self.runs() where run.mode == "video" {
            let detector = try FaceDetector(options: options)
            let frames = try Self.frames(run.path, count: run.frames.count)
            var same = 0
            for (f, want) in zip(frames, run.frames) {
                let got = Self.boxes(try detector.detect(videoFrame: f, timestampInMilliseconds: want.timestamp_ms ?? 0))
                if Self.close(got, want.faces.map(\.box).sorted { $0.lexicographicallyPrecedes($1) }) { same += 1 }
            }
            #expect(Double(same) >= 0.97 * Double(run.frames.count), "\(run.source): \(same) of \(run.frames.count) frames")
        }
    }

    /// Frames sent much faster than the detector runs: results arrive in timestamp order, the
    /// busy frames are dropped and counted, nothing queues, memory stays flat.
    @Test func liveStreamDropsWhatItCannotTakeAndKeepsOrder() throws {
        let image = try #require(try Self.frames("Tests/Fixtures/mediapipe/photos/two_faces.png", count: 1).first)
        let received = Locked<[Int]>([])
        let faces = Locked<[Int]>([])
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = Self.model
        options.runningMode = .liveStream
        options.resultListener = { result in
            if case .success(let r) = result {
                received.withLock { $0.append(r.timestampInMilliseconds) }
                faces.withLock { $0.append(r.detections.count) }
            }
        }
        let detector = try FaceDetector(options: options)
        var accepted = 0
        var memory: [Int] = []
        for k in 0..<1500 {  // a frame every millisecond; the detector takes several
            if try detector.detectAsync(image: image, timestampInMilliseconds: k) { accepted += 1 }
            if k % 250 == 249 { memory.append(residentBytes()) }
            usleep(1000)
        }
        detector.close()
        let got = received.withLock { $0 }
        #expect(got.count == accepted && accepted + detector.droppedFrames == 1500, "\(got.count) results, \(accepted) accepted")
        #expect(detector.droppedFrames > 0 && accepted > 1, "\(accepted) accepted, \(detector.droppedFrames) dropped")
        #expect(got == got.sorted() && Set(got).count == got.count)
        #expect(faces.withLock { $0.allSatisfy { $0 == 2 } })
        #expect(memory.last! - memory[1] < 20 << 20, "resident memory \(memory.map { $0 >> 20 }) MiB")
    }

    /// `BaseOptions.numThreads` sets the task graph's threads: the same faces at 1 and 2
    /// threads as with one per core; counts outside 1…1024 are refused naming the option.
    @Test func threadCountsGiveTheSameFaces() throws {
        try #require(FileManager.default.fileExists(atPath: Self.model), "run scripts/setup.sh test")
        let image = try #require(try Self.frames("Tests/Fixtures/mediapipe/photos/two_faces.png", count: 1).first)
        let perCore = Self.boxes(try FaceDetector(modelPath: Self.model).detect(image: image))
        for threads in [1, 2] {
            var o = FaceDetectorOptions()
            o.baseOptions.modelAssetPath = Self.model
            o.baseOptions.numThreads = threads
            let got = Self.boxes(try FaceDetector(options: o).detect(image: image))
            #expect(perCore.count == 2 && got == perCore, "\(threads) threads: \(got) vs \(perCore)")
        }
        for bad in [0, -1, 1025, Int.max, Int.min] {
            var o = FaceDetectorOptions()
            o.baseOptions.modelAssetPath = Self.model
            o.baseOptions.numThreads = bad
            #expect(throws: TaskError.invalidOption(name: "baseOptions.numThreads", reason: "\(bad) is not in 1…1024")) {
                try FaceDetector(options: o)
            }
        }
    }

    @Test func badOptionsAndCallsAreTypedErrors() throws {
        for bad: Float in [.nan, .infinity, -1, 1.5, 1e30] {
            var o = FaceDetectorOptions()
            o.baseOptions.modelAssetPath = Self.model
            o.minDetectionConfidence = bad
            #expect(throws: TaskError.invalidOption(name: "minDetectionConfidence", reason: "\(bad) is not in 0.0…1.0")) {
                try FaceDetector(options: o)
            }
        }
        #expect(throws: TaskError.self) { try FaceDetector(options: FaceDetectorOptions()) }  // no model
        let missing = #expect(throws: TaskError.self) { try FaceDetector(modelPath: "/nonexistent/face.tflite") }
        #expect("\(missing!)".contains("/nonexistent/face.tflite"), "\(missing!)")
        let wrongEntry = #expect(throws: TaskError.self) { try FaceDetector(modelPath: RepositoryFiles.built("tasks/hand_landmarker.task")) }
        #expect("\(wrongEntry!)".contains("face_detector.tflite"), "\(wrongEntry!)")
        var live = FaceDetectorOptions()
        live.baseOptions.modelAssetPath = Self.model
        live.runningMode = .liveStream
        #expect(throws: TaskError.invalidOption(name: "resultListener", reason: "a live-stream task needs a result listener")) {
            try FaceDetector(options: live)
        }
        let image = try ImageFrame(width: 64, height: 48) { _, _, c in c == 3 ? 255 : 0 }
        let detector = try FaceDetector(modelPath: Self.model)
        #expect(throws: TaskError.wrongRunningMode(call: "detect(videoFrame:timestampInMilliseconds:)", mode: .image)) {
            try detector.detect(videoFrame: image, timestampInMilliseconds: 1)
        }
        var video = FaceDetectorOptions()
        video.baseOptions.modelAssetPath = Self.model
        video.runningMode = .video
        let v = try FaceDetector(options: video)
        _ = try v.detect(videoFrame: image, timestampInMilliseconds: 10)
        #expect(throws: TaskError.timestampOrder(got: 10, after: 10)) { try v.detect(videoFrame: image, timestampInMilliseconds: 10) }
        #expect(try v.detect(videoFrame: image, timestampInMilliseconds: 11).detections.isEmpty)
    }
}
