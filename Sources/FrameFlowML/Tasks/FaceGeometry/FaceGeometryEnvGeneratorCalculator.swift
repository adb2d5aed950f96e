import FrameFlow

/// The face geometry pipeline's virtual camera as a side packet, as MediaPipe's
/// `FaceGeometryEnvGeneratorCalculator`: its options' `environment`, checked when the graph is
/// built.
///
/// Inputs: none. Outputs: none.
/// Side packets out: `ENVIRONMENT` (`FaceGeometryEnvironment`).
/// Options: `mediapipe.tasks.vision.face_geometry.FaceGeometryEnvGeneratorCalculatorOptions` {
///   environment { origin_point_location (BOTTOM_LEFT_CORNER, the default, or
///   TOP_LEFT_CORNER), perspective_camera { vertical_fov_degrees in (0, 180), near > 0,
///   far > near } } }. A camera outside those bounds (zero, negative, NaN, infinite) is an
///   error naming the field.
///
/// Example usage:
/// ```
/// node {
///   calculator: "FaceGeometryEnvGeneratorCalculator"
///   output_side_packet: "ENVIRONMENT:environment"
///   options { [mediapipe.tasks.vision.face_geometry.FaceGeometryEnvGeneratorCalculatorOptions.ext] {
///     environment { origin_point_location: TOP_LEFT_CORNER
///       perspective_camera { vertical_fov_degrees: 63 near: 1 far: 10000 } } } }
/// }
/// ```
public final class FaceGeometryEnvGeneratorCalculator: Calculator {
    /// The name MediaPipe's expanded FaceLandmarker graphs use.
    public static var aliases: [String] { ["mediapipe.tasks.vision.face_geometry.FaceGeometryEnvGeneratorCalculator"] }
    /// The environment to give.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.tasks.vision.face_geometry.FaceGeometryEnvGeneratorCalculatorOptions"
        public static var protoSchema: ProtoSchema? {
            MediaPipeOptionSchemas.tasksVisionFace_geometryFaceGeometryEnvGeneratorCalculatorOptions
        }
        /// The camera and the landmarks' origin.
        public var environment = FaceGeometryEnvironment()
        public init() {}
        /// Options giving `environment`.
        public init(environment: FaceGeometryEnvironment) { self.environment = environment }
        public func validate() throws { try environment.validate() }
    }

    /// The environment.
    public static let environmentOut = OutputSidePacket<FaceGeometryEnvironment>("ENVIRONMENT")

    public static let contract = CalculatorContract(ports: [environmentOut])

    private let environment: FaceGeometryEnvironment

    public init(options: Options) throws {
        try options.validate()
        environment = options.environment
    }

    public func open(_ cc: CalculatorContext) throws { try cc.set(environment, to: Self.environmentOut) }

    /// Nothing per frame: the output is a side packet.
    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}
