import Foundation
import FrameFlow

/// A `DetectionsToRectsCalculator` whose normalized rects come from two keypoints, as
/// MediaPipe's `AlignmentPointsRectsCalculator` (pose and holistic ROIs): the rotation
/// vector's start keypoint is the rect's centre, and the end keypoint (the scale point) lies
/// on its border: the rect is a square, in pixels of `IMAGE_SIZE`, of side twice the distance
/// between them, turned as `DetectionsToRectsCalculator` turns rects (the vector from centre to
/// scale point, y flipped, points at the target angle after rotation).
///
/// In single precision as MediaPipe: with c = start keypoint × (width, height) and
/// s = end keypoint × (width, height), side = 2·|s − c|, and the rect is
/// (c.x / width, c.y / height, side / width, side / height). Pixel outputs (`RECT`, `RECTS`)
/// and empty detections behave as in `DetectionsToRectsCalculator`.
///
/// Inputs, outputs: as `DetectionsToRectsCalculator` (`IMAGE_SIZE` required).
/// Options: `mediapipe.DetectionsToRectsCalculatorOptions` (extension 262691807), with
///   rotation_vector_start_keypoint_index and rotation_vector_end_keypoint_index required, and
///   rotation_vector_target_angle | rotation_vector_target_angle_degrees.
///
/// Example usage:
/// ```
/// node {
///   calculator: "AlignmentPointsRectsCalculator"
///   input_stream: "DETECTIONS:detections"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "NORM_RECT:roi"
///   options {
///     [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
///       rotation_vector_start_keypoint_index: 0  # centre
///       rotation_vector_end_keypoint_index: 1  # scale point
///       rotation_vector_target_angle_degrees: 90
///     }
///   }
/// }
/// ```
public final class AlignmentPointsRectsCalculator: DetectionsToRectsCalculator {
    public override func open(_ cc: CalculatorContext) throws {
        guard options.rotationVectorStartKeypointIndex != nil, options.rotationVectorEndKeypointIndex != nil else {
            throw GraphError(
                .invalidOption,
                "rotation_vector_start_keypoint_index and rotation_vector_end_keypoint_index are required: they give the "
                    + "rect's centre and scale point",
                node: cc.nodeName)
        }
        try super.open(cc)
    }

    /// The square about the start keypoint reaching to the end keypoint, turned.
    public override func normalizedRect(_ detection: Detection, imageSize: ImageSize?) throws -> NormalizedRect {
        guard let size = imageSize else { throw GraphError(.calculatorFailed, "the rect needs an IMAGE_SIZE packet") }
        let points = detection.locationData.relativeKeypoints
        let start = options.rotationVectorStartKeypointIndex ?? 0, end = options.rotationVectorEndKeypointIndex ?? 0
        guard start < points.count, end < points.count else {
            throw GraphError(
                .calculatorFailed,
                "rotation_vector_start/end_keypoint_index (\(start), \(end)) out of range: the detection has \(points.count) keypoints")
        }
        let w = Float(size.width), h = Float(size.height)
        let cx = Float(points[start].x) * w, cy = Float(points[start].y) * h
        let sx = Float(points[end].x) * w, sy = Float(points[end].y) * h
        let side = Float(Double(((sx - cx) * (sx - cx) + (sy - cy) * (sy - cy)).squareRoot()) * 2)
        var rect = NormalizedRect(
            xCenter: Double(cx / w), yCenter: Double(cy / h), width: Double(side / w), height: Double(side / h))
        if let angle = options.targetAngle { rect.rotation = try rotation(detection.locationData, imageSize: size, target: angle) }
        return rect
    }
}
