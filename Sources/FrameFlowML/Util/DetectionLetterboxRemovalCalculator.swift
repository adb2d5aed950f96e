import Foundation
import FrameFlow
import FrameFlowInference

/// Maps detections made on a letterboxed image back to the image without its bars, as
/// MediaPipe's `DetectionLetterboxRemovalCalculator` does: x ↦ (x − left) / (1 − left − right),
/// y ↦ (y − top) / (1 − top − bottom), for box corners and keypoints; sizes are divided alike.
///
/// Inputs:
///   - `DETECTIONS`: `[Detection]` with relative boxes.
///   - `LETTERBOX_PADDING`: `[Double]` left, top, right, bottom as fractions of the letterboxed
///     image (`ImageToTensorCalculator` and `ImageTransformationCalculator` give it).
/// Outputs:
///   - `DETECTIONS`: `[Detection]`.
///
/// Example usage:
/// ```
/// node {
///   calculator: "DetectionLetterboxRemovalCalculator"
///   input_stream: "DETECTIONS:detections"
///   input_stream: "LETTERBOX_PADDING:letterbox_padding"
///   output_stream: "DETECTIONS:unpadded_detections"
/// }
/// ```
public final class DetectionLetterboxRemovalCalculator: Calculator {
    /// The detections on the letterboxed image.
    public static let detections = InputPort<[Detection]>("DETECTIONS")
    /// The letterbox padding: left, top, right, bottom.
    public static let padding = InputPort<[Double]>("LETTERBOX_PADDING")
    /// The detections on the original image.
    public static let corrected = OutputPort<[Detection]>("DETECTIONS")

    public static let contract = CalculatorContract(ports: [detections, padding, corrected])

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        guard let dets = try cc.value(Self.detections) else { return }
        guard let padding = try cc.value(Self.padding) else {
            throw GraphError(
                .calculatorFailed, "no letterbox padding for these detections", stream: cc.inputStreamName(Self.padding.tag))
        }
        do {
            try cc.emit(try Self.removeLetterbox(dets, padding: padding), to: Self.corrected)
        } catch var e as GraphError {
            e.stream = cc.inputStreamName(Self.padding.tag)
            throw e
        }
    }

    /// `detections` without the letterbox `padding` (left, top, right, bottom), in `Float` as MediaPipe computes.
    public static func removeLetterbox(_ detections: [Detection], padding: [Double]) throws -> [Detection] {
        guard padding.count == 4 else { throw GraphError(.calculatorFailed, "LETTERBOX_PADDING has \(padding.count) values, not 4") }
        let left = Float(padding[0]), top = Float(padding[1])
        let sx = 1 - (left + Float(padding[2])), sy = 1 - (top + Float(padding[3]))
        guard sx > 0, sy > 0 else { throw GraphError(.calculatorFailed, "LETTERBOX_PADDING \(padding) leaves no image") }
        return detections.map { d in
            var out = d
            if d.locationData.relativeBoundingBox != nil {
                let b = d.box
                out.box = Rect(
                    x: Double((Float(b.x) - left) / sx), y: Double((Float(b.y) - top) / sy), width: Double(Float(b.width) / sx),
                    height: Double(Float(b.height) / sy))
            }
            out.keypoints = d.keypoints.map { Point(x: Double((Float($0.x) - left) / sx), y: Double((Float($0.y) - top) / sy)) }
            return out
        }
    }
}
