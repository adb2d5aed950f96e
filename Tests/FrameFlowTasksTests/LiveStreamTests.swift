import Foundation
import FrameFlow
import FrameFlowTasks
import FrameFlowTestSupport
import Testing

/// Every task in live-stream mode, fed a few dozen frames of a clip faster than it runs:
/// results arrive in timestamp order, one per frame it took; the frames it was busy for are
/// dropped and counted; resident memory stays flat; and where the task keeps nothing from
/// frame to frame (FaceDetector, ImageSegmenter) each result is its frame's image-mode result.
@Suite(.serialized) struct LiveStreamTests {
    /// What results are compared by: how many things were found, and their numbers in a row.
    struct Summary: Equatable, Sendable {
        var found: Int
        var values: [Double]
    }

    /// A task's calls, whatever their names (`detect`, `recognize`, `segment`), its results as summaries.
    struct Calls {
        var image: (ImageFrame) throws -> Summary
        var send: (ImageFrame, Int) throws -> Bool
        var dropped: () -> Int
        var close: () -> Void
    }

    /// Where a live-stream task's results go: each one's timestamp and summary, or its error.
    typealias Listener = @Sendable (Result<(ms: Int, summary: Summary), TaskError>) -> Void

    struct Subject: Sendable, CustomTestStringConvertible {
        var name: String
        /// The clip the frames come from, relative to the repository.
        var clip: String
        /// Whether a result depends on its frame alone (no tracking from frame to frame).
        var stateless: Bool
        /// The task in a running mode (a live-stream one hands its results to the listener),
        /// its results as summaries.
        var make: @Sendable (RunningMode, Listener?) throws -> Calls
        var testDescription: String { name }

        /// The task `make` makes from `options` with the model `model` (in .build/fixtures/tasks),
        /// fed frames of `clip` through its image-mode and live-stream calls `image` and `send`.
        init<O: TaskOptions, T: LiveTask>(
            _ model: String, _ clip: String, stateless: Bool, _ options: O, _ summary: @escaping @Sendable (O.Output) -> Summary,
            _ make: @escaping @Sendable (O) throws -> T, _ image: @escaping @Sendable (T) -> (ImageFrame) throws -> O.Output,
            _ send: @escaping @Sendable (T) -> (ImageFrame, Int) throws -> Bool
        ) {
            (name, self.clip, self.stateless) = ("\(T.self)", clip, stateless)
            self.make = { mode, listener in
                var o = options
                (o.baseOptions.modelAssetPath, o.runningMode) = (try TaskFixtures.model(model), mode)
                if let listener {
                    o.resultListener = { result in listener(result.map { (ms: $0.timestampInMilliseconds, summary: summary($0)) }) }
                }
                let t = try make(o)
                return Calls(image: { summary(try image(t)($0)) }, send: send(t), dropped: { t.droppedFrames }, close: t.close)
            }
        }
    }

    static let faces = ".build/fixtures/carphone_pristine.mp4"
    static let hands = "Tests/Fixtures/mediapipe/hand_clip.mp4"
    static let people = "Tests/Fixtures/mediapipe/walk_clip.mp4"

    static let subjects: [Subject] = [
        Subject("face_detector.tflite", faces, stateless: true, FaceDetectorOptions(), summary, FaceDetector.init, { $0.detect }, { $0.detectAsync }),
        Subject(
            "face_landmarker.task", faces, stateless: false, faceLandmarkerOptions, summary, FaceLandmarker.init, { $0.detect }, { $0.detectAsync }),
        Subject(
            "hand_landmarker.task", hands, stateless: false, HandLandmarkerOptions(), summary, HandLandmarker.init, { $0.detect }, { $0.detectAsync }),
        Subject(
            "gesture_recognizer.task", hands, stateless: false, GestureRecognizerOptions(), summary, GestureRecognizer.init, { $0.recognize },
            { $0.recognizeAsync }),
        Subject(
            "pose_landmarker_full.task", people, stateless: false, poseLandmarkerOptions, summary, PoseLandmarker.init, { $0.detect },
            { $0.detectAsync }),
        Subject(
            "selfie_segmenter.tflite", people, stateless: true, imageSegmenterOptions, summary, ImageSegmenter.init, { $0.segment },
            { $0.segmentAsync }),
    ]

