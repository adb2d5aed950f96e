import FrameFlow

/// What `GestureRecognizer` is made with, as MediaPipe Tasks' `GestureRecognizerOptions`.
public struct GestureRecognizerOptions: Sendable {
    /// The model: a `gesture_recognizer.task` bundle (a hand landmarker and the gesture classifiers).
    public var baseOptions = BaseOptions()
    /// Image, video or live stream.
    public var runningMode = RunningMode.image
    /// The most hands to find (1…1000).
    public var numHands = 1
    /// The palm detector's lowest score (0…1).
    public var minHandDetectionConfidence: Float = 0.5
    /// The lowest hand-presence score of the landmark model (0…1).
    public var minHandPresenceConfidence: Float = 0.5
    /// Video and live stream: the lowest tracking score before the detector runs again (0…1).
    public var minTrackingConfidence: Float = 0.5
    /// Which of the bundle's canned gestures are reported (MediaPipe's
    /// `cannedGesturesClassifierOptions`).
    public var cannedGesturesClassifierOptions = ClassifierOptions()
    /// Which of the bundle's custom gestures are reported (MediaPipe's
    /// `customGesturesClassifierOptions`).
    public var customGesturesClassifierOptions = ClassifierOptions()
    /// Live stream only: called with each result, in timestamp order.
    public var resultListener: (@Sendable (Result<GestureRecognizerResult, TaskError>) -> Void)?

    /// Options with MediaPipe's defaults.
    public init() {}
}

/// The hands and their gestures in one image, as MediaPipe Tasks' `GestureRecognizerResult`.
public struct GestureRecognizerResult: Sendable, Hashable, Codable {
    /// Per hand, its gestures, best first (the bundle's classifiers' labels).
    public var gestures: [[Category]]
    /// Per hand, "Left" or "Right" with its score.
    public var handedness: [[Category]]
    /// Per hand, 21 landmarks relative to the image.
    public var landmarks: [[NormalizedLandmark]]
    /// Per hand, 21 points in metres.
    public var worldLandmarks: [[Landmark]]
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int
}

/// Recognizes hand gestures, as MediaPipe Tasks' `GestureRecognizer`, on FrameFlow's
/// `mediapipe.tasks.vision.gesture_recognizer.GestureRecognizerGraph`.
///
/// ```swift
/// var options = GestureRecognizerOptions()
/// options.baseOptions.modelAssetPath = "gesture_recognizer.task"
/// let recognizer = try GestureRecognizer(options: options)
/// let result = try recognizer.recognize(image: frame)
/// print(result.gestures.first?.first?.categoryName ?? "no hand")
/// ```
public final class GestureRecognizer: Sendable {
    private let calls: TaskCalls<GestureRecognizerResult>

    /// A recognizer with `options`.
    /// - Throws: `TaskError.invalidOption` naming the option; `.modelAsset` for the bundle.
    public init(options: GestureRecognizerOptions) throws {
        var hands = HandLandmarkerOptions()
        hands.numHands = options.numHands
        hands.minHandDetectionConfidence = options.minHandDetectionConfidence
        hands.minHandPresenceConfidence = options.minHandPresenceConfidence
        hands.minTrackingConfidence = options.minTrackingConfidence
        calls = try TaskCalls(
            "gesture_recognizer", verb: "recognize", base: options.baseOptions, mode: options.runningMode,
            options: "hand_landmarker_graph_options { \(try hands.graphOptions()) } "
                + "hand_gesture_recognizer_graph_options { canned_gesture_classifier_graph_options { classifier_options { "
                + "\(try options.cannedGesturesClassifierOptions.graphOptions("cannedGesturesClassifierOptions")) } } "
                + "custom_gesture_classifier_graph_options { classifier_options { "
                + "\(try options.customGesturesClassifierOptions.graphOptions("customGesturesClassifierOptions")) } } }",
            outputs: [
                "HAND_GESTURES:hand_gestures", "HANDEDNESS:handedness", "LANDMARKS:landmarks", "WORLD_LANDMARKS:world_landmarks",
                "IMAGE:image_out",
            ], listener: options.resultListener, result: Self.result)
    }

    /// A recognizer for images with the bundle at `modelPath`.
    public convenience init(modelPath: String) throws {
        var options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// The gestures in `image` (image mode).
    public func recognize(image: ImageFrame) throws -> GestureRecognizerResult { try calls.image(image) }

    /// The gestures in one frame of a video (video mode); timestamps must increase.
    public func recognize(videoFrame image: ImageFrame, timestampInMilliseconds: Int) throws -> GestureRecognizerResult {
        try calls.videoFrame(image, timestampInMilliseconds)
    }

    /// Sends a live-stream image; false when it was dropped because the task was busy.
    @discardableResult
    public func recognizeAsync(image: ImageFrame, timestampInMilliseconds: Int) throws -> Bool {
        try calls.async(image, timestampInMilliseconds)
    }

    /// Images a live-stream task dropped because it was busy.
    public var droppedFrames: Int { calls.droppedFrames }

    /// The task graph's per-node counters (calls, busy seconds), for profiling in this package.
    package var statistics: GraphStatistics { calls.statistics }

    /// Finishes the task (a live stream's pending result is delivered first).
    public func close() { calls.close() }

    private static func result(_ p: [Packet?], _ ms: Int) -> GestureRecognizerResult {
        let hands = HandLandmarkerResult.from(p, landmarks: 2, world: 3, handedness: 1, ms)
        return GestureRecognizerResult(
            gestures: (p[0].value([ClassificationList].self) ?? []).map { [Category]($0) }, handedness: hands.handedness,
            landmarks: hands.landmarks, worldLandmarks: hands.worldLandmarks, timestampInMilliseconds: ms)
    }
}
