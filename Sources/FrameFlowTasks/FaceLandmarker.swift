import FrameFlow
import FrameFlowML

/// What `FaceLandmarker` is made with, as MediaPipe Tasks' `FaceLandmarkerOptions`.
public struct FaceLandmarkerOptions: Sendable {
    /// The model: a `face_landmarker.task` bundle (detector, landmarks, blendshapes, geometry).
    public var baseOptions = BaseOptions()
    /// Image, video or live stream.
    public var runningMode = RunningMode.image
    /// The most faces to find (1…1000).
    public var numFaces = 1
    /// The face detector's lowest score (0…1).
    public var minFaceDetectionConfidence: Float = 0.5
    /// The lowest face-presence score of the landmark model (0…1).
    public var minFacePresenceConfidence: Float = 0.5
    /// Video and live stream: the lowest tracking score before the detector runs again (0…1).
    public var minTrackingConfidence: Float = 0.5
    /// Whether the 52 blendshape scores of each face are in the result.
    public var outputFaceBlendshapes = false
    /// Whether each face's 4×4 transformation matrix (the canonical face to the camera) is in
    /// the result.
    public var outputFacialTransformationMatrixes = false
    /// Live stream only: called with each result, in timestamp order.
    public var resultListener: (@Sendable (Result<FaceLandmarkerResult, TaskError>) -> Void)?

    /// Options with MediaPipe's defaults.
    public init() {}
}

/// A 4×4 transformation matrix, as MediaPipe Tasks' `TransformMatrix`: `data` row by row.
public struct TransformMatrix: Sendable, Hashable, Codable {
    /// Rows (4).
    public var rows: Int
    /// Columns (4).
    public var columns: Int
    /// The values, row by row.
    public var data: [Float]

    /// The value at `row`, `column`.
    public subscript(row: Int, column: Int) -> Float { data[row * columns + column] }
}

/// The faces found in one image, as MediaPipe Tasks' `FaceLandmarkerResult`.
public struct FaceLandmarkerResult: Sendable, Hashable, Codable {
    /// Per face, 478 landmarks relative to the image (the last ten: the irises).
    public var faceLandmarks: [[NormalizedLandmark]]
    /// Per face, the 52 blendshape scores (`_neutral`, `browDownLeft`, …), when asked for.
    public var faceBlendshapes: [[Category]]?
    /// Per face, the canonical face's pose (rotation and translation in cm), when asked for.
    public var facialTransformationMatrixes: [TransformMatrix]?
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int
}

/// Finds faces and their 478 landmarks, blendshapes and pose, as MediaPipe Tasks'
/// `FaceLandmarker`, on FrameFlow's `mediapipe.tasks.vision.face_landmarker.FaceLandmarkerGraph`.
///
/// ```swift
/// var options = FaceLandmarkerOptions()
/// options.baseOptions.modelAssetPath = "face_landmarker.task"
/// options.outputFaceBlendshapes = true
/// let landmarker = try FaceLandmarker(options: options)
/// let result = try landmarker.detect(image: frame)
/// print(result.faceBlendshapes?.first?.first { $0.categoryName == "jawOpen" }?.score ?? 0)
/// ```
public final class FaceLandmarker: Sendable {
    private let calls: TaskCalls<FaceLandmarkerResult>

    /// A landmarker with `options`.
    /// - Throws: `TaskError.invalidOption` naming the option; `.modelAsset` for the bundle.
    public init(options: FaceLandmarkerOptions) throws {
        let wants = (options.outputFaceBlendshapes, options.outputFacialTransformationMatrixes)
        var outputs = ["NORM_LANDMARKS:norm_landmarks", "IMAGE:image_out"]
        if wants.0 { outputs.append("BLENDSHAPES:blendshapes") }
        if wants.1 { outputs.append("FACE_GEOMETRY:face_geometry") }
        calls = try TaskCalls(
            "face_landmarker", verb: "detect", base: options.baseOptions, mode: options.runningMode,
            options: try TaskRunner.landmarkerOptions(
                "face", count: options.numFaces, detection: options.minFaceDetectionConfidence,
                presence: options.minFacePresenceConfidence, tracking: options.minTrackingConfidence),
            outputs: outputs, listener: options.resultListener, result: { Self.result($0, $1, wants) })
    }

    /// A landmarker for images with the bundle at `modelPath`.
    public convenience init(modelPath: String) throws {
        var options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// The faces in `image` (image mode).
    public func detect(image: ImageFrame) throws -> FaceLandmarkerResult { try calls.image(image) }

    /// The faces in one frame of a video (video mode); timestamps must increase.
    public func detect(videoFrame image: ImageFrame, timestampInMilliseconds: Int) throws -> FaceLandmarkerResult {
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

    private static func result(_ p: [Packet?], _ ms: Int, _ wants: (blendshapes: Bool, matrices: Bool)) -> FaceLandmarkerResult {
        var k = 2
        var blendshapes: [[Category]]?
        var matrices: [TransformMatrix]?
        if wants.blendshapes {
            blendshapes = (p[k].value([ClassificationList].self) ?? []).map { [Category]($0) }
            k += 1
        }
        if wants.matrices {
            matrices = (p[k].value([FaceGeometry].self) ?? []).map {
                TransformMatrix(rows: 4, columns: 4, data: $0.poseTransformMatrix.map(Float.init))
            }
        }
        return FaceLandmarkerResult(
            faceLandmarks: (p[0].value([NormalizedLandmarkList].self) ?? []).map(\.landmark), faceBlendshapes: blendshapes,
            facialTransformationMatrixes: matrices, timestampInMilliseconds: ms)
    }
}
