import FrameFlow

/// Where a task's model comes from, as MediaPipe Tasks' `BaseOptions`: a `.task` bundle or a
/// `.tflite` file by path, or the same bytes in memory.
public struct BaseOptions: Sendable {
    /// The model asset's path; a relative one is looked up under `resourceRoots`, then the
    /// user model folder (`frameflow models fetch tasks` puts `tasks/face_landmarker.task`, …
    /// there), then the working directory.
    public var modelAssetPath: String?
    /// The model asset's bytes; used instead of the path when set.
    public var modelAssetBuffer: [UInt8]?
    /// Folders a relative `modelAssetPath` is looked up under first.
    public var resourceRoots: [String] = []
    /// Threads the task's graph runs on, its models' operators split across them (1…1024);
    /// nil: one per core. A FrameFlow option: MediaPipe Tasks leave this to their delegate.
    public var numThreads: Int?

    /// Options naming the model asset at `modelAssetPath`.
    public init(modelAssetPath: String? = nil, modelAssetBuffer: [UInt8]? = nil) {
        self.modelAssetPath = modelAssetPath
        self.modelAssetBuffer = modelAssetBuffer
    }
}

/// How a task is fed, as MediaPipe Tasks' `RunningMode`.
public enum RunningMode: Sendable, Equatable {
    /// Independent images: `detect(image:)`.
    case image
    /// Frames of one video, timestamps given and increasing: `detect(videoFrame:timestampInMilliseconds:)`;
    /// what the task found on a frame guides it on the next (tracking, smoothing).
    case video
    /// A live stream: `detectAsync(image:timestampInMilliseconds:)` returns at once and the
    /// result arrives through the options' result listener; a frame sent while the task is
    /// still busy with an earlier one is dropped (and counted), never queued.
    case liveStream
}
