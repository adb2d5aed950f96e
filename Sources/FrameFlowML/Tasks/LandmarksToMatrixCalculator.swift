import Foundation
import FrameFlow

/// One hand's landmarks as a 3 × n matrix (x, y, z rows, one column per landmark), as MediaPipe
/// Tasks' `LandmarksToMatrixCalculator` prepares them for the gesture embedder. In order:
///   1. normalised landmarks only (`LANDMARKS`, needs `IMAGE_SIZE`): x and y rescaled about 0.5
///      by width / max(w, h) and height / max(w, h), so both axes share one unit;
///   2. with `NORM_RECT`: rotated about (0.5, 0.5) by −rotation (x′ = x cos r + y sin r,
///      y′ = y cos r − x sin r on the centred values), undoing the ROI's rotation;
///   3. with `object_normalization`: the landmark at `object_normalization_origin_offset` is
///      subtracted from every landmark, then x, y and z are divided by the larger of the x and y
///      extents + 1e-5.
/// All in single precision, as MediaPipe computes it.
///
/// Inputs: exactly one of `LANDMARKS` (NormalizedLandmarkList) and `WORLD_LANDMARKS`
///   (LandmarkList); `IMAGE_SIZE` (ImageSize, needed with `LANDMARKS`); `NORM_RECT`
///   (NormalizedRect, optional).
/// Outputs: `LANDMARKS_MATRIX` (Matrix, 3 × n).
/// Options: `mediapipe.LandmarksToMatrixCalculatorOptions` { object_normalization (false),
///   object_normalization_origin_offset (0, must name a landmark) }.
/// An empty list with object normalisation, an origin past the list's end, or an image size
/// without area is an error naming the node.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarksToMatrixCalculator"
///   input_stream: "LANDMARKS:hand_landmarks"
///   input_stream: "IMAGE_SIZE:image_size"
///   input_stream: "NORM_RECT:norm_rect"
///   output_stream: "LANDMARKS_MATRIX:landmarks_matrix"
///   options { [mediapipe.LandmarksToMatrixCalculatorOptions.ext] { object_normalization: true } }
/// }
/// ```
public final class LandmarksToMatrixCalculator: Calculator {
    /// MediaPipe's `LandmarksToMatrixCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LandmarksToMatrixCalculatorOptions"
        /// Move the origin landmark to 0 and scale by the hand's extent.
        public var objectNormalization = false
        /// Which landmark is the origin.
        public var objectNormalizationOriginOffset = 0
        public init() {}
        /// Options with object normalisation about landmark `origin`.
        public init(objectNormalization: Bool, objectNormalizationOriginOffset: Int = 0) {
            self.objectNormalization = objectNormalization
            self.objectNormalizationOriginOffset = objectNormalizationOriginOffset
        }

        public func validate() throws {
            try OptionCheck.range(objectNormalizationOriginOffset, 0...Int(Int32.max), "object_normalization_origin_offset")
        }
    }

    /// Normalised landmarks.
    public static let landmarks = InputPort<NormalizedLandmarkList>("LANDMARKS", optional: true)
    /// World landmarks.
    public static let worldLandmarks = InputPort<LandmarkList>("WORLD_LANDMARKS", optional: true)
    /// The image the normalised landmarks belong to.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// The region whose rotation is undone.
    public static let normRect = InputPort<NormalizedRect>("NORM_RECT", optional: true)
    /// The 3 × n matrix.
    public static let matrix = OutputPort<Matrix>("LANDMARKS_MATRIX")

    public static let contract = CalculatorContract(ports: [landmarks, worldLandmarks, imageSize, normRect, matrix])

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        guard cc.isConnected(Self.landmarks) != cc.isConnected(Self.worldLandmarks) else {
            throw GraphError(.invalidPort, "connect exactly one of LANDMARKS and WORLD_LANDMARKS", node: cc.nodeName)
        }
        if cc.isConnected(Self.landmarks), !cc.isConnected(Self.imageSize) {
            throw GraphError(.invalidPort, "LANDMARKS needs IMAGE_SIZE", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        var points: [(x: Float, y: Float, z: Float)]
        if cc.isConnected(Self.landmarks) {
            guard let list = try cc.value(Self.landmarks) else { return }
            guard let size = try cc.value(Self.imageSize) else {
                throw GraphError(.calculatorFailed, "no IMAGE_SIZE with the landmarks", node: cc.nodeName)
            }
            let (w, h) = (Float(size.width), Float(size.height))
            let longest = max(w, h)
            guard longest > 0 else { throw GraphError(.calculatorFailed, "image size \(size) has no area", node: cc.nodeName) }
            let (sx, sy) = (w / longest, h / longest)
            points = list.landmark.map { p in
                (Float((Double(Float(p.x)) - 0.5) * Double(sx) + 0.5), Float((Double(Float(p.y)) - 0.5) * Double(sy) + 0.5), Float(p.z))
            }
        } else {
            guard let list = try cc.value(Self.worldLandmarks) else { return }
            points = list.landmark.map { (Float($0.x), Float($0.y), Float($0.z)) }
        }
        if cc.isConnected(Self.normRect) {
            guard let rect = try cc.value(Self.normRect) else {
                throw GraphError(.calculatorFailed, "no NORM_RECT with the landmarks", node: cc.nodeName)
            }
            let r = Float(rect.rotation)
            let (c, s) = (cos(r), sin(-r))
            points = points.map { p in
                let x = p.x - 0.5, y = p.y - 0.5
                return (x * c - y * s + 0.5, y * c + x * s + 0.5, p.z)
            }
        }
        if options.objectNormalization {
            points = try normalized(points, cc)
        }
        var m = Matrix(rows: 3, cols: points.count)
        for (i, p) in points.enumerated() {
            m[0, i] = p.x
            m[1, i] = p.y
            m[2, i] = p.z
        }
        try cc.emit(m, to: Self.matrix)
    }

    /// `points` moved so the origin landmark is at 0 and divided by the larger x/y extent.
    private func normalized(_ points: [(x: Float, y: Float, z: Float)], _ cc: CalculatorContext) throws -> [(x: Float, y: Float, z: Float)] {
        let k = options.objectNormalizationOriginOffset
        guard k < points.count else {
            throw GraphError(
                .calculatorFailed, "object_normalization_origin_offset \(k) is past the \(points.count) landmarks", node: cc.nodeName)
        }
        let o = points[k]
        let moved = points.map { ($0.x - o.x, $0.y - o.y, $0.z - o.z) }
        // The origin itself is at 0, so both extents include 0 (MediaPipe starts max at FLT_MIN).
        let xs = moved.map(\.0), ys = moved.map(\.1)
        let scale = max((xs.max() ?? 0) - (xs.min() ?? 0), (ys.max() ?? 0) - (ys.min() ?? 0)) + 1e-5
        return moved.map { ($0.0 / scale, $0.1 / scale, $0.2 / scale) }
    }
}
