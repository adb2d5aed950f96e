import FrameFlow

/// What `FaceDetector` is made with, as MediaPipe Tasks' `FaceDetectorOptions`.
public struct FaceDetectorOptions: Sendable {
    /// The model: `face_detector.tflite`, or a `face_landmarker.task` bundle (its detector).
    public var baseOptions = BaseOptions()
    /// Image, video or live stream.
    public var runningMode = RunningMode.image
    /// The lowest score a face is kept with (0…1).
    public var minDetectionConfidence: Float = 0.5
    /// The overlap (IoU) above which two faces are merged (0…1).
    public var minSuppressionThreshold: Float = 0.3
    /// Live stream only: called with each result, or the error of that frame, in timestamp order.
    public var resultListener: (@Sendable (Result<FaceDetectorResult, TaskError>) -> Void)?

    /// Options with MediaPipe's defaults.
    public init() {}
}

/// The faces found in one image, as MediaPipe Tasks' `FaceDetectorResult`.
public struct FaceDetectorResult: Sendable, Hashable, Codable {
    /// One detection per face: box in pixels, score, six keypoints (eyes, nose tip, mouth, ear tragions).
    public var detections: [TaskDetection]
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int
}

/// Finds faces, as MediaPipe Tasks' `FaceDetector` (BlazeFace short range), on FrameFlow's
/// `mediapipe.tasks.vision.face_detector.FaceDetectorGraph`.
///
/// ```swift
/// var options = FaceDetectorOptions()
/// options.baseOptions.modelAssetPath = "face_detector.tflite"
/// let detector = try FaceDetector(options: options)
/// let result = try detector.detect(image: frame)   // an ImageFrame
/// for face in result.detections { print(face.boundingBox, face.categories[0].score) }
/// ```
public final class FaceDetector: Sendable {
    private let runner: TaskRunner

    /// A detector with `options`.
    /// - Throws: `TaskError.invalidOption` naming the option, `.modelAsset` when the model
    ///   cannot be read or is not a face detector.
    public init(options: FaceDetectorOptions) throws {
        let body = try [
            TaskRunner.baseOptions(options.baseOptions, options.runningMode),
            "min_detection_confidence: " + TaskRunner.probability(options.minDetectionConfidence, "minDetectionConfidence"),
            "min_suppression_threshold: " + TaskRunner.probability(options.minSuppressionThreshold, "minSuppressionThreshold"),
        ].joined(separator: " ")
        try TaskRunner.checkListener(options.runningMode, hasListener: options.resultListener != nil)
        runner = try TaskRunner(
            taskGraph: "mediapipe.tasks.vision.face_detector.FaceDetectorGraph",
            optionsType: "mediapipe.tasks.vision.face_detector.proto.FaceDetectorGraphOptions", options: body,
            outputs: ["DETECTIONS:detections", "IMAGE:image_out"], mode: options.runningMode, base: options.baseOptions,
            listener: TaskRunner.listener(options.resultListener, Self.result))
    }

    /// A detector for images with the model at `modelPath`.
    public convenience init(modelPath: String) throws {
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// The faces in `image` (image mode).
    public func detect(image: ImageFrame) throws -> FaceDetectorResult {
        Self.result(try runner.process(image, timestampMs: nil, region: .wholeImage, call: "detect(image:)"), 0)
    }

    /// The faces in one frame of a video (video mode); timestamps must increase.
    public func detect(videoFrame image: ImageFrame, timestampInMilliseconds: Int) throws -> FaceDetectorResult {
        let packets = try runner.process(
            image, timestampMs: timestampInMilliseconds, region: .wholeImage, call: "detect(videoFrame:timestampInMilliseconds:)")
        return Self.result(packets, timestampInMilliseconds)
    }

    /// Sends a live-stream image; the result goes to the options' `resultListener`. Returns
    /// false when the image was dropped because the detector was still busy.
    @discardableResult
    public func detectAsync(image: ImageFrame, timestampInMilliseconds: Int) throws -> Bool {
        try runner.send(image, timestampMs: timestampInMilliseconds, region: .wholeImage, call: "detectAsync(image:timestampInMilliseconds:)")
    }

    /// Images a live-stream detector dropped because it was busy.
    public var droppedFrames: Int { runner.droppedFrames }

    /// The task graph's per-node counters (calls, busy seconds), for profiling in this package.
    package var statistics: GraphStatistics { runner.statistics }

    /// Finishes the task: a live stream's pending result is delivered first. Also done when
    /// the detector is released.
    public func close() { runner.close() }

    private static func result(_ packets: [Packet?], _ ms: Int) -> FaceDetectorResult {
        let detections = (try? packets[0]?.get([Detection].self)) ?? []
        return FaceDetectorResult(detections: detections.map(TaskDetection.init), timestampInMilliseconds: ms)
    }
}

extension NormalizedRect {
    /// The whole image, unrotated: the region a task looks at unless told otherwise.
    static let wholeImage = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)
}
