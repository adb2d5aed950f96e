/// A rotated rectangle by its centre, with coordinates of type `Scalar`; MediaPipe's
/// `NormalizedRect` (`Double`, fractions of the image) and `Rect` (`Int`, pixels) share it.
/// JSON uses MediaPipe's field names (`x_center`, `rect_id`, …).
public struct CenteredRect<Scalar: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// Horizontal centre.
    public var xCenter: Scalar
    /// Vertical centre.
    public var yCenter: Scalar
    /// Width before rotation.
    public var width: Scalar
    /// Height before rotation.
    public var height: Scalar
    /// Clockwise rotation in radians.
    public var rotation: Double
    /// MediaPipe's `rect_id`, set by trackers.
    public var rectID: Int64?

    /// The rectangle centred at (`xCenter`, `yCenter`).
    public init(xCenter: Scalar, yCenter: Scalar, width: Scalar, height: Scalar, rotation: Double = 0, rectID: Int64? = nil) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
        self.rectID = rectID
    }

    enum CodingKeys: String, CodingKey {
        case xCenter = "x_center", yCenter = "y_center", width, height, rotation, rectID = "rect_id"
    }
}

/// MediaPipe's `NormalizedRect`: a rotated rectangle in fractions of the image's width and
/// height, by its centre.
public typealias NormalizedRect = CenteredRect<Double>
/// MediaPipe's `Rect`: a rotated rectangle in pixels, by its centre.
public typealias RotatedRect = CenteredRect<Int>
