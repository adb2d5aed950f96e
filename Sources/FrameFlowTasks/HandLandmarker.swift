import FrameFlow

/// What `HandLandmarker` is made with, as MediaPipe Tasks' `HandLandmarkerOptions`.
public struct HandLandmarkerOptions: Sendable {
    /// The model: a `hand_landmarker.task` bundle.
    public var baseOptions = BaseOptions()
    /// Image, video or live stream.
    public var runningMode = RunningMode.image
    /// The most hands to find (1…1000).
    public var numHands = 1
    /// The palm detector's lowest score (0…1).
    public var minHandDetectionConfidence: Float = 0.5
    /// The lowest hand-presence score of the landmark model (0…1).
    public var minHandPresenceConfidence: Float = 0.5
    /// Video and live stream: how well a tracked hand must still overlap its region (0…1)
    /// before the palm detector runs again.
    public var minTrackingConfidence: Float = 0.5
    /// Live stream only: called with each result, in timestamp order.
    public var resultListener: (@Sendable (Result<HandLandmarkerResult, TaskError>) -> Void)?

    /// Options with MediaPipe's defaults.
    public init() {}

    /// The `HandLandmarkerGraphOptions` text but the model (shared with `GestureRecognizer`).
    func graphOptions() throws -> String {
        try TaskRunner.landmarkerOptions(
            "hand", count: numHands, detection: minHandDetectionConfidence, presence: minHandPresenceConfidence,
            tracking: minTrackingConfidence)
    }
}

/// The hands found in one image, as MediaPipe Tasks' `HandLandmarkerResult`.
public struct HandLandmarkerResult: Sendable, Hashable, Codable {
    /// Per hand, 21 landmarks relative to the image (z: depth relative to the wrist, in the
    /// scale of x).
    public var landmarks: [[NormalizedLandmark]]
    /// Per hand, the same 21 points in metres around the hand's centre.
    public var worldLandmarks: [[Landmark]]
    /// Per hand, "Left" or "Right" with its score.
    public var handedness: [[Category]]
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int

    static func from(_ p: [Packet?], landmarks: Int, world: Int, handedness: Int, _ ms: Int) -> HandLandmarkerResult {
        HandLandmarkerResult(
            landmarks: (p[landmarks].value([NormalizedLandmarkList].self) ?? []).map(\.landmark),
            worldLandmarks: (p[world].value([LandmarkList].self) ?? []).map(\.landmark),
            handedness: (p[handedness].value([ClassificationList].self) ?? []).map { [Category]($0) },
            timestampInMilliseconds: ms)
    }
}

/// Finds hands and their 21 landmarks, as MediaPipe Tasks' `HandLandmarker`, on FrameFlow's
/// `mediapipe.tasks.vision.hand_landmarker.HandLandmarkerGraph`.
///
/// ```swift
/// var options = HandLandmarkerOptions()
/// options.baseOptions.modelAssetPath = "hand_landmarker.task"
/// options.numHands = 2
/// let landmarker = try HandLandmarker(options: options)
/// let result = try landmarker.detect(image: frame)
/// for (hand, side) in zip(result.landmarks, result.handedness) { print(side[0].categoryName, hand[8]) }
/// ```
public final class HandLandmarker: Sendable {
    private let calls: TaskCalls<HandLandmarkerResult>

    /// A landmarker with `options`.
    /// - Throws: `TaskError.invalidOption` naming the option; `.modelAsset` when the bundle
    ///   cannot be read or lacks a model.
    public init(options: HandLandmarkerOptions) throws {
        calls = try TaskCalls(
            "hand_landmarker", verb: "detect", base: options.baseOptions, mode: options.runningMode, options: try options.graphOptions(),
            outputs: ["LANDMARKS:landmarks", "WORLD_LANDMARKS:world_landmarks", "HANDEDNESS:handedness", "IMAGE:image_out"],
            listener: options.resultListener, result: Self.result)
    }

    /// A landmarker for images with the bundle at `modelPath`.
    public convenience init(modelPath: String) throws {
        var options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// The hands in `image` (image mode).
    public func detect(image: ImageFrame) throws -> HandLandmarkerResult { try calls.image(image) }

    /// The hands in one frame of a video (video mode); timestamps must increase.
    public func detect(videoFrame image: ImageFrame, timestampInMilliseconds: Int) throws -> HandLandmarkerResult {
        try calls.videoFrame(image, timestampInMilliseconds)
    }

    /// Sends a live-stream image; false when it was dropped because the task was busy.
    @discardableResult
    public func detectAsync(image: ImageFrame, timestampInMilliseconds: Int) throws -> Bool {
        try calls.async(image, timestampInMilliseconds)
    }

    /// Images a live-stream task dropped because it was busy.
    public var droppedFrames: Int { calls.droppedFrames }

    /// The task graph's per-node counters (calls, busy seconds), for profiling in this package.
    package var statistics: GraphStatistics { calls.statistics }

    /// Finishes the task (a live stream's pending result is delivered first).
    public func close() { calls.close() }

    private static func result(_ p: [Packet?], _ ms: Int) -> HandLandmarkerResult {
        .from(p, landmarks: 0, world: 1, handedness: 2, ms)
    }
}
