import Foundation
import FrameFlow

/// Turns detections into rectangles, as MediaPipe's `DetectionsToRectsCalculator`: the
/// region a landmark model should look at next (face mesh, hands, pose).
///
/// The rect is the detection's box by its centre (`DEFAULT` / `USE_BOUNDING_BOX`; pixel boxes
/// for `RECT(S)`, relative boxes for `NORM_RECT(S)`), or the box around its relative
/// keypoints (`USE_KEYPOINTS`; pixel rects then round keypoint box × `IMAGE_SIZE`). A pixel
/// box's centre is `xmin + width / 2` in integers, as MediaPipe's `int32` proto fields give.
///
/// With `rotation_vector_start_keypoint_index` the rect is rotated so that the vector from
/// the start keypoint to the end keypoint (in pixels of `IMAGE_SIZE`, y pointing up) points
/// at the target angle: `rotation = normalize(target − atan2(−(y1 − y0), x1 − x0))`, in
/// [−π, π). A timestamp without an `IMAGE_SIZE` packet then gives no output.
///
/// An empty `DETECTIONS` vector gives no output, or with
/// `output_zero_rect_for_empty_detections` an all-zero `RECT` / `NORM_RECT`, or a
/// `NORM_RECTS` of one all-zero rect (`RECTS` still gets nothing, as in MediaPipe).
///
/// Inputs (exactly one of `DETECTION` and `DETECTIONS`):
///   - `DETECTION`: `Detection`.
///   - `DETECTIONS`: `[Detection]`; single-rect outputs use the first.
///   - `IMAGE_SIZE` (`ImageSize`, optional): needed for rotation and for `USE_KEYPOINTS` to `RECT(S)`.
/// Outputs (exactly one):
///   - `NORM_RECT`: `NormalizedRect`.
///   - `RECT`: `RotatedRect` (pixels).
///   - `NORM_RECTS`: `[NormalizedRect]`, one per detection.
///   - `RECTS`: `[RotatedRect]`, one per detection.
/// Options: `mediapipe.DetectionsToRectsCalculatorOptions` {
///   rotation_vector_start_keypoint_index, rotation_vector_end_keypoint_index (both or
///   neither; 0…1000000), rotation_vector_target_angle (−1000…1000 radians: MediaPipe Tasks' palm detector gives 90) |
///   rotation_vector_target_angle_degrees (−360…360) (exactly one with a start index),
///   output_zero_rect_for_empty_detections (false),
///   conversion_mode (DEFAULT | USE_BOUNDING_BOX | USE_KEYPOINTS) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "DetectionsToRectsCalculator"
///   input_stream: "DETECTION:face_detection"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "NORM_RECT:face_rect"
///   options {
///     [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
///       rotation_vector_start_keypoint_index: 0  # right eye
///       rotation_vector_end_keypoint_index: 1  # left eye
///       rotation_vector_target_angle_degrees: 0
///     }
///   }
/// }
/// ```
public class DetectionsToRectsCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.DetectionsToRectsCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.detectionsToRectsCalculatorOptions }

        /// Where the rect comes from.
        public enum ConversionMode: String, Codable, Sendable {
            /// The box (as `USE_BOUNDING_BOX`).
            case `default` = "DEFAULT"
            /// The detection's box: pixel for `RECT(S)`, relative for `NORM_RECT(S)`.
            case useBoundingBox = "USE_BOUNDING_BOX"
            /// The box around the relative keypoints (at least two).
            case useKeypoints = "USE_KEYPOINTS"
        }

        /// Keypoint the rotation vector starts at; set, it turns rotation on.
        public var rotationVectorStartKeypointIndex: Int?
        /// Keypoint the rotation vector ends at.
        public var rotationVectorEndKeypointIndex: Int?
        /// The angle (radians, counter-clockwise from +x) the vector should point at.
        public var rotationVectorTargetAngle: Double?
        /// The same in degrees.
        public var rotationVectorTargetAngleDegrees: Double?
        /// Emit a zero rect for an empty `DETECTIONS` vector instead of nothing.
        public var outputZeroRectForEmptyDetections = false
        public var conversionMode = ConversionMode.default
        public init() {}

        /// The target angle in radians, when rotation is on.
        var targetAngle: Double? {
            guard rotationVectorStartKeypointIndex != nil else { return nil }
            if let a = rotationVectorTargetAngle { return a }
            return rotationVectorTargetAngleDegrees.map { Double.pi * $0 / 180 }
        }

        public func validate() throws {
            if let start = rotationVectorStartKeypointIndex { try OptionCheck.range(start, 0...1_000_000, "rotation_vector_start_keypoint_index") }
            if let end = rotationVectorEndKeypointIndex { try OptionCheck.range(end, 0...1_000_000, "rotation_vector_end_keypoint_index") }
            guard rotationVectorStartKeypointIndex != nil else { return }
            guard rotationVectorEndKeypointIndex != nil else {
                throw GraphError(
                    .invalidOption, "rotation_vector_end_keypoint_index is required with rotation_vector_start_keypoint_index")
            }
            if let a = rotationVectorTargetAngle { try OptionCheck.range(a, -1000...1000, "rotation_vector_target_angle") }
            if let a = rotationVectorTargetAngleDegrees { try OptionCheck.range(a, -360...360, "rotation_vector_target_angle_degrees") }
            guard (rotationVectorTargetAngle == nil) != (rotationVectorTargetAngleDegrees == nil) else {
                throw GraphError(
                    .invalidOption,
                    "exactly one of rotation_vector_target_angle and rotation_vector_target_angle_degrees is required with "
                        + "rotation_vector_start_keypoint_index")
            }
        }
    }

    static let inputTags = ["DETECTION", "DETECTIONS"]
    static let outputTags = ["NORM_RECT", "RECT", "NORM_RECTS", "RECTS"]

    /// One detection (or `DETECTIONS`).
    public static let detection = InputPort<Detection>("DETECTION", optional: true)
    /// A list of detections (or `DETECTION`).
    public static let detections = InputPort<[Detection]>("DETECTIONS", optional: true)
    /// The image size, for pixel rects, keypoints and rotation.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// The first detection's normalized rect.
    public static let normRect = OutputPort<NormalizedRect>("NORM_RECT", optional: true)
    /// The first detection's pixel rect.
    public static let rect = OutputPort<RotatedRect>("RECT", optional: true)
    /// Every detection's normalized rect.
    public static let normRects = OutputPort<[NormalizedRect]>("NORM_RECTS", optional: true)
    /// Every detection's pixel rect.
    public static let rects = OutputPort<[RotatedRect]>("RECTS", optional: true)

    public static let contract = CalculatorContract(ports: [detection, detections, imageSize, normRect, rect, normRects, rects])

    public var options: Options

    public required init(options: Options) throws {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        _ = try cc.connectedInputTag(oneOf: Self.inputTags)
        _ = try cc.connectedOutputTag(oneOf: Self.outputTags)
        if options.targetAngle != nil, !cc.isConnected(Self.imageSize) {
            throw GraphError(
                .invalidPort, "rotation_vector_start_keypoint_index needs the IMAGE_SIZE input", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let imageSize = try cc.value(Self.imageSize)
        if options.targetAngle != nil, imageSize == nil { return }
        let detections: [Detection]
        if cc.isConnected(Self.detection) {
            guard let detection = try cc.value(Self.detection) else { return }
            detections = [detection]
        } else {
            guard let list = try cc.value(Self.detections) else { return }
            detections = list
        }
        if detections.isEmpty {
            guard options.outputZeroRectForEmptyDetections else { return }
            let zero = NormalizedRect(xCenter: 0, yCenter: 0, width: 0, height: 0)
            if cc.isConnected(Self.rect) { try cc.emit(RotatedRect(xCenter: 0, yCenter: 0, width: 0, height: 0), to: Self.rect) }
            if cc.isConnected(Self.normRect) { try cc.emit(zero, to: Self.normRect) }
            if cc.isConnected(Self.normRects) { try cc.emit([zero], to: Self.normRects) }
            return
        }
        if cc.isConnected(Self.rect) { try cc.emit(try pixelRect(detections[0], imageSize: imageSize), to: Self.rect) }
        if cc.isConnected(Self.normRect) { try cc.emit(try normalizedRect(detections[0], imageSize: imageSize), to: Self.normRect) }
        if cc.isConnected(Self.rects) { try cc.emit(try detections.map { try pixelRect($0, imageSize: imageSize) }, to: Self.rects) }
        if cc.isConnected(Self.normRects) {
            try cc.emit(try detections.map { try normalizedRect($0, imageSize: imageSize) }, to: Self.normRects)
        }
    }

    /// The pixel rect of `detection`.
    public func pixelRect(_ detection: Detection, imageSize: ImageSize?) throws -> RotatedRect {
        let location = detection.locationData
        var rect: RotatedRect
        switch options.conversionMode {
        case .default, .useBoundingBox:
            guard location.format == .boundingBox, let b = location.boundingBox else {
                throw GraphError(.calculatorFailed, "only BOUNDING_BOX detections convert to RECT (got \(location.format))")
            }
            rect = RotatedRect(xCenter: b.xmin + b.width / 2, yCenter: b.ymin + b.height / 2, width: b.width, height: b.height)
        case .useKeypoints:
            guard let size = imageSize else {
                throw GraphError(.calculatorFailed, "USE_KEYPOINTS to RECT needs an IMAGE_SIZE packet")
            }
            let n = try Self.keypointBox(location)
            let w = Double(size.width), h = Double(size.height)
            rect = RotatedRect(
                xCenter: Int(saturating: (n.xCenter * w).rounded()), yCenter: Int(saturating: (n.yCenter * h).rounded()),
                width: Int(saturating: (n.width * w).rounded()), height: Int(saturating: (n.height * h).rounded()))
        }
        if let angle = options.targetAngle { rect.rotation = try rotation(location, imageSize: imageSize, target: angle) }
        return rect
    }

    /// The normalized rect of `detection`.
    public func normalizedRect(_ detection: Detection, imageSize: ImageSize?) throws -> NormalizedRect {
        let location = detection.locationData
        var rect: NormalizedRect
        switch options.conversionMode {
        case .default, .useBoundingBox:
            guard location.format == .relativeBoundingBox, let b = location.relativeBoundingBox else {
                throw GraphError(
                    .calculatorFailed, "only RELATIVE_BOUNDING_BOX detections convert to NORM_RECT (got \(location.format))")
            }
            rect = NormalizedRect(xCenter: b.xmin + b.width / 2, yCenter: b.ymin + b.height / 2, width: b.width, height: b.height)
        case .useKeypoints:
            rect = try Self.keypointBox(location)
        }
        if let angle = options.targetAngle { rect.rotation = try rotation(location, imageSize: imageSize, target: angle) }
        return rect
    }

    /// The axis-aligned box around the relative keypoints, by its centre.
    static func keypointBox(_ location: LocationData) throws -> NormalizedRect {
        let points = location.relativeKeypoints
        guard points.count > 1 else {
            throw GraphError(.calculatorFailed, "USE_KEYPOINTS needs 2 or more keypoints, the detection has \(points.count)")
        }
        let xs = points.map(\.x), ys = points.map(\.y)
        let xmin = xs.min()!, xmax = xs.max()!, ymin = ys.min()!, ymax = ys.max()!
        return NormalizedRect(xCenter: (xmin + xmax) / 2, yCenter: (ymin + ymax) / 2, width: xmax - xmin, height: ymax - ymin)
    }

    /// The rotation that turns the start→end keypoint vector to `target` (radians, clockwise
    /// positive as `NormalizedRect.rotation`), normalized to [−π, π).
    func rotation(_ location: LocationData, imageSize: ImageSize?, target: Double) throws -> Double {
        guard let size = imageSize else { throw GraphError(.calculatorFailed, "rotation needs an IMAGE_SIZE packet") }
        let points = location.relativeKeypoints
        let start = options.rotationVectorStartKeypointIndex ?? 0, end = options.rotationVectorEndKeypointIndex ?? 0
        guard start < points.count, end < points.count else {
            throw GraphError(
                .calculatorFailed,
                "rotation_vector_start/end_keypoint_index (\(start), \(end)) out of range: the detection has \(points.count) keypoints")
        }
        let w = Double(size.width), h = Double(size.height)
        let x0 = points[start].x * w, y0 = points[start].y * h
        let x1 = points[end].x * w, y1 = points[end].y * h
        return normalizeRadians(target - atan2(-(y1 - y0), x1 - x0))
    }
}

/// `angle` moved by whole turns into [−π, π), as MediaPipe's `NormalizeRadians`.
func normalizeRadians(_ angle: Double) -> Double {
    angle - 2 * Double.pi * ((angle + Double.pi) / (2 * Double.pi)).rounded(.down)
}
