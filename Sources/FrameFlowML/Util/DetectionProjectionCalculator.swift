import Foundation
import FrameFlow
import FrameFlowInference

/// Maps detections from a tensor's normalized coordinates to the image's with a projection
/// matrix, as MediaPipe's `DetectionProjectionCalculator` does: keypoints are mapped; the box
/// becomes the axis-aligned bounding box of its four mapped corners (a rotated crop's boxes
/// grow to hold the rotated box).
///
/// Inputs:
///   - `DETECTIONS` (one or more, `DETECTIONS:0`, `DETECTIONS:1`, …): `[Detection]` with
///     relative boxes.
///   - `PROJECTION_MATRIX`: `ProjectionMatrix` (`ImageToTensorCalculator`'s `MATRIX`); without
///     one at a timestamp nothing is output.
/// Outputs:
///   - `DETECTIONS` (as many as inputs, index for index): `[Detection]` in image coordinates.
///
/// Example usage:
/// ```
/// node {
///   calculator: "DetectionProjectionCalculator"
///   input_stream: "DETECTIONS:filtered_detections"
///   input_stream: "PROJECTION_MATRIX:transform_matrix"
///   output_stream: "DETECTIONS:detections"
/// }
/// ```
public final class DetectionProjectionCalculator: Calculator {
    /// The detection lists to project (one output per input index).
    public static let detections = InputPort<[Detection]>("DETECTIONS", repeated: true)
    /// The matrix taking the detections' coordinates to the image's.
    public static let matrix = InputPort<ProjectionMatrix>("PROJECTION_MATRIX")
    /// The projected lists.
    public static let projected = OutputPort<[Detection]>("DETECTIONS", repeated: true)

    public static let contract = CalculatorContract(ports: [detections, matrix, projected])

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        let ins = cc.indexes(Self.detections), outs = cc.outputPorts.filter { $0.tag == Self.projected.tag }.count
        guard ins.count == outs else {
            throw GraphError(
                .invalidOption, "DetectionProjectionCalculator needs as many DETECTIONS outputs as inputs (\(ins.count) in, \(outs) out)")
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let m = try cc.value(Self.matrix) else { return }
        for i in cc.indexes(Self.detections) {
            guard let dets = try cc.value(Self.detections, i) else { continue }
            do {
                try cc.emit(try dets.map { try Self.project($0, with: m) }, to: Self.projected, index: i)
            } catch var e as GraphError {
                e.stream = cc.inputStreamName(Self.detections.tag, i)
                throw e
            }
        }
    }

    /// `d` mapped by `m` (computed in `Float`, as MediaPipe does); `d` must have a relative box.
    public static func project(_ d: Detection, with m: ProjectionMatrix) throws -> Detection {
        guard d.locationData.format == .relativeBoundingBox else {
            throw GraphError(
                .calculatorFailed, "DetectionProjectionCalculator projects RELATIVE_BOUNDING_BOX detections, got \(d.locationData.format)")
        }
        let v = m.values
        func map(_ x: Float, _ y: Float) -> (Float, Float) { (x * v[0] + y * v[1] + v[3], x * v[4] + y * v[5] + v[7]) }
        var out = d
        out.keypoints = d.keypoints.map {
            let p = map(Float($0.x), Float($0.y))
            return Point(x: Double(p.0), y: Double(p.1))
        }
        let b = d.box
        let x0 = Float(b.x), y0 = Float(b.y), x1 = x0 + Float(b.width), y1 = y0 + Float(b.height)
        let corners = [map(x0, y0), map(x1, y0), map(x1, y1), map(x0, y1)]
        let minX = corners.map(\.0).min()!, maxX = corners.map(\.0).max()!
        let minY = corners.map(\.1).min()!, maxY = corners.map(\.1).max()!
        out.box = Rect(x: Double(minX), y: Double(minY), width: Double(maxX - minX), height: Double(maxY - minY))
        return out
    }
}
