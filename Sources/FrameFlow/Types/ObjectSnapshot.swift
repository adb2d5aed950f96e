/// The best picture so far of one tracked object (Frigate's "best" snapshot): the frame, the
/// box, and the cropped and annotated pictures that snapshot writers save per event.
///
/// `SnapshotSelectorCalculator` emits one whenever a track's best frame improves; a writer
/// (`SnapshotWriter` in FrameFlowMedia) saves `<event id>.jpg`, `-crop.jpg` and
/// `-annotated.jpg` from the latest for the event's track.
public struct ObjectSnapshot: Sendable {
    /// The tracker's id for the object (`Detection.detectionID`).
    public var trackID: Int
    /// The detection's label ("person"), if any.
    public var label: String?
    /// The detection's score.
    public var score: Double
    /// The box in pixels of `image`.
    public var box: Rect
    /// The frame's timestamp.
    public var timestamp: Timestamp
    /// The whole frame.
    public var image: ImageFrame
    /// The part of the frame around the box (the box with a margin, inside the frame).
    public var crop: ImageFrame
    /// Where `crop` was cut from (pixels of `image`).
    public var cropRect: Rect
    /// The whole frame with the box and label drawn.
    public var annotated: ImageFrame

    /// A snapshot with every field given.
    public init(
        trackID: Int, label: String?, score: Double, box: Rect, timestamp: Timestamp, image: ImageFrame, crop: ImageFrame,
        cropRect: Rect, annotated: ImageFrame
    ) {
        self.trackID = trackID
        self.label = label
        self.score = score
        self.box = box
        self.timestamp = timestamp
        self.image = image
        self.crop = crop
        self.cropRect = cropRect
        self.annotated = annotated
    }
}