    /// The options of the tasks with outputs to ask for: all of them, and up to three people.
    static var faceLandmarkerOptions: FaceLandmarkerOptions {
        var o = FaceLandmarkerOptions()
        (o.outputFaceBlendshapes, o.outputFacialTransformationMatrixes) = (true, true)
        return o
    }
    static var poseLandmarkerOptions: PoseLandmarkerOptions {
        var o = PoseLandmarkerOptions()
        (o.numPoses, o.outputSegmentationMasks) = (3, true)
        return o
    }
    static var imageSegmenterOptions: ImageSegmenterOptions {
        var o = ImageSegmenterOptions()
        o.shouldOutputCategoryMask = true
        return o
    }

    /// Frames per task, and the growth of resident memory allowed between the second result
    /// and the end: loose, as the whole suite runs in this process meanwhile (35 MiB came
    /// once during PoseLandmarker's run). It catches growth per result, not 36 small frames
    /// kept (8 MiB); that no frame waits is what the counts show.
    static let frameCount = 36
    static let memoryBound = 64 << 20

    @Test(arguments: subjects)
    func framesSentFasterThanItRunsAreDroppedResultsInOrder(_ subject: Subject) throws {
        let frames = try RepositoryFiles.frames(subject.clip, count: Self.frameCount)
        try #require(frames.count == Self.frameCount, "\(subject.clip): \(frames.count) frames")
        // Image mode: each frame's result (a stateful task: only the first few, to time it).
        let still = try subject.make(.image, nil)
        var expected: [Summary] = []
        var fastest = Duration.seconds(3600)
        for frame in frames.prefix(subject.stateless ? frames.count : 3) {
            let took = try ContinuousClock().measure { expected.append(try still.image(frame)) }
            fastest = min(fastest, took)
        }
        still.close()
        // Live stream: four frames in the time the task takes for one, at a camera's timestamps.
        let received = Locked<[(ms: Int, summary: Summary)]>([])
        let failures = Locked<[TaskError]>([])
        let live = try subject.make(.liveStream) { result in
            switch result {
            case .success(let r): received.withLock { $0.append(r) }
            case .failure(let e): failures.withLock { $0.append(e) }
            }
        }
        let interval = Double(fastest.components.seconds) + Double(fastest.components.attoseconds) * 1e-18
        var accepted = 0
        var memory: [Int] = []
        for (k, frame) in frames.enumerated() {
            if try live.send(frame, 33 * k) { accepted += 1 }
            // The baseline once two results are out (each node has run, the tracking ones too).
            if memory.isEmpty, received.withLock({ $0.count }) >= 2 || k == frames.count / 2 { memory.append(residentBytes()) }
            Thread.sleep(forTimeInterval: interval / 4)
        }
        live.close()
        memory.append(residentBytes())
        let got = received.withLock { $0 }
        let stamps = got.map(\.ms)
        #expect(failures.withLock { $0.isEmpty }, "\(failures.withLock { $0 })")
        #expect(
            got.count == accepted && accepted + live.dropped() == frames.count,
            "\(got.count) results, \(accepted) frames taken, \(live.dropped()) dropped of \(frames.count)")
        #expect(live.dropped() > 0 && accepted > 1, "\(accepted) taken, \(live.dropped()) dropped (one frame in \(fastest))")
        #expect(stamps == stamps.sorted() && Set(stamps).count == stamps.count, "\(stamps)")
        #expect(memory[1] - memory[0] < Self.memoryBound, "resident memory \(memory.map { $0 >> 20 }) MiB")
        if subject.stateless {
            for r in got { #expect(r.summary == expected[r.ms / 33], "frame \(r.ms / 33): not its image-mode result") }
        } else {
            #expect(got.contains { $0.summary.found > 0 }, "\(subject.name) found nothing in \(subject.clip)")
        }
        print(
            "\(subject.name) live stream: \(accepted) of \(frames.count) frames taken, one in \(fastest) in image mode,",
            "resident memory \((memory[1] - memory[0]) >> 10) KiB more at the end than after the second result")
    }

