import Foundation
import FrameFlow

/// A hand's rect from the three hand landmarks of a pose, as MediaPipe's holistic
/// `HandDetectionsFromPoseToRectsCalculator` (a `DetectionsToRectsCalculator` with its own rect
/// and rotation): where Holistic looks for a hand before its re-crop model.
///
/// The detection's relative keypoints are the pose's wrist (0), pinky (1) and index (2). In
/// pixels of `IMAGE_SIZE`, single precision as MediaPipe, the middle finger is estimated at
/// m = (2·index + pinky) / 3; the rect is centred on m, square in pixels with side
/// 2·|m − wrist|, and turned by normalize(π/2 − atan2(−(m.y − wrist.y), m.x − wrist.x)) so
/// that the wrist-to-finger vector points up. Pixel outputs (`RECT`, `RECTS`) take the
/// detection's box as `DetectionsToRectsCalculator` does, with this rotation; empty detections
/// behave as there. A timestamp without an `IMAGE_SIZE` packet gives nothing, as MediaPipe.
///
/// Inputs, outputs: as `DetectionsToRectsCalculator`, `IMAGE_SIZE` required.
/// Options: `mediapipe.DetectionsToRectsCalculatorOptions` (extension 262691807), validated as
///   there; only output_zero_rect_for_empty_detections and conversion_mode (pixel outputs) are
///   used: the rotation is always the one above, as in MediaPipe.
///
/// Example usage:
/// ```
/// node {
///   calculator: "HandDetectionsFromPoseToRectsCalculator"
///   input_stream: "DETECTION:hand_detection_from_pose"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "NORM_RECT:hand_roi_from_pose"
/// }
/// ```
public final class HandDetectionsFromPoseToRectsCalculator: DetectionsToRectsCalculator {
    public override func open(_ cc: CalculatorContext) throws {
        guard cc.isConnected(Self.imageSize) else {
            throw GraphError(.invalidPort, "IMAGE_SIZE is required: the rect is square and turned in pixels", node: cc.nodeName)
        }
        try super.open(cc)
    }

    public override func process(_ cc: CalculatorContext) throws {
        guard try cc.value(Self.imageSize) != nil else { return }
        do {
            try super.process(cc)
        } catch var e as GraphError {
            e.node = e.node ?? cc.nodeName
            e.stream = e.stream ?? cc.inputStreamName(cc.isConnected(Self.detection) ? Self.detection.tag : Self.detections.tag)
            throw e
        }
    }

    /// Wrist, middle finger (estimated from index and pinky) in pixels.
    static func wristAndMiddle(_ detection: Detection, _ size: ImageSize) throws -> (wrist: (Float, Float), middle: (Float, Float)) {
        let points = detection.locationData.relativeKeypoints
        guard points.count >= 3 else {
            throw GraphError(
                .calculatorFailed, "a hand detection from a pose needs 3 keypoints (wrist, pinky, index), it has \(points.count)")
        }
        let w = Float(size.width), h = Float(size.height)
        let wrist = (Float(points[0].x) * w, Float(points[0].y) * h)
        let pinky = (Float(points[1].x) * w, Float(points[1].y) * h)
        let index = (Float(points[2].x) * w, Float(points[2].y) * h)
        return (wrist, ((2 * index.0 + pinky.0) / 3, (2 * index.1 + pinky.1) / 3))
    }

    /// The hand's rotation: the wrist-to-middle vector turned to point up.
    static func handRotation(_ detection: Detection, _ size: ImageSize) throws -> Double {
        let (wrist, middle) = try wristAndMiddle(detection, size)
        let angle = Float.pi * 0.5 - atan2(-(middle.1 - wrist.1), middle.0 - wrist.0)
        return normalizeRadians(Double(angle))
    }

    public override func normalizedRect(_ detection: Detection, imageSize: ImageSize?) throws -> NormalizedRect {
        guard let size = imageSize else { throw GraphError(.calculatorFailed, "the rect needs an IMAGE_SIZE packet") }
        let (wrist, middle) = try Self.wristAndMiddle(detection, size)
        let dx = middle.0 - wrist.0, dy = middle.1 - wrist.1
        let side = Float(Double((dx * dx + dy * dy).squareRoot()) * 2)
        let w = Float(size.width), h = Float(size.height)
        return NormalizedRect(
            xCenter: Double(middle.0 / w), yCenter: Double(middle.1 / h), width: Double(side / w), height: Double(side / h),
            rotation: try Self.handRotation(detection, size))
    }

    public override func pixelRect(_ detection: Detection, imageSize: ImageSize?) throws -> RotatedRect {
        guard let size = imageSize else { throw GraphError(.calculatorFailed, "the rect needs an IMAGE_SIZE packet") }
        var rect = try super.pixelRect(detection, imageSize: size)
        rect.rotation = try Self.handRotation(detection, size)
        return rect
    }
}
