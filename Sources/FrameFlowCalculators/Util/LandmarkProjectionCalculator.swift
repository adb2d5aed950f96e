import Foundation
import FrameFlow

/// Maps landmarks from a region of interest back into the image, as MediaPipe's
/// `LandmarkProjectionCalculator` does.
///
/// With `NORM_RECT` alone each landmark is turned about the rect's centre by its rotation
/// (unless `ignore_rotation`), scaled by the rect's width and height and moved to its centre;
/// z is scaled by the rect's width (exact only for a square region in a square image). With
/// `NORM_RECT` and `IMAGE_DIMENSIONS` the rect is taken in pixels and the landmarks go through
/// the matrix of that rotated sub-rectangle. With `PROJECTION_MATRIX` they go through that
/// matrix: x' = m0·x + m1·y + m2·z + m3, y' = m4·x + m5·y + m6·z + m7. With a matrix z is
/// scaled by the length of the projected unit segment (0,0)–(1,0). Visibility and presence are
/// kept. A timestamp without the rect (or matrix, or dimensions) gives nothing.
///
/// Inputs:
///   - `NORM_LANDMARKS` (indexed, one or more): `NormalizedLandmarkList`.
///   - `NORM_RECT`: `NormalizedRect`, or `PROJECTION_MATRIX`: `ProjectionMatrix` (exactly one).
///   - `IMAGE_DIMENSIONS`: `ImageSize` (optional, only with `NORM_RECT`).
/// Outputs:
///   - `NORM_LANDMARKS` (indexed, as many as the inputs): `NormalizedLandmarkList`, the
///     projection of the input of the same index.
/// Options: `mediapipe.LandmarkProjectionCalculatorOptions` { ignore_rotation }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarkProjectionCalculator"
///   input_stream: "NORM_LANDMARKS:landmarks"
///   input_stream: "NORM_RECT:roi"
///   output_stream: "NORM_LANDMARKS:projected_landmarks"
/// }
/// ```
public final class LandmarkProjectionCalculator: Calculator {
    /// MediaPipe's `LandmarkProjectionCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LandmarkProjectionCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.landmarkProjectionCalculatorOptions }

        public var ignoreRotation = false
        public init() {}
        public init(ignoreRotation: Bool) { self.ignoreRotation = ignoreRotation }
    }

    /// The landmark lists to project (one output per input index).
    public static let landmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS", repeated: true)
    /// The crop the landmarks are relative to (with `IMAGE_DIMENSIONS` for non-square images).
    public static let rect = InputPort<NormalizedRect>("NORM_RECT", optional: true)
    /// A 4 × 4 projection instead of a rectangle.
    public static let matrix = InputPort<ProjectionMatrix>("PROJECTION_MATRIX", optional: true)
    /// The image size, with `NORM_RECT`.
    public static let imageSize = InputPort<ImageSize>("IMAGE_DIMENSIONS", optional: true)
    /// The projected lists.
    public static let projected = OutputPort<NormalizedLandmarkList>("NORM_LANDMARKS", repeated: true)

    public static let contract = CalculatorContract(ports: [landmarks, rect, matrix, imageSize, projected])

    private let options: Options
    private var indexes: [Int] = []

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        indexes = cc.indexes(Self.landmarks)
        let outs = cc.outputPorts.filter { $0.tag == Self.projected.tag }.map(\.index).sorted()
        guard !indexes.isEmpty, outs == indexes else {
            throw GraphError(
                .invalidPort,
                "NORM_LANDMARKS: one output per input is needed (\(indexes.count) inputs, \(outs.count) outputs)",
                node: cc.nodeName)
        }
        let rect = cc.isConnected(Self.rect), matrix = cc.isConnected(Self.matrix)
        guard rect != matrix else {
            throw GraphError(.invalidPort, "either NORM_RECT or PROJECTION_MATRIX is needed, not both or neither", node: cc.nodeName)
        }
        if cc.isConnected(Self.imageSize) && !rect {
            throw GraphError(.invalidPort, "IMAGE_DIMENSIONS goes only with NORM_RECT", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let project: (NormalizedLandmark) -> NormalizedLandmark
        if cc.isConnected(Self.rect) {
            guard let rect = try cc.value(Self.rect) else { return }
            if cc.isConnected(Self.imageSize) {
                guard let size = try cc.value(Self.imageSize) else { return }
                let m = ProjectionMatrix.rotatedSubRect(
                    centerX: Double(Float(rect.xCenter) * Float(size.width)),
                    centerY: Double(Float(rect.yCenter) * Float(size.height)),
                    width: Double(Float(rect.width) * Float(size.width)), height: Double(Float(rect.height) * Float(size.height)),
                    rotation: options.ignoreRotation ? 0 : rect.rotation, imageWidth: size.width, imageHeight: size.height)
                project = Self.projector(m)
            } else {
                project = Self.projector(rect, ignoreRotation: options.ignoreRotation)
            }
        } else {
            guard let matrix = try cc.value(Self.matrix) else { return }
            project = Self.projector(matrix)
        }
        for i in indexes {
            guard let list = try cc.value(Self.landmarks, i) else { continue }
            try cc.emit(NormalizedLandmarkList(list.landmark.map(project)), to: Self.projected, index: i)
        }
    }

    /// The projection through `rect` (in normalized coordinates; z scaled by its width).
    public static func projector(_ rect: NormalizedRect, ignoreRotation: Bool) -> (NormalizedLandmark) -> NormalizedLandmark {
        let angle = ignoreRotation ? 0 : Float(rect.rotation)
        let c = cos(angle), s = sin(angle)
        let w = Float(rect.width), h = Float(rect.height), cx = Float(rect.xCenter), cy = Float(rect.yCenter)
        return { p in
            let x = Float(p.x) - 0.5, y = Float(p.y) - 0.5
            var q = p
            q.x = Double((c * x - s * y) * w + cx)
            q.y = Double((s * x + c * y) * h + cy)
            q.z = Double(Float(p.z) * w)
            return q
        }
    }

    /// The projection through `matrix`, z scaled by the length of the projected unit x segment.
    public static func projector(_ matrix: ProjectionMatrix) -> (NormalizedLandmark) -> NormalizedLandmark {
        let m = matrix.values
        let zScale = (m[0] * m[0] + m[4] * m[4]).squareRoot()
        return { p in
            let x = Float(p.x), y = Float(p.y), z = Float(p.z)
            var q = p
            q.x = Double(x * m[0] + y * m[1] + z * m[2] + m[3])
            q.y = Double(x * m[4] + y * m[5] + z * m[6] + m[7])
            q.z = Double(zScale * z)
            return q
        }
    }
}
