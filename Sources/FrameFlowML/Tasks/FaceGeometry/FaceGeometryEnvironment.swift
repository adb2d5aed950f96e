import FrameFlow

/// MediaPipe's `face_geometry.proto.Environment`: the virtual camera the face geometry
/// pipeline places faces in front of (`FaceGeometryEnvGeneratorCalculator` makes it from
/// options, `FaceGeometryPipelineCalculator` reads it). Field names follow the proto, so it
/// is written in graph files as `environment { origin_point_location: TOP_LEFT_CORNER
/// perspective_camera { vertical_fov_degrees: 63 near: 1 far: 10000 } }`.
public struct FaceGeometryEnvironment: Sendable, Hashable, Codable {
    /// Where the landmarks' (0, 0) is in the image.
    public enum OriginPointLocation: String, Sendable, Hashable, Codable {
        /// y grows upwards (OpenGL's convention); the proto's default.
        case bottomLeftCorner = "BOTTOM_LEFT_CORNER"
        /// y grows downwards, as MediaPipe's normalized landmarks do.
        case topLeftCorner = "TOP_LEFT_CORNER"
    }

    /// A pinhole camera: the vertical field of view and the near and far planes (cm).
    public struct PerspectiveCamera: Sendable, Hashable, Codable {
        /// Vertical field of view, degrees, in (0, 180).
        public var verticalFovDegrees: Float = 0
        /// Distance of the near plane, > 0.
        public var near: Float = 0
        /// Distance of the far plane, > `near`.
        public var far: Float = 0

        /// A camera with a `verticalFovDegrees` field of view and planes at `near` and `far`.
        public init(verticalFovDegrees: Float = 0, near: Float = 0, far: Float = 0) {
            self.verticalFovDegrees = verticalFovDegrees
            self.near = near
            self.far = far
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            verticalFovDegrees = try c.decodeIfPresent(Float.self, forKey: .verticalFovDegrees) ?? 0
            near = try c.decodeIfPresent(Float.self, forKey: .near) ?? 0
            far = try c.decodeIfPresent(Float.self, forKey: .far) ?? 0
        }
    }

    /// Where the landmarks' origin is.
    public var originPointLocation = OriginPointLocation.bottomLeftCorner
    /// The camera.
    public var perspectiveCamera = PerspectiveCamera()

    /// An environment; the defaults are the proto's (bottom-left origin, an all-zero camera,
    /// which `validate()` refuses).
    public init(originPointLocation: OriginPointLocation = .bottomLeftCorner, perspectiveCamera: PerspectiveCamera = .init()) {
        self.originPointLocation = originPointLocation
        self.perspectiveCamera = perspectiveCamera
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        originPointLocation = try c.decodeIfPresent(OriginPointLocation.self, forKey: .originPointLocation) ?? .bottomLeftCorner
        perspectiveCamera = try c.decodeIfPresent(PerspectiveCamera.self, forKey: .perspectiveCamera) ?? .init()
    }

    /// What MediaPipe's `FaceGeometryFromLandmarksGraph` uses: top-left origin, 63° vertical
    /// field of view, near 1 cm, far 10 000 cm.
    public static let faceLandmarker = FaceGeometryEnvironment(
        originPointLocation: .topLeftCorner, perspectiveCamera: .init(verticalFovDegrees: 63, near: 1, far: 10000))

    /// Throws `GraphError(.invalidOption)` naming the field unless the camera is usable, with
    /// MediaPipe's margins: finite values, near > 1e-9, far > near + 1e-9, field of view in
    /// (1e-9, 180 − 1e-9) degrees.
    public func validate() throws {
        let c = perspectiveCamera
        let eps: Float = 1e-9
        for (name, v) in [("vertical_fov_degrees", c.verticalFovDegrees), ("near", c.near), ("far", c.far)] where !v.isFinite {
            throw GraphError(.invalidOption, "environment.perspective_camera.\(name) is \(v): it must be finite")
        }
        guard c.near > eps else {
            throw GraphError(.invalidOption, "environment.perspective_camera.near is \(c.near): it must be greater than 0")
        }
        guard c.far > c.near + eps else {
            throw GraphError(.invalidOption, "environment.perspective_camera.far is \(c.far): it must be greater than near (\(c.near))")
        }
        guard c.verticalFovDegrees > eps, c.verticalFovDegrees + eps < 180 else {
            throw GraphError(
                .invalidOption, "environment.perspective_camera.vertical_fov_degrees is \(c.verticalFovDegrees): it must be in (0, 180)")
        }
    }
}
