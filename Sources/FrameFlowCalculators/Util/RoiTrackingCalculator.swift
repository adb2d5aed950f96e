import Foundation
import FrameFlow

/// Chooses where an object is looked for on this frame, as MediaPipe's holistic
/// `RoiTrackingCalculator`: last frame's rect while the object stays where it was, else this
/// frame's re-crop rect (Holistic's hands and face).
///
/// With a `RECROP_RECT` and a `PREV_LANDMARKS_RECT` packet, last frame's rect is kept only if
/// every requirement the options set holds (in pixels of `IMAGE_SIZE`, single precision as
/// MediaPipe):
///   - `iou_requirements`: intersection ≥ min_iou × union, with both rects laid out as MediaPipe
///     does (the centre taken as the top-left corner; rotation ignored); rects that do not
///     overlap at all pass, as MediaPipe's empty rectangle has an infinite area;
///   - `rect_requirements`: in the frame of the re-crop rect (both centres turned by
///     −rotation), the rotations differ by at most rotation_degrees (wrapped to [0°, 180°]),
///     the centres by at most translation × the re-crop width (x) and height (y), the sizes by
///     at most scale × the re-crop width and height;
///   - `landmarks_requirements`: every previous landmark lies strictly inside the re-crop rect
///     grown by (1 + recrop_rect_margin), along its axes.
/// Without a re-crop rect there is no output; without a previous rect the re-crop rect goes
/// out as it is.
///
/// Inputs:
///   - `PREV_LANDMARKS`: `NormalizedLandmarkList`, last frame's landmarks (needed with a
///     previous rect).
///   - `PREV_LANDMARKS_RECT`: `NormalizedRect`, the rect made from them.
///   - `RECROP_RECT`: `NormalizedRect`, this frame's re-crop rect.
///   - `IMAGE_SIZE`: `ImageSize` (needed with both rects).
/// Outputs:
///   - `TRACKING_RECT`: `NormalizedRect`, one of the two rects.
/// Options: `mediapipe.RoiTrackingCalculatorOptions` (extension 329994630), each requirement
///   checked only when its message is present: `iou_requirements { min_iou (0.5, 0…1) }`,
///   `rect_requirements { rotation_degrees (10, 0…360), translation (0.1, 0…1e6), scale (0.1,
///   0…1e6) }`, `landmarks_requirements { recrop_rect_margin (0, −1…1e6) }`.
///
/// Example usage:
/// ```
/// node {
///   calculator: "RoiTrackingCalculator"
///   input_stream: "PREV_LANDMARKS:prev_hand_landmarks"
///   input_stream: "PREV_LANDMARKS_RECT:prev_hand_landmarks_rect"
///   input_stream: "RECROP_RECT:hand_recrop_rect"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "TRACKING_RECT:hand_tracking_rect"
///   options {
///     [mediapipe.RoiTrackingCalculatorOptions.ext] {
///       rect_requirements { rotation_degrees: 40.0 translation: 0.2 scale: 0.4 }
///       landmarks_requirements { recrop_rect_margin: -0.1 }
///     }
///   }
/// }
/// ```
public final class RoiTrackingCalculator: Calculator {
    /// MediaPipe's `RoiTrackingCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.RoiTrackingCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.roiTrackingCalculatorOptions }

