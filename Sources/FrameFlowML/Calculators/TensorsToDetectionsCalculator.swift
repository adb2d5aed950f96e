import Foundation
import FrameFlow

/// Decodes a detector's output tensors into `Detection`s.
///
/// Decoders:
///   - `ssd` (MediaPipe's `TensorsToDetectionsCalculator` with `SsdAnchorsCalculator`'s anchors):
///     tensor 0 holds `num_coords` values per anchor (box centre and size relative to the
///     anchor, divided by x/y/w/h_scale, then keypoints), tensor 1 one score per anchor and
///     class (sigmoid unless `sigmoid_score` is false, after clipping to ±score_clipping_thresh).
///   - `yolov5`: tensor 0 `[1, N, 5 + classes]`: cx, cy, w, h (input pixels), objectness,
///     class scores; score = objectness × best class score.
///   - `yolov8`: tensor 0 `[1, 4 + classes, N]`: cx, cy, w, h, class scores; score = best
///     class score.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]` (the model's outputs).
///   - `TRANSFORM` (optional): `TensorImageTransform` from `ImageToTensorCalculator`; boxes
///     and keypoints come out in fractions of the input image with it, of the tensor without.
/// Outputs:
///   - `DETECTIONS`: `[Detection]` (`RELATIVE_BOUNDING_BOX`), score ≥ `min_score_thresh`, label from `labels`.
///
/// Example usage (BlazeFace short range, as MediaPipe configures it):
/// ```
/// node {
///   calculator: "TensorsToDetectionsCalculator"
///   input_stream: "TENSORS:output_tensors"
///   input_stream: "TRANSFORM:transform"
///   output_stream: "DETECTIONS:raw_detections"
///   options { [frameflow.TensorsToDetectionsCalculatorOptions.ext] {
///     num_boxes: 896 num_coords: 16 keypoint_coord_offset: 4 num_keypoints: 6
///     x_scale: 128 y_scale: 128 w_scale: 128 h_scale: 128 score_clipping_thresh: 100
///     min_score_thresh: 0.5 anchors { num_layers: 4 strides: [8, 16, 16, 16] } } }
/// }
/// ```
public final class TensorsToDetectionsCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.TensorsToDetectionsCalculatorOptions"
        public var decoder = "ssd"
        public var numClasses = 1
        public var numBoxes = 0
        public var numCoords = 4
        public var boxCoordOffset = 0
        public var keypointCoordOffset = 4
        public var numKeypoints = 0
        public var numValuesPerKeypoint = 2
        public var xScale = 1.0
        public var yScale = 1.0
        public var wScale = 1.0
        public var hScale = 1.0
        public var sigmoidScore = true
        public var scoreClippingThresh = 0.0
        public var reverseOutputOrder = true
        public var minScoreThresh = 0.5
        public var labels: [String] = []
        /// The model's input size in pixels, for the YOLO decoders (their boxes are in pixels).
        public var inputSizeWidth = 128
        public var inputSizeHeight = 128
        /// The SSD decoder's anchors: `anchors { … }` with `SsdAnchorsCalculatorOptions`' fields.
        public var anchors = SSDAnchorOptions()
        public init() {}
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("TENSORS", [Tensor].self), PortSpec("TRANSFORM", TensorImageTransform.self, optional: true)],
        outputs: [PortSpec("DETECTIONS", [Detection].self)])

    private var options: Options
    private var anchors: [Anchor] = []

    public init(options: Options) throws {
        self.options = options
        if options.decoder == "ssd" { anchors = try Self.checkedAnchors(options) }
    }

    public func update(options: Options) throws {
        if options.decoder == "ssd" { anchors = try Self.checkedAnchors(options) }
        self.options = options
    }

    static func checkedAnchors(_ o: Options) throws -> [Anchor] {
        let a: [Anchor]
        do { a = try o.anchors.anchors() } catch let e as ModelError { throw GraphError(.invalidOption, e.message) }
        guard o.numBoxes == 0 || a.count == o.numBoxes else {
            throw GraphError(.invalidOption, "the anchor options give \(a.count) anchors, num_boxes is \(o.numBoxes)")
        }
        return a
    }

    public func process(_ cc: CalculatorContext) throws {
        let tensors = try cc.input("TENSORS", as: [Tensor].self)
        let transform = cc.hasInput("TRANSFORM") ? try cc.input("TRANSFORM", as: TensorImageTransform.self) : nil
        var dets = try Self.decode(tensors, options: options, anchors: anchors)
        if let transform {
            for i in dets.indices {
                dets[i].box = transform.relativeRect(dets[i].box)
                dets[i].keypoints = dets[i].keypoints.map { transform.relativePoint(x: $0.x, y: $0.y) }
            }
        }
        try cc.emit(dets, tag: "DETECTIONS")
    }

    /// Detections in normalised tensor coordinates.
    public static func decode(_ tensors: [Tensor], options o: Options, anchors: [Anchor]) throws -> [Detection] {
        guard let raw = tensors.first else { throw GraphError(.calculatorFailed, "TENSORS is empty", stream: "TENSORS") }
        let values = raw.asFloats
        func label(_ id: Int) -> String? { id < o.labels.count ? o.labels[id] : nil }
        var out: [Detection] = []
        switch o.decoder {
        case "ssd":
            guard tensors.count >= 2 else { throw GraphError(.calculatorFailed, "the ssd decoder needs box and score tensors, got \(tensors.count)", stream: "TENSORS") }
            let scores = tensors[1].asFloats
            let n = anchors.count
            guard values.count == n * o.numCoords, scores.count == n * o.numClasses else {
                throw GraphError(.calculatorFailed, "tensors of \(values.count) and \(scores.count) values do not fit \(n) anchors × \(o.numCoords) coords and \(o.numClasses) classes", stream: "TENSORS")
            }
            for i in 0..<n {
                var best = -Double.infinity, bestClass = 0
                for c in 0..<o.numClasses {
                    var s = Double(scores[i * o.numClasses + c])
                    if o.scoreClippingThresh > 0 { s = min(max(s, -o.scoreClippingThresh), o.scoreClippingThresh) }
                    if o.sigmoidScore { s = 1 / (1 + exp(-s)) }
                    if s > best { best = s; bestClass = c }
                }
                guard best >= o.minScoreThresh else { continue }
                let a = anchors[i], base = i * o.numCoords
                var v = (0..<4).map { Double(values[base + o.boxCoordOffset + $0]) }
                if !o.reverseOutputOrder { v = [v[1], v[0], v[3], v[2]] }  // y, x, h, w
                let cx = v[0] / o.xScale * a.width + a.x, cy = v[1] / o.yScale * a.height + a.y
                let w = v[2] / o.wScale * a.width, h = v[3] / o.hScale * a.height
                var kps: [Point] = []
                for k in 0..<o.numKeypoints {
                    let off = base + o.keypointCoordOffset + k * o.numValuesPerKeypoint
                    var kx = Double(values[off]), ky = Double(values[off + 1])
                    if !o.reverseOutputOrder { swap(&kx, &ky) }
                    kps.append(Point(x: kx / o.xScale * a.width + a.x, y: ky / o.yScale * a.height + a.y))
                }
                out.append(Detection(relativeBox: Rect(x: cx - w / 2, y: cy - h / 2, width: w, height: h), score: best, label: label(bestClass), labelID: bestClass, keypoints: kps))
            }
        case "yolov5", "yolov8":
            let v8 = o.decoder == "yolov8"
            let s = raw.shape
            guard s.count == 3 || s.count == 2 else { throw GraphError(.calculatorFailed, "a YOLO output is [1, N, K] or [1, K, N], got \(s)", stream: "TENSORS") }
            let a = s[s.count - 2], b = s[s.count - 1]
            let (n, k) = v8 ? (b, a) : (a, b)
            let classes = k - (v8 ? 4 : 5)
            guard classes > 0, values.count >= n * k else { throw GraphError(.calculatorFailed, "YOLO output \(s) has no class scores", stream: "TENSORS") }
            func at(_ box: Int, _ field: Int) -> Double { Double(v8 ? values[field * n + box] : values[box * k + field]) }
            let sx = Double(o.inputSizeWidth), sy = Double(o.inputSizeHeight)
            for i in 0..<n {
                var best = -Double.infinity, bestClass = 0
                for c in 0..<classes {
                    let sc = at(i, (v8 ? 4 : 5) + c)
                    if sc > best { best = sc; bestClass = c }
                }
                let score = v8 ? best : best * at(i, 4)
                guard score >= o.minScoreThresh else { continue }
                let cx = at(i, 0) / sx, cy = at(i, 1) / sy, w = at(i, 2) / sx, h = at(i, 3) / sy
                out.append(Detection(relativeBox: Rect(x: cx - w / 2, y: cy - h / 2, width: w, height: h), score: score, label: label(bestClass), labelID: bestClass))
            }
        default: break
        }
        return out
    }
}

extension TensorsToDetectionsCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard ["ssd", "yolov5", "yolov8"].contains(decoder) else {
            throw GraphError(.invalidOption, "decoder must be ssd, yolov5 or yolov8, not '\(decoder)'")
        }
        guard numClasses > 0, numCoords >= 4, boxCoordOffset >= 0, boxCoordOffset + 4 <= numCoords, numKeypoints >= 0,
            numValuesPerKeypoint >= 2, keypointCoordOffset + numKeypoints * numValuesPerKeypoint <= numCoords || numKeypoints == 0
        else { throw GraphError(.invalidOption, "num_coords \(numCoords) does not hold the box and \(numKeypoints) keypoints") }
        guard xScale != 0, yScale != 0, wScale != 0, hScale != 0 else { throw GraphError(.invalidOption, "x/y/w/h_scale must be non-zero") }
    }
}