    @Sendable static func summary(_ r: FaceDetectorResult) -> Summary {
        Summary(
            found: r.detections.count,
            values: r.detections.flatMap { d in
                [d.boundingBox.originX, d.boundingBox.originY, d.boundingBox.width, d.boundingBox.height].map(Double.init)
                    + d.categories.map { Double($0.score) } + (d.keypoints ?? []).flatMap { [Double($0.x), Double($0.y)] }
            })
    }

    @Sendable static func summary(_ r: FaceLandmarkerResult) -> Summary {
        Summary(found: r.faceLandmarks.count, values: points(r.faceLandmarks) + (r.faceBlendshapes ?? []).flatMap { $0.map { Double($0.score) } })
    }

    @Sendable static func summary(_ r: HandLandmarkerResult) -> Summary { Summary(found: r.landmarks.count, values: points(r.landmarks)) }

    @Sendable static func summary(_ r: GestureRecognizerResult) -> Summary {
        Summary(found: r.gestures.count, values: points(r.landmarks) + r.gestures.flatMap { $0.map { Double($0.score) } })
    }

    @Sendable static func summary(_ r: PoseLandmarkerResult) -> Summary { Summary(found: r.landmarks.count, values: points(r.landmarks)) }

    @Sendable static func summary(_ r: ImageSegmenterResult) -> Summary {
        let masks = (r.confidenceMasks ?? []) + (r.categoryMask.map { [$0] } ?? [])
        return Summary(
            found: masks.count,
            values: masks.flatMap { m in (try? m.grayFloatValues()).map { $0.map(Double.init) } ?? m.packedBytes().map(Double.init) })
    }

    static func points(_ sets: [[NormalizedLandmark]]) -> [Double] { sets.flatMap { $0.flatMap { [$0.x, $0.y, $0.z] } } }
}

/// What the tasks, their options and their results have alike, for `LiveStreamTests.Subject`.
protocol TaskOptions: Sendable {
    associatedtype Output: TaskResult
    var baseOptions: BaseOptions { get set }
    var runningMode: RunningMode { get set }
    var resultListener: (@Sendable (Result<Output, TaskError>) -> Void)? { get set }
}
protocol TaskResult: Sendable { var timestampInMilliseconds: Int { get } }
protocol LiveTask: Sendable {
    var droppedFrames: Int { get }
    func close()
}
extension FaceDetectorOptions: TaskOptions {}
extension FaceLandmarkerOptions: TaskOptions {}
extension HandLandmarkerOptions: TaskOptions {}
extension GestureRecognizerOptions: TaskOptions {}
extension PoseLandmarkerOptions: TaskOptions {}
extension ImageSegmenterOptions: TaskOptions {}
extension FaceDetector: LiveTask {}
extension FaceLandmarker: LiveTask {}
extension HandLandmarker: LiveTask {}
extension GestureRecognizer: LiveTask {}
extension PoseLandmarker: LiveTask {}
extension ImageSegmenter: LiveTask {}
extension FaceDetectorResult: TaskResult {}
extension FaceLandmarkerResult: TaskResult {}
extension HandLandmarkerResult: TaskResult {}
extension GestureRecognizerResult: TaskResult {}
extension PoseLandmarkerResult: TaskResult {}
extension ImageSegmenterResult: TaskResult {}
