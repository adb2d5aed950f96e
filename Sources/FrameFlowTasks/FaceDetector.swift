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
    private let calls: TaskCalls<FaceDetectorResult>

    /// A detector with `options`.
    /// - Throws: `TaskError.invalidOption` naming the option, `.modelAsset` when the model
    ///   cannot be read or is not a face detector.
    public init(options: FaceDetectorOptions) throws {
        calls = try TaskCalls(
            "face_detector", verb: "detect", base: options.baseOptions, mode: options.runningMode,
            options: "min_detection_confidence: \(try TaskRunner.probability(options.minDetectionConfidence, "minDetectionConfidence")) "
                + "min_suppression_threshold: \(try TaskRunner.probability(options.minSuppressionThreshold, "minSuppressionThreshold"))",
            outputs: ["DETECTIONS:detections", "IMAGE:image_out"], listener: options.resultListener, result: Self.result)
    }

    /// A detector for images with the model at `modelPath`.
    public convenience init(modelPath: String) throws {
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// The faces in `image` (image mode).
    public func detect(image: ImageFrame) throws -> FaceDetectorResult { try calls.image(image) }

    /// The faces in one frame of a video (video mode); timestamps must increase.
    public func detect(videoFrame image: ImageFrame, timestampInMilliseconds: Int) throws -> FaceDetectorResult {
        try calls.videoFrame(image, timestampInMilliseconds)
    }

    /// Sends a live-stream image; the result goes to the options' `resultListener`. Returns
    /// false when the image was dropped because the detector was still busy.
    @discardableResult
    public func detectAsync(image: ImageFrame, timestampInMilliseconds: Int) throws -> Bool {
        try calls.async(image, timestampInMilliseconds)
    }

    /// Images a live-stream detector dropped because it was busy.
    public var droppedFrames: Int { calls.droppedFrames }

    /// The task graph's per-node counters (calls, busy seconds), for profiling in this package.
    package var statistics: GraphStatistics { calls.statistics }

    /// Finishes the task: a live stream's pending result is delivered first. Also done when
    /// the detector is released.
    public func close() { calls.close() }

    private static func result(_ packets: [Packet?], _ ms: Int) -> FaceDetectorResult {
        let detections = (try? packets[0]?.get([Detection].self)) ?? []
        return FaceDetectorResult(detections: detections.map(TaskDetection.init), timestampInMilliseconds: ms)
    }
}

extension NormalizedRect {
    /// The whole image, unrotated: the region a task looks at unless told otherwise.
    static let wholeImage = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)
}
