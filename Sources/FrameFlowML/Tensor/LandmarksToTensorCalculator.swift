import FrameFlow
import FrameFlowInference

/// Writes one landmark list as a float tensor, as MediaPipe's `LandmarksToTensorCalculator`
/// (FaceBlendshapesGraph feeds the blendshapes model this way).
///
/// Each landmark gives one value per `attributes` entry, in that order; the tensor is
/// `[1, n, attributes]`, or `[1, n × attributes]` with `flatten`. Normalised landmarks need
/// `IMAGE_SIZE` and are scaled to pixels: X and Z × width, Y × height; VISIBILITY and
/// PRESENCE are never scaled (absent ones count as 0, as an unset proto field reads).
/// Absolute landmarks (`LANDMARKS`) are written as they are.
///
/// Inputs:
///   - `LANDMARKS` (LandmarkList) or `NORM_LANDMARKS` (NormalizedLandmarkList): exactly one.
///   - `IMAGE_SIZE` (ImageSize): with `NORM_LANDMARKS` only, and then required.
/// Outputs:
///   - `TENSORS` ([Tensor]): one float32 tensor.
/// Options: `mediapipe.LandmarksToTensorCalculatorOptions` { attributes (X, Y, Z, VISIBILITY,
///   PRESENCE; at least one), flatten (false) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarksToTensorCalculator"
///   input_stream: "NORM_LANDMARKS:face_landmarks"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "TENSORS:landmark_tensors"
///   options { [mediapipe.LandmarksToTensorCalculatorOptions.ext] { attributes: [X, Y] flatten: false } }
/// }
/// ```
public final class LandmarksToTensorCalculator: Calculator {
    /// `mediapipe.LandmarksToTensorCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LandmarksToTensorCalculatorOptions"
        /// mediapipe/calculators/tensor/landmarks_to_tensor_calculator.proto, for binary graphs.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.landmarksToTensorCalculatorOptions }

        /// One value of a landmark.
        public enum Attribute: String, Codable, Sendable {
            case x = "X", y = "Y", z = "Z", visibility = "VISIBILITY", presence = "PRESENCE"
        }

        /// The values written per landmark, in order.
        public var attributes: [Attribute] = []
        /// `[1, n × attributes]` instead of `[1, n, attributes]`.
        public var flatten = false
        public init() {}
        /// Options writing `attributes`, flattened or not.
        public init(attributes: [Attribute], flatten: Bool = false) {
            self.attributes = attributes
            self.flatten = flatten
        }
        public func validate() throws {
            if attributes.isEmpty { throw GraphError(.invalidOption, "attributes: at least one attribute must be given") }
        }
    }

    /// Absolute landmarks, written as they are.
    public static let landmarks = InputPort<LandmarkList>("LANDMARKS", optional: true)
    /// Normalised landmarks, scaled to `IMAGE_SIZE`'s pixels.
    public static let normLandmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS", optional: true)
    /// The image the normalised landmarks are in.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// The one tensor.
    public static let tensors = OutputPort<[Tensor]>("TENSORS")

    public static let contract = CalculatorContract(ports: [landmarks, normLandmarks, imageSize, tensors])

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        guard cc.isConnected(Self.landmarks) != cc.isConnected(Self.normLandmarks) else {
            throw GraphError(.invalidPort, "connect exactly one of LANDMARKS and NORM_LANDMARKS", node: cc.nodeName)
        }
        guard cc.isConnected(Self.normLandmarks) == cc.isConnected(Self.imageSize) else {
            throw GraphError(.invalidPort, "IMAGE_SIZE goes with NORM_LANDMARKS, and only with it", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let rows: [[Double]]
        if cc.isConnected(Self.landmarks) {
            guard let list = try cc.value(Self.landmarks) else { return }
            rows = list.landmark.map { p in options.attributes.map { Self.value(of: $0, x: p.x, y: p.y, z: p.z, p.visibility, p.presence) } }
        } else {
            guard let list = try cc.value(Self.normLandmarks) else { return }
            guard let size = try cc.value(Self.imageSize) else {
                throw GraphError(.calculatorFailed, "IMAGE_SIZE has no packet at \(cc.inputTimestamp) for the landmarks", node: cc.nodeName)
            }
            let scales = options.attributes.map { Self.scale(of: $0, size) }
            rows = list.landmark.map { p in
                zip(options.attributes, scales).map { Self.value(of: $0, x: p.x, y: p.y, z: p.z, p.visibility, p.presence) * $1 }
            }
        }
        let n = rows.count, k = options.attributes.count
        let shape = options.flatten ? [1, n * k] : [1, n, k]
        try cc.emit([Tensor(shape: shape, floats: rows.flatMap { $0.map(Float.init) })], to: Self.tensors)
    }

    /// One attribute of a landmark (an absent visibility or presence reads as 0).
    static func value(of a: Options.Attribute, x: Double, y: Double, z: Double, _ visibility: Double?, _ presence: Double?) -> Double {
        switch a {
        case .x: return x
        case .y: return y
        case .z: return z
        case .visibility: return visibility ?? 0
        case .presence: return presence ?? 0
        }
    }

    /// The factor a normalised attribute is multiplied by: X and Z the width, Y the height.
    static func scale(of a: Options.Attribute, _ size: ImageSize) -> Double {
        switch a {
        case .x, .z: return Double(size.width)
        case .y: return Double(size.height)
        case .visibility, .presence: return 1
        }
    }
}