        /// `IouRequirements`, with MediaPipe's default.
        public struct IouRequirements: Codable, Sendable, Equatable {
            public var minIou: Float = 0.5
            public init() {}
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                minIou = try c.decodeIfPresent(Float.self, forKey: .minIou) ?? 0.5
            }
            enum CodingKeys: String, CodingKey { case minIou }
        }

        /// `RectRequirements`, with MediaPipe's defaults.
        public struct RectRequirements: Codable, Sendable, Equatable {
            public var rotationDegrees: Float = 10
            public var translation: Float = 0.1
            public var scale: Float = 0.1
            public init() {}
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                rotationDegrees = try c.decodeIfPresent(Float.self, forKey: .rotationDegrees) ?? 10
                translation = try c.decodeIfPresent(Float.self, forKey: .translation) ?? 0.1
                scale = try c.decodeIfPresent(Float.self, forKey: .scale) ?? 0.1
            }
            enum CodingKeys: String, CodingKey { case rotationDegrees, translation, scale }
        }

        /// `LandmarksRequirements`, with MediaPipe's default.
        public struct LandmarksRequirements: Codable, Sendable, Equatable {
            public var recropRectMargin: Float = 0
            public init() {}
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                recropRectMargin = try c.decodeIfPresent(Float.self, forKey: .recropRectMargin) ?? 0
            }
            enum CodingKeys: String, CodingKey { case recropRectMargin }
        }

        /// Checked when present.
        public var iouRequirements: IouRequirements?
        /// Checked when present.
        public var rectRequirements: RectRequirements?
        /// Checked when present.
        public var landmarksRequirements: LandmarksRequirements?
        public init() {}

        public func validate() throws {
            if let i = iouRequirements { try OptionCheck.range(i.minIou, 0...1, "iou_requirements.min_iou") }
            if let r = rectRequirements {
                try OptionCheck.range(r.rotationDegrees, 0...360, "rect_requirements.rotation_degrees")
                try OptionCheck.range(r.translation, 0...1e6, "rect_requirements.translation")
                try OptionCheck.range(r.scale, 0...1e6, "rect_requirements.scale")
            }
            if let l = landmarksRequirements {
                try OptionCheck.range(l.recropRectMargin, -1...1e6, "landmarks_requirements.recrop_rect_margin")
            }
        }
    }

    /// Last frame's landmarks.
    public static let prevLandmarks = InputPort<NormalizedLandmarkList>("PREV_LANDMARKS")
    /// The rect made from last frame's landmarks.
    public static let prevLandmarksRect = InputPort<NormalizedRect>("PREV_LANDMARKS_RECT")
    /// This frame's re-crop rect.
    public static let recropRect = InputPort<NormalizedRect>("RECROP_RECT")
    /// The image size the rects are relative to.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE")
    /// The rect to look in on this frame.
    public static let trackingRect = OutputPort<NormalizedRect>("TRACKING_RECT")

    public static let contract = CalculatorContract(ports: [prevLandmarks, prevLandmarksRect, recropRect, imageSize, trackingRect])

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let recrop = try cc.value(Self.recropRect) else { return }
        guard let prevRect = try cc.value(Self.prevLandmarksRect) else {
            try cc.emit(recrop, to: Self.trackingRect)
            return
        }
        guard let landmarks = try cc.value(Self.prevLandmarks) else {
            throw GraphError(
                .calculatorFailed, "a previous rect at \(cc.inputTimestamp) came without its PREV_LANDMARKS", node: cc.nodeName,
                stream: cc.inputStreamName(Self.prevLandmarks.tag))
        }
        guard let size = try cc.value(Self.imageSize) else {
            throw GraphError(
                .calculatorFailed, "rects at \(cc.inputTimestamp) came without an IMAGE_SIZE packet", node: cc.nodeName,
                stream: cc.inputStreamName(Self.imageSize.tag))
        }
        let keep = Self.keepsTracking(options, previous: prevRect, landmarks: landmarks, recrop: recrop, imageSize: size)
        try cc.emit(keep ? prevRect : recrop, to: Self.trackingRect)
    }

    /// Whether every requirement of `options` holds, so that last frame's rect is kept.
    public static func keepsTracking(
        _ options: Options, previous: NormalizedRect, landmarks: NormalizedLandmarkList, recrop: NormalizedRect, imageSize: ImageSize
    ) -> Bool {
        let size = (Float(imageSize.width), Float(imageSize.height))
        var keep = true
        if let i = options.iouRequirements, !iouHolds(previous, recrop, size, minIou: i.minIou) { keep = false }
        if let r = options.rectRequirements, !rectHolds(previous, recrop, size, r) { keep = false }
        if let l = options.landmarksRequirements, !landmarksHold(landmarks, recrop, size, margin: l.recropRectMargin) { keep = false }
        return keep
    }

    /// Intersection ≥ min_iou × union, of the rects as MediaPipe builds them (centre used as
    /// the top-left corner); disjoint rects pass, as MediaPipe's empty rect has area +∞.
    static func iouHolds(_ a: NormalizedRect, _ b: NormalizedRect, _ size: (Float, Float), minIou: Float) -> Bool {
        func box(_ r: NormalizedRect) -> (x0: Float, y0: Float, x1: Float, y1: Float, area: Float) {
            let x = Float(r.xCenter) * size.0, y = Float(r.yCenter) * size.1
            let w = Float(r.width) * size.0, h = Float(r.height) * size.1
            return (x, y, x + w, y + h, w * h)
        }
        let p = box(a), q = box(b)
        let x0 = max(p.x0, q.x0), y0 = max(p.y0, q.y0), x1 = min(p.x1, q.x1), y1 = min(p.y1, q.y1)
        let intersection: Float = (x0 > x1 || y0 > y1) ? .infinity : (x1 - x0) * (y1 - y0)
        let union = p.area + q.area - intersection
        return !(intersection < union * minIou)
    }

    /// `(x, y)` turned by `angle` (radians, counter-clockwise), in single precision.
    static func turned(_ x: Float, _ y: Float, cos c: Float, sin s: Float) -> (Float, Float) {
        (x * c - y * s, x * s + y * c)
    }

    /// Rotation, translation and size of the two rects within the limits, measured along the
    /// re-crop rect's axes and relative to its size.
    static func rectHolds(
        _ previous: NormalizedRect, _ recrop: NormalizedRect, _ size: (Float, Float), _ r: Options.RectRequirements
    ) -> Bool {
        let angle = -Float(recrop.rotation)
        let c = Foundation.cos(angle), s = Foundation.sin(angle)
        let p = turned(Float(previous.xCenter) * size.0, Float(previous.yCenter) * size.1, cos: c, sin: s)
        let q = turned(Float(recrop.xCenter) * size.0, Float(recrop.yCenter) * size.1, cos: c, sin: s)
        let pw = Float(previous.width) * size.0, ph = Float(previous.height) * size.1
        let qw = Float(recrop.width) * size.0, qh = Float(recrop.height) * size.1
        let degrees = { (radians: Double) in Float(Double(Float(radians)) / Double.pi * 180) }
        var rotation = degrees(previous.rotation) - degrees(recrop.rotation)
        if rotation > 180 { rotation -= 360 }
        if rotation < -180 { rotation += 360 }
        var holds = abs(rotation) <= r.rotationDegrees
        if abs(p.0 - q.0) > qw * r.translation { holds = false }
        if abs(p.1 - q.1) > qh * r.translation { holds = false }
        if abs(pw - qw) > qw * r.scale { holds = false }
        if abs(ph - qh) > qh * r.scale { holds = false }
        return holds
    }

    /// Every landmark strictly inside the re-crop rect grown by (1 + margin), along its axes.
    static func landmarksHold(_ landmarks: NormalizedLandmarkList, _ recrop: NormalizedRect, _ size: (Float, Float), margin: Float) -> Bool {
        let angle = -Float(recrop.rotation)
        let c = Foundation.cos(angle), s = Foundation.sin(angle)
        let centre = turned(Float(recrop.xCenter) * size.0, Float(recrop.yCenter) * size.1, cos: c, sin: s)
        let w = Float(recrop.width) * size.0 * (1 + margin), h = Float(recrop.height) * size.1 * (1 + margin)
        let left = centre.0 - w * 0.5, right = centre.0 + w * 0.5, top = centre.1 - h * 0.5, bottom = centre.1 + h * 0.5
        return landmarks.landmark.allSatisfy { l in
            let p = turned(Float(l.x) * size.0, Float(l.y) * size.1, cos: c, sin: s)
            return left < p.0 && p.0 < right && top < p.1 && p.1 < bottom
        }
    }
}
