import FrameFlow

/// What `PoseLandmarker` is made with, as MediaPipe Tasks' `PoseLandmarkerOptions`.
public struct PoseLandmarkerOptions: Sendable {
    /// The model: a `pose_landmarker_*.task` bundle.
    public var baseOptions = BaseOptions()
    /// Image, video or live stream.
    public var runningMode = RunningMode.image
    /// The most people to find (1…1000).
    public var numPoses = 1
    /// The pose detector's lowest score (0…1).
    public var minPoseDetectionConfidence: Float = 0.5
    /// The lowest pose-presence score of the landmark model (0…1).
    public var minPosePresenceConfidence: Float = 0.5
    /// Video and live stream: the lowest tracking score before the detector runs again (0…1).
    public var minTrackingConfidence: Float = 0.5
    /// Whether each pose's segmentation mask is in the result.
    public var outputSegmentationMasks = false
    /// Live stream only: called with each result, in timestamp order.
    public var resultListener: (@Sendable (Result<PoseLandmarkerResult, TaskError>) -> Void)?

    /// Options with MediaPipe's defaults.
    public init() {}
}

/// The people found in one image, as MediaPipe Tasks' `PoseLandmarkerResult`.
public struct PoseLandmarkerResult: Sendable {
    /// Per pose, 33 landmarks relative to the image, with visibility and presence.
    public var landmarks: [[NormalizedLandmark]]
    /// Per pose, 33 points in metres around the hips.
    public var worldLandmarks: [[Landmark]]
    /// Per pose, its mask (float, 0…1, the image's size) when `outputSegmentationMasks` is set.
    public var segmentationMasks: [ImageFrame]?
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int
}

/// Finds people and their 33 body landmarks, as MediaPipe Tasks' `PoseLandmarker`, on
/// FrameFlow's `mediapipe.tasks.vision.pose_landmarker.PoseLandmarkerGraph`.
///
/// ```swift
/// var options = PoseLandmarkerOptions()
/// options.baseOptions.modelAssetPath = "pose_landmarker_full.task"
/// let landmarker = try PoseLandmarker(options: options)
/// let result = try landmarker.detect(image: frame)
/// print(result.landmarks.first?[0] ?? "nobody")  // the nose
/// ```
public final class PoseLandmarker: Sendable {
    private let calls: TaskCalls<PoseLandmarkerResult>

    /// A landmarker with `options`.
    /// - Throws: `TaskError.invalidOption` naming the option; `.modelAsset` for the bundle.
    public init(options: PoseLandmarkerOptions) throws {
        let masks = options.outputSegmentationMasks
        var outputs = ["NORM_LANDMARKS:norm_landmarks", "WORLD_LANDMARKS:world_landmarks", "IMAGE:image_out"]
        if masks { outputs.append("SEGMENTATION_MASK:segmentation_mask") }
        calls = try TaskCalls(
            "pose_landmarker", verb: "detect", base: options.baseOptions, mode: options.runningMode,
            options: try TaskRunner.landmarkerOptions(
                "pose", count: options.numPoses, detection: options.minPoseDetectionConfidence,
                presence: options.minPosePresenceConfidence, tracking: options.minTrackingConfidence),
            outputs: outputs, listener: options.resultListener, result: { Self.result($0, $1, masks: masks) })
    }

    /// A landmarker for images with the bundle at `modelPath`.
    public convenience init(modelPath: String) throws {
        var options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// The people in `image` (image mode).
    public func detect(image: ImageFrame) throws -> PoseLandmarkerResult { try calls.image(image) }

    /// The people in one frame of a video (video mode); timestamps must increase.
    public func detect(videoFrame image: ImageFrame, timestampInMilliseconds: Int) throws -> PoseLandmarkerResult {
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

    private static func result(_ p: [Packet?], _ ms: Int, masks: Bool) -> PoseLandmarkerResult {
        PoseLandmarkerResult(
            landmarks: (p[0].value([NormalizedLandmarkList].self) ?? []).map(\.landmark),
            worldLandmarks: (p[1].value([LandmarkList].self) ?? []).map(\.landmark),
            segmentationMasks: masks ? (p[3].value([ImageFrame].self) ?? []) : nil, timestampInMilliseconds: ms)
    }
}
