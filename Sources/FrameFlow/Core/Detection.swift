/// A rectangle in pixels (or normalized units where a calculator says so).
public struct Rect: Sendable, Hashable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var area: Double { max(0, width) * max(0, height) }

    /// Intersection over union with `other` (0 when they do not overlap).
    public func iou(_ other: Rect) -> Double {
        let w = min(maxX, other.maxX) - max(x, other.x)
        let h = min(maxY, other.maxY) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        let inter = w * h
        return inter / (area + other.area - inter)
    }

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}

/// A point in pixels.
public struct Point: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// One detected object: a box in input-image pixels, a score, an optional label and
/// keypoints. Encodes to JSON as `{"box":{"x","y","width","height"},"score","label"}`.
public struct Detection: Sendable, Hashable, Codable {
    public var box: Rect
    public var score: Double
    public var label: String?
    public var labelID: Int?
    public var keypoints: [Point]

    public init(box: Rect, score: Double, label: String? = nil, labelID: Int? = nil, keypoints: [Point] = []) {
        self.box = box
        self.score = score
        self.label = label
        self.labelID = labelID
        self.keypoints = keypoints
    }

    enum CodingKeys: String, CodingKey { case box, score, label, labelID = "label_id", keypoints }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(box, forKey: .box)
        try c.encode(score, forKey: .score)
        try c.encodeIfPresent(label, forKey: .label)
        try c.encodeIfPresent(labelID, forKey: .labelID)
        if !keypoints.isEmpty { try c.encode(keypoints, forKey: .keypoints) }
    }
}
