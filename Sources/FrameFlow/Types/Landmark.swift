/// The coordinate space of a `LandmarkPoint`: a phantom type that keeps world/pixel and
/// normalized landmarks apart while sharing one definition. Never instantiated.
public enum AbsoluteCoordinates: Sendable {}
/// Fractions of the image's width and height (see `NormalizedLandmark`).
public enum NormalizedCoordinates: Sendable {}

/// A MediaPipe landmark in the coordinate space `Space`: a point with optional visibility and
/// presence (probabilities in 0…1). Use the aliases `Landmark` and `NormalizedLandmark`.
public struct LandmarkPoint<Space>: Sendable, Hashable, Codable {
    /// Horizontal coordinate.
    public var x: Double
    /// Vertical coordinate (down).
    public var y: Double
    /// Depth (smaller is nearer the camera), in about the scale of `x`.
    public var z: Double
    /// Probability that the point is visible (not occluded), when the model gives one.
    public var visibility: Double?
    /// Probability that the point is in the image, when the model gives one.
    public var presence: Double?

    /// The point (`x`, `y`, `z`).
    public init(x: Double, y: Double, z: Double = 0, visibility: Double? = nil, presence: Double? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}

/// A MediaPipe landmark list (JSON: `{"landmark": […]}`) in the coordinate space `Space`.
public struct LandmarkPointList<Space>: Sendable, Hashable, Codable {
    /// The landmarks, in the model's order.
    public var landmark: [LandmarkPoint<Space>]
    /// A list of `landmark`.
    public init(_ landmark: [LandmarkPoint<Space>] = []) { self.landmark = landmark }
}

/// MediaPipe's `Landmark`: a point in world or pixel units.
public typealias Landmark = LandmarkPoint<AbsoluteCoordinates>
/// MediaPipe's `NormalizedLandmark`: x and y in fractions of the image's width and height, z in
/// roughly the same scale as x (depth, smaller is closer).
public typealias NormalizedLandmark = LandmarkPoint<NormalizedCoordinates>
/// MediaPipe's `LandmarkList` (JSON: `{"landmark": […]}`).
public typealias LandmarkList = LandmarkPointList<AbsoluteCoordinates>
/// MediaPipe's `NormalizedLandmarkList` (JSON: `{"landmark": […]}`).
public typealias NormalizedLandmarkList = LandmarkPointList<NormalizedCoordinates>
