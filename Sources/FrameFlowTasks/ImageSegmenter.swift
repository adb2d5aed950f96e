import FrameFlow

/// What `ImageSegmenter` is made with, as MediaPipe Tasks' `ImageSegmenterOptions`.
public struct ImageSegmenterOptions: Sendable {
    /// The model: a segmentation `.tflite` with metadata (the selfie segmenter).
    public var baseOptions = BaseOptions()
    /// Image, video or live stream.
    public var runningMode = RunningMode.image
    /// Whether the per-category confidence masks are in the result.
    public var shouldOutputConfidenceMasks = true
    /// Whether the category mask is in the result.
    public var shouldOutputCategoryMask = false
    /// Live stream only: called with each result, in timestamp order.
    public var resultListener: (@Sendable (Result<ImageSegmenterResult, TaskError>) -> Void)?

    /// Options with MediaPipe's defaults.
    public init() {}
}

/// The masks of one image, as MediaPipe Tasks' `ImageSegmenterResult`.
public struct ImageSegmenterResult: Sendable {
    /// Per category, its confidence (float, 0…1) at each pixel, the image's size.
    public var confidenceMasks: [ImageFrame]?
    /// Each pixel's category (gray8; 255: none), the image's size.
    public var categoryMask: ImageFrame?
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int
}

/// Splits an image into categories (a person and the background), as MediaPipe Tasks'
/// `ImageSegmenter`, on FrameFlow's `mediapipe.tasks.vision.image_segmenter.ImageSegmenterGraph`.
///
/// ```swift
/// var options = ImageSegmenterOptions()
/// options.baseOptions.modelAssetPath = "selfie_segmenter.tflite"
/// let segmenter = try ImageSegmenter(options: options)
/// let mask = try segmenter.segment(image: frame).confidenceMasks?.first
/// ```
public final class ImageSegmenter: Sendable {
    private let calls: TaskCalls<ImageSegmenterResult>

    /// A segmenter with `options`.
    /// - Throws: `TaskError.invalidOption` naming the option; `.modelAsset` for the model.
    public init(options: ImageSegmenterOptions) throws {
        let wants = (options.shouldOutputConfidenceMasks, options.shouldOutputCategoryMask)
        guard options.shouldOutputConfidenceMasks || options.shouldOutputCategoryMask else {
            throw TaskError.invalidOption(name: "shouldOutputConfidenceMasks", reason: "ask for confidence masks, a category mask or both")
        }
        calls = try TaskCalls(
            "image_segmenter", verb: "segment", base: options.baseOptions, mode: options.runningMode, options: "segmenter_options { }",
            outputs: ["CONFIDENCE_MASKS:confidence_masks", "CATEGORY_MASK:category_mask", "IMAGE:image_out"],
            listener: options.resultListener, result: { Self.result($0, $1, wants) })
    }

    /// A segmenter for images with the model at `modelPath`.
    public convenience init(modelPath: String) throws {
        var options = ImageSegmenterOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// The masks of `image` (image mode).
    public func segment(image: ImageFrame) throws -> ImageSegmenterResult { try calls.image(image) }

    /// The masks of one frame of a video (video mode); timestamps must increase.
    public func segment(videoFrame image: ImageFrame, timestampInMilliseconds: Int) throws -> ImageSegmenterResult {
        try calls.videoFrame(image, timestampInMilliseconds)
    }

    /// Sends a live-stream image; false when it was dropped because the task was busy.
    @discardableResult
    public func segmentAsync(image: ImageFrame, timestampInMilliseconds: Int) throws -> Bool {
        try calls.async(image, timestampInMilliseconds)
    }

    /// Images a live-stream task dropped because it was busy.
    public var droppedFrames: Int { calls.droppedFrames }

    /// The task graph's per-node counters (calls, busy seconds), for profiling in this package.
    package var statistics: GraphStatistics { calls.statistics }

    /// Finishes the task (a live stream's pending result is delivered first).
    public func close() { calls.close() }

    private static func result(_ p: [Packet?], _ ms: Int, _ wants: (confidence: Bool, category: Bool)) -> ImageSegmenterResult {
        ImageSegmenterResult(
            confidenceMasks: wants.confidence ? (p[0].value([ImageFrame].self) ?? []) : nil,
            categoryMask: wants.category ? p[1].value(ImageFrame.self) : nil, timestampInMilliseconds: ms)
    }
}
