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

    /// A task in one running mode behind the same calls; `summary` turns its result into a `Summary`.
    struct Handle {
        var image: (ImageFrame) throws -> Summary
        var send: (ImageFrame, Int) throws -> Bool
        var dropped: () -> Int
        var close: () -> Void

        init<R>(
            _ image: @escaping (ImageFrame) throws -> R, _ send: @escaping (ImageFrame, Int) throws -> Bool,
            _ dropped: @escaping @autoclosure () -> Int, _ close: @escaping () -> Void, _ summary: @escaping (R) -> Summary
        ) {
            self.image = { summary(try image($0)) }
            (self.send, self.dropped, self.close) = (send, dropped, close)
        }
    }

    /// Where a live-stream task's results go: each one's timestamp and summary, or its error.
    typealias Listener = @Sendable (Result<(ms: Int, summary: Summary), TaskError>) -> Void

    struct Subject: Sendable, CustomTestStringConvertible {
        var name: String
        /// The clip the frames come from, relative to the repository.
        var clip: String
        /// Whether a result depends on its frame alone (no tracking from frame to frame).
        var stateless: Bool
        /// The task in `mode`; a live-stream one hands its results to the listener.
        var make: @Sendable (RunningMode, Listener?) throws -> Handle
        var testDescription: String { name }
    }

    static let faces = ".build/fixtures/carphone_pristine.mp4"
    static let hands = "Tests/Fixtures/mediapipe/hand_clip.mp4"
    static let people = "Tests/Fixtures/mediapipe/walk_clip.mp4"

    static let subjects: [Subject] = [
        Subject(name: "FaceDetector", clip: faces, stateless: true) { mode, listener in
            var o = FaceDetectorOptions()
            (o.baseOptions.modelAssetPath, o.runningMode) = (try TaskFixtures.model("face_detector.tflite"), mode)
            o.resultListener = forward(listener, summary)
            let t = try FaceDetector(options: o)
            return Handle(t.detect(image:), t.detectAsync, t.droppedFrames, t.close, summary)
        },
        Subject(name: "FaceLandmarker", clip: faces, stateless: false) { mode, listener in
            var o = FaceLandmarkerOptions()
            (o.baseOptions.modelAssetPath, o.runningMode) = (try TaskFixtures.model("face_landmarker.task"), mode)
            (o.outputFaceBlendshapes, o.outputFacialTransformationMatrixes) = (true, true)
            o.resultListener = forward(listener, summary)
            let t = try FaceLandmarker(options: o)
            return Handle(t.detect(image:), t.detectAsync, t.droppedFrames, t.close, summary)
        },
        Subject(name: "HandLandmarker", clip: hands, stateless: false) { mode, listener in
            var o = HandLandmarkerOptions()
            (o.baseOptions.modelAssetPath, o.runningMode) = (try TaskFixtures.model("hand_landmarker.task"), mode)
            o.resultListener = forward(listener, summary)
            let t = try HandLandmarker(options: o)
            return Handle(t.detect(image:), t.detectAsync, t.droppedFrames, t.close, summary)
        },
        Subject(name: "GestureRecognizer", clip: hands, stateless: false) { mode, listener in
            var o = GestureRecognizerOptions()
            (o.baseOptions.modelAssetPath, o.runningMode) = (try TaskFixtures.model("gesture_recognizer.task"), mode)
            o.resultListener = forward(listener, summary)
            let t = try GestureRecognizer(options: o)
            return Handle(t.recognize(image:), t.recognizeAsync, t.droppedFrames, t.close, summary)
        },
        Subject(name: "PoseLandmarker", clip: people, stateless: false) { mode, listener in
            var o = PoseLandmarkerOptions()
            (o.baseOptions.modelAssetPath, o.runningMode) = (try TaskFixtures.model("pose_landmarker_full.task"), mode)
            (o.numPoses, o.outputSegmentationMasks) = (3, true)
            o.resultListener = forward(listener, summary)
            let t = try PoseLandmarker(options: o)
            return Handle(t.detect(image:), t.detectAsync, t.droppedFrames, t.close, summary)
        },
        Subject(name: "ImageSegmenter", clip: people, stateless: true) { mode, listener in
            var o = ImageSegmenterOptions()
            (o.baseOptions.modelAssetPath, o.runningMode) = (try TaskFixtures.model("selfie_segmenter.tflite"), mode)
            o.shouldOutputCategoryMask = true
            o.resultListener = forward(listener, summary)
            let t = try ImageSegmenter(options: o)
            return Handle(t.segment(image:), t.segmentAsync, t.droppedFrames, t.close, summary)
        },
    ]

    /// Frames per task, and the growth of resident memory allowed between the fifth frame
    /// and the end (other suites run in the same process meanwhile).
    static let frameCount = 36
    static let memoryBound = 20 << 20

    @Test(arguments: subjects)
    func framesSentFasterThanItRunsAreDroppedResultsInOrder(_ subject: Subject) throws {
        let frames = try TaskFixtures.frames(subject.clip, count: Self.frameCount)
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
            if k == 4 { memory.append(residentBytes()) }
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
        print("\(subject.name) live stream: \(accepted) of \(frames.count) frames taken, one in \(fastest) in image mode")
    }

    /// A task's result listener: its results as timestamps and summaries, to `listener`.
    static func forward<R: Sendable>(_ listener: Listener?, _ summary: @escaping @Sendable (R) -> Summary) -> (
        @Sendable (Result<R, TaskError>) -> Void
    )? where R: Timed {
        guard let listener else { return nil }
        return { result in listener(result.map { ($0.timestampInMilliseconds, summary($0)) }) }
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

/// The results that carry their frame's timestamp (all of them).
protocol Timed { var timestampInMilliseconds: Int { get } }
extension FaceDetectorResult: Timed {}
extension FaceLandmarkerResult: Timed {}
extension HandLandmarkerResult: Timed {}
extension GestureRecognizerResult: Timed {}
extension PoseLandmarkerResult: Timed {}
extension ImageSegmenterResult: Timed {}
