/// MediaPipe's `LocationData`: where a detection is, as an absolute box (pixels), a relative
/// box (fractions of the image) and relative keypoints.
public struct LocationData: Sendable, Hashable, Codable {
    /// Which of the boxes is the detection's own.
    public enum Format: String, Sendable, Codable {
        case global = "GLOBAL", boundingBox = "BOUNDING_BOX", relativeBoundingBox = "RELATIVE_BOUNDING_BOX", mask = "MASK"
    }

    /// An axis-aligned box by its top-left corner, with coordinates of type `Scalar`; the
    /// pixel and relative boxes share it.
    public struct Box<Scalar: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
        public var xmin: Scalar
        public var ymin: Scalar
        public var width: Scalar
        public var height: Scalar
        public init(xmin: Scalar, ymin: Scalar, width: Scalar, height: Scalar) {
            self.xmin = xmin
            self.ymin = ymin
            self.width = width
            self.height = height
        }
    }

    /// A box in pixels.
    public typealias BoundingBox = Box<Int>
    /// A box in fractions of the image's width and height.
    public typealias RelativeBoundingBox = Box<Double>

    /// A keypoint in fractions of the image's width and height.
    public struct RelativeKeypoint: Sendable, Hashable, Codable {
        public var x: Double
        public var y: Double
        public var keypointLabel: String?
        public var score: Double?
        public init(x: Double, y: Double, keypointLabel: String? = nil, score: Double? = nil) {
            self.x = x
            self.y = y
            self.keypointLabel = keypointLabel
            self.score = score
        }
        enum CodingKeys: String, CodingKey { case x, y, keypointLabel = "keypoint_label", score }
    }

    public var format: Format
    public var boundingBox: BoundingBox?
    public var relativeBoundingBox: RelativeBoundingBox?
    public var relativeKeypoints: [RelativeKeypoint]

    public init(
        format: Format, boundingBox: BoundingBox? = nil, relativeBoundingBox: RelativeBoundingBox? = nil,
        relativeKeypoints: [RelativeKeypoint] = []
    ) {
        self.format = format
        self.boundingBox = boundingBox
        self.relativeBoundingBox = relativeBoundingBox
        self.relativeKeypoints = relativeKeypoints
    }

    enum CodingKeys: String, CodingKey {
        case format, boundingBox = "bounding_box", relativeBoundingBox = "relative_bounding_box", relativeKeypoints = "relative_keypoints"
    }
}
