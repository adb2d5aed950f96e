/// MediaPipe's `LocationData`: where a detection is, as an absolute box (pixels), a relative
/// box (fractions of the image) and relative keypoints.
public struct LocationData: Sendable, Hashable, Codable {
    /// Which of the boxes is the detection's own.
    public enum Format: String, Sendable, Codable {
        /// The whole image, a pixel box, a relative box, or a mask (as MediaPipe names them).
        case global = "GLOBAL", boundingBox = "BOUNDING_BOX", relativeBoundingBox = "RELATIVE_BOUNDING_BOX", mask = "MASK"
    }

    /// An axis-aligned box by its top-left corner, with coordinates of type `Scalar`; the
    /// pixel and relative boxes share it.
    public struct Box<Scalar: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
        /// Left edge.
        public var xmin: Scalar
        /// Top edge.
        public var ymin: Scalar
        /// Width.
        public var width: Scalar
        /// Height.
        public var height: Scalar
        /// The box with top-left corner (`xmin`, `ymin`).
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
        /// Horizontal position, a fraction of the width.
        public var x: Double
        /// Vertical position, a fraction of the height.
        public var y: Double
        /// The keypoint's name, when given.
        public var keypointLabel: String?
        /// The keypoint's score, when given.
        public var score: Double?
        /// The keypoint at (`x`, `y`).
        public init(x: Double, y: Double, keypointLabel: String? = nil, score: Double? = nil) {
            self.x = x
            self.y = y
            self.keypointLabel = keypointLabel
            self.score = score
        }
        enum CodingKeys: String, CodingKey { case x, y, keypointLabel = "keypoint_label", score }
    }

    /// Which box is the detection's own.
    public var format: Format
    /// The box in pixels (`BOUNDING_BOX`).
    public var boundingBox: BoundingBox?
    /// The box in fractions of the image (`RELATIVE_BOUNDING_BOX`).
    public var relativeBoundingBox: RelativeBoundingBox?
    /// Keypoints in fractions of the image (eyes, nose, … for faces).
    public var relativeKeypoints: [RelativeKeypoint]

    /// Location data in `format` with the boxes and keypoints given.
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
