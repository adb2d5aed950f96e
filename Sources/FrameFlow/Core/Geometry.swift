/// A rectangle in pixels (or normalized units where a calculator says so).
public struct Rect: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double

    /// A rectangle with top-left corner (`x`, `y`).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Right edge: `x + width`.
    public var maxX: Double { x + width }
    /// Bottom edge: `y + height`.
    public var maxY: Double { y + height }
    /// Width × height, 0 for an empty or negative size.
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
    /// Horizontal coordinate.
    public var x: Double
    /// Vertical coordinate (down).
    public var y: Double
    /// The point (`x`, `y`).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
