/// MediaPipe's `Landmark`: a point in world or pixel units with optional visibility and
/// presence (probabilities in 0…1).
public struct Landmark: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var z: Double
    public var visibility: Double?
    public var presence: Double?

    public init(x: Double, y: Double, z: Double = 0, visibility: Double? = nil, presence: Double? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}

/// MediaPipe's `NormalizedLandmark`: x and y in fractions of the image's width and height, z in
/// roughly the same scale as x (depth, smaller is closer).
public struct NormalizedLandmark: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var z: Double
    public var visibility: Double?
    public var presence: Double?

    public init(x: Double, y: Double, z: Double = 0, visibility: Double? = nil, presence: Double? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}

/// MediaPipe's `LandmarkList` (JSON: `{"landmark": […]}`).
public struct LandmarkList: Sendable, Hashable, Codable {
    public var landmark: [Landmark]
    public init(_ landmark: [Landmark] = []) { self.landmark = landmark }
}

/// MediaPipe's `NormalizedLandmarkList` (JSON: `{"landmark": […]}`).
public struct NormalizedLandmarkList: Sendable, Hashable, Codable {
    public var landmark: [NormalizedLandmark]
    public init(_ landmark: [NormalizedLandmark] = []) { self.landmark = landmark }
}
