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
    public static let contract = CalculatorContract(
        inputs: [PortSpec("DETECTIONS", [Detection].self, repeated: true), PortSpec("PROJECTION_MATRIX", ProjectionMatrix.self)],
        outputs: [PortSpec("DETECTIONS", [Detection].self, repeated: true)])

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        let ins = cc.inputIndexes(tag: "DETECTIONS"), outs = cc.outputPorts.filter { $0.tag == "DETECTIONS" }.count
        guard ins.count == outs else {
            throw GraphError(
                .invalidOption, "DetectionProjectionCalculator needs as many DETECTIONS outputs as inputs (\(ins.count) in, \(outs) out)")
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.hasInput("PROJECTION_MATRIX") else { return }
        let m = try cc.input("PROJECTION_MATRIX", as: ProjectionMatrix.self)
        for i in cc.inputIndexes(tag: "DETECTIONS") where cc.hasInput("DETECTIONS", i) {
            let dets = try cc.input("DETECTIONS", i, as: [Detection].self)
            do {
                try cc.emit(try dets.map { try Self.project($0, with: m) }, tag: "DETECTIONS", index: i)
            } catch var e as GraphError {
                e.stream = cc.inputStreamName("DETECTIONS", i)
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
