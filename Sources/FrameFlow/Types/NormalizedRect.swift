/// MediaPipe's `NormalizedRect`: a rotated rectangle in fractions of the image's width and
/// height, by its centre. JSON uses MediaPipe's field names (`x_center`, `rect_id`, …).
public struct NormalizedRect: Sendable, Hashable, Codable {
    public var xCenter: Double
    public var yCenter: Double
    public var width: Double
    public var height: Double
    /// Clockwise rotation in radians.
    public var rotation: Double
    public var rectID: Int64?

    public init(xCenter: Double, yCenter: Double, width: Double, height: Double, rotation: Double = 0, rectID: Int64? = nil) {
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

/// MediaPipe's `Rect`: a rotated rectangle in pixels, by its centre.
public struct RotatedRect: Sendable, Hashable, Codable {
    public var xCenter: Int
    public var yCenter: Int
    public var width: Int
    public var height: Int
    /// Clockwise rotation in radians.
    public var rotation: Double
    public var rectID: Int64?

    public init(xCenter: Int, yCenter: Int, width: Int, height: Int, rotation: Double = 0, rectID: Int64? = nil) {
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
