import FrameFlow

/// One class and its score, as MediaPipe Tasks' `Category`.
public struct Category: Sendable, Hashable, Codable {
    /// The class's index in the model's output.
    public var index: Int
    /// Its score (a probability for the models here).
    public var score: Float
    /// The class's name from the model's labels (empty when the model has none).
    public var categoryName: String
    /// Its localized display name (empty when the model has none).
    public var displayName: String

    /// A category.
    public init(index: Int, score: Float, categoryName: String = "", displayName: String = "") {
        self.index = index
        self.score = score
        self.categoryName = categoryName
        self.displayName = displayName
    }

    /// `c` as a category.
    init(_ c: Classification) {
        self.init(index: c.index, score: Float(c.score), categoryName: c.label ?? "", displayName: c.displayName ?? "")
    }
}

/// A point of a detection in coordinates relative to the image (0…1), as MediaPipe Tasks'
/// `NormalizedKeypoint`.
public struct NormalizedKeypoint: Sendable, Hashable, Codable {
    /// x, y relative to the image's width and height.
    public var x: Float
    /// See `x`.
    public var y: Float
    /// The keypoint's name, when the model gives one.
    public var label: String?
    /// The keypoint's score, when the model gives one.
    public var score: Float?
}

/// A rectangle in pixels, as MediaPipe Tasks' bounding boxes (`CGRect` on iOS).
public struct BoundingBox: Sendable, Hashable, Codable {
    /// The left edge, in pixels.
    public var originX: Int
    /// The top edge, in pixels.
    public var originY: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
}

/// One detected object, as MediaPipe Tasks' `Detection`: its categories, its box in pixels and
/// its keypoints.
public struct TaskDetection: Sendable, Hashable, Codable {
    /// The object's classes, best first.
    public var categories: [Category]
    /// Its box, in the image's pixels.
    public var boundingBox: BoundingBox
    /// Its keypoints (a face's eyes, nose, mouth, ears), relative to the image.
    public var keypoints: [NormalizedKeypoint]?

    /// The task's view of a FrameFlow detection whose box is in pixels.
    init(_ d: Detection) {
        categories = d.scores.indices.map { i in
            Category(
                index: i < d.labelIDs.count ? d.labelIDs[i] : 0, score: Float(d.scores[i]),
                categoryName: i < d.labels.count ? d.labels[i] : "")
        }
        let b = d.locationData.boundingBox ?? LocationData.BoundingBox(xmin: 0, ymin: 0, width: 0, height: 0)
        boundingBox = BoundingBox(originX: b.xmin, originY: b.ymin, width: b.width, height: b.height)
        let kps = d.locationData.relativeKeypoints
        keypoints =
            kps.isEmpty
            ? nil : kps.map { NormalizedKeypoint(x: Float($0.x), y: Float($0.y), label: $0.keypointLabel, score: $0.score.map(Float.init)) }
    }
}
