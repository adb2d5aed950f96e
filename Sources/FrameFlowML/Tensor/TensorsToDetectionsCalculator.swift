import Foundation
import FrameFlow
import FrameFlowInference

/// Decodes a detector's output tensors into `Detection`s in the tensor's normalized
/// coordinates, as MediaPipe's `TensorsToDetectionsCalculator` does on the CPU.
///
/// With 2 tensors (boxes `[1, num_boxes, num_coords]`, scores `[1, num_boxes, num_classes]`)
/// or 3 (plus anchors `[num_boxes, 4]`: y, x, h, w), each box is decoded against its anchor:
/// centre = value / x_scale (y_scale) × anchor size + anchor centre; size = value / w_scale
/// (h_scale) × anchor size, or exp(value / scale) × anchor size with
/// `apply_exponential_on_box_size`; keypoints like centres. Values are read in `box_format`
/// order (YXHW; XYWH when `reverse_output_order`; XYXY). A box's score is its best allowed
/// class's (sigmoid of the raw score clipped to ±`score_clipping_thresh` with
/// `sigmoid_score`). With 4 tensors (a model with its own post-processing: boxes ymin, xmin,
/// ymax, xmax, classes, scores, count) the boxes are taken as they are. Boxes under
/// `min_score_thresh`, of negative or NaN size, or of a class not allowed are dropped; at
/// most `max_results` come out, in box order.
///
/// FrameFlow's YOLO decoders (`decoder: "yolov5" | "yolov8"`, fields MediaPipe's message
/// lacks): tensor 0 `[1, N, 5 + classes]` (cx, cy, w, h in input pixels, objectness, class
/// scores; score = objectness × best class) or `[1, 4 + classes, N]` (score = best class);
/// boxes are divided by `input_size_width`/`height`.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]`, the model's outputs.
/// Outputs:
///   - `DETECTIONS`: `[Detection]` (`RELATIVE_BOUNDING_BOX`, tensor coordinates: map them to
///     the image with `DetectionProjectionCalculator`), label ids and, with `labels`, names.
/// Side packets: `ANCHORS` (`[Anchor]`, from `SsdAnchorsCalculator`; needed with 2 tensors),
/// `IGNORE_CLASSES` (optional, `[Int]`: class ids to drop, instead of the options' lists).
/// Options: `mediapipe.TensorsToDetectionsCalculatorOptions` (MediaPipe's fields and
/// defaults), and FrameFlow's `decoder` ("mediapipe" | "yolov5" | "yolov8"), `labels` (names
/// by class id) and `input_size_width`/`input_size_height` (YOLO).
/// Ranges (checked when the graph is built): num_classes 1…100000, num_boxes 0…4194304,
/// num_keypoints 0…4096, num_values_per_keypoint 2, num_coords 4 + 2 × num_keypoints,
/// box_coord_offset and keypoint_coord_offset within num_coords, x/y/w/h_scale 0…1e6 (0: unset;
/// decoding against anchors needs them all), score_clipping_thresh 0…1e6, min_score_thresh
/// within ±1e6, max_results −1 or 1…2³¹ − 1, max_classes_per_detection 1…1000, tensor_mapping
/// indices 0…3, input_size_width/height 1…65536 (YOLO).
///
/// Example usage (MediaPipe's short-range face detection):
/// ```
/// node {
///   calculator: "TensorsToDetectionsCalculator"
///   input_stream: "TENSORS:detection_tensors"
///   input_side_packet: "ANCHORS:anchors"
///   output_stream: "DETECTIONS:unfiltered_detections"
///   options { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
///     num_classes: 1 num_boxes: 896 num_coords: 16 box_coord_offset: 0 keypoint_coord_offset: 4
///     num_keypoints: 6 num_values_per_keypoint: 2 sigmoid_score: true score_clipping_thresh: 100.0
///     reverse_output_order: true x_scale: 128.0 y_scale: 128.0 h_scale: 128.0 w_scale: 128.0
///     min_score_thresh: 0.5 } }
/// }
/// ```
public final class TensorsToDetectionsCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.TensorsToDetectionsCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.tensorsToDetectionsCalculatorOptions }

        /// Which input tensor holds what (MediaPipe's `TensorMapping`).
        public struct TensorMapping: Codable, Sendable, Equatable {
            public var detectionsTensorIndex = 0
            public var classesTensorIndex = 1
            public var scoresTensorIndex: Int?
            public var numDetectionsTensorIndex = 3
            public var anchorsTensorIndex = 2
            public init() {}
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                detectionsTensorIndex = try c.decodeIfPresent(Int.self, forKey: .detectionsTensorIndex) ?? 0
                classesTensorIndex = try c.decodeIfPresent(Int.self, forKey: .classesTensorIndex) ?? 0
                scoresTensorIndex = try c.decodeIfPresent(Int.self, forKey: .scoresTensorIndex) ?? 0
                numDetectionsTensorIndex = try c.decodeIfPresent(Int.self, forKey: .numDetectionsTensorIndex) ?? 0
                anchorsTensorIndex = try c.decodeIfPresent(Int.self, forKey: .anchorsTensorIndex) ?? 0
            }
        }

        /// Where ymin, xmin, ymax, xmax sit in a post-processed box (MediaPipe's `BoxBoundariesIndices`).
        public struct BoxBoundariesIndices: Codable, Sendable, Equatable {
            public var ymin = 0, xmin = 1, ymax = 2, xmax = 3
            public init() {}
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                ymin = try c.decodeIfPresent(Int.self, forKey: .ymin) ?? 0
                xmin = try c.decodeIfPresent(Int.self, forKey: .xmin) ?? 1
                ymax = try c.decodeIfPresent(Int.self, forKey: .ymax) ?? 2
                xmax = try c.decodeIfPresent(Int.self, forKey: .xmax) ?? 3
            }
        }

        /// The order of a raw box's four values.
        public enum BoxFormat: String, Codable, Sendable {
            case unspecified = "UNSPECIFIED", yxhw = "YXHW", xywh = "XYWH", xyxy = "XYXY"
        }

        public var numClasses = 0
        public var numBoxes = 0
        public var numCoords = 0
        public var keypointCoordOffset = 0
        public var numKeypoints = 0
        public var numValuesPerKeypoint = 2
        public var boxCoordOffset = 0
        public var xScale = 0.0
        public var yScale = 0.0
        public var wScale = 0.0
        public var hScale = 0.0
        public var applyExponentialOnBoxSize = false
        public var reverseOutputOrder = false
        public var ignoreClasses: [Int] = []
        public var allowClasses: [Int] = []
        public var sigmoidScore = false
        /// Unset: no clipping.
        public var scoreClippingThresh: Double?
        public var flipVertically = false
        /// Unset: every score passes.
        public var minScoreThresh: Double?
        public var maxResults = -1
        public var maxClassesPerDetection = 1
        public var tensorMapping: TensorMapping?
        public var boxBoundariesIndices: BoxBoundariesIndices?
        public var boxFormat = BoxFormat.unspecified
        // FrameFlow's fields.
        public var decoder = "mediapipe"
        public var labels: [String] = []
        public var inputSizeWidth = 0
        public var inputSizeHeight = 0
        public init() {}

        /// The box format in effect: `box_format`, else XYWH with `reverse_output_order`, else YXHW.
        var effectiveBoxFormat: BoxFormat {
            boxFormat != .unspecified ? boxFormat : (reverseOutputOrder ? .xywh : .yxhw)
        }
    }

    /// The model's output tensors.
    public static let tensors = InputPort<[Tensor]>("TENSORS")
    /// The decoded detections.
    public static let detections = OutputPort<[Detection]>("DETECTIONS")
    /// The SSD anchors (`SsdAnchorsCalculator`), needed with 2 tensors.
    public static let anchors = InputSidePacket<[Anchor]>("ANCHORS", optional: true)
    /// Class ids to drop, instead of the options' lists.
    public static let ignoreClasses = InputSidePacket<[Int]>("IGNORE_CLASSES", optional: true)

    public static let contract = CalculatorContract(ports: [tensors, detections, anchors, ignoreClasses])

    private var options: Options
    private var anchors: [Anchor]?
    private var ignored: Set<Int>?

    public init(options: Options) throws {
        self.options = options
    }

    public func update(options: Options) throws { self.options = options }

    public func open(_ cc: CalculatorContext) throws {
        if let p = cc.sidePacket(Self.anchors.tag), !p.isEmpty { anchors = try p.get([Anchor].self) }
        if let p = cc.sidePacket(Self.ignoreClasses.tag), !p.isEmpty {
            guard options.allowClasses.isEmpty else {
                throw GraphError(.invalidOption, "allow_classes and the IGNORE_CLASSES side packet exclude each other")
            }
            ignored = Set(try p.get([Int].self))
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let tensors = try cc.get(Self.tensors)
        do {
            try cc.emit(try Self.decode(tensors, options: options, anchors: anchors, ignoreClasses: ignored), to: Self.detections)
        } catch var e as GraphError {
            // Name the node's stream rather than the port.
            if e.stream == nil || e.stream == "TENSORS" { e.stream = cc.inputStreamName(Self.tensors.tag) }
            throw e
        }
    }

    /// Detections in the tensor's normalized coordinates. `anchors` are needed for 2 tensors;
    /// `ignoreClasses` replaces the options' class lists.
    public static func decode(_ tensors: [Tensor], options o: Options, anchors: [Anchor]?, ignoreClasses: Set<Int>? = nil) throws
        -> [Detection]
    {
        if o.decoder == "yolov5" || o.decoder == "yolov8" { return try decodeYOLO(tensors, options: o) }
        guard tensors.allSatisfy(\.isFloat) else { throw GraphError(.calculatorFailed, "TENSORS must all be float32", stream: "TENSORS") }
        let allowed: (Int) -> Bool
        if let ignoreClasses {
            allowed = { !ignoreClasses.contains($0) }
        } else if !o.allowClasses.isEmpty {
            let s = Set(o.allowClasses)
            allowed = { s.contains($0) }
        } else {
            let s = Set(o.ignoreClasses)
            allowed = { !s.contains($0) }
        }
        let map = o.tensorMapping ?? Options.TensorMapping()
        func tensor(_ index: Int, _ what: String) throws -> Tensor {
            guard index >= 0, index < tensors.count else {
                throw GraphError(.calculatorFailed, "no \(what) tensor at index \(index) (got \(tensors.count) tensors)", stream: "TENSORS")
            }
            return tensors[index]
        }
        switch tensors.count {
        case 2, 3:
            guard o.boxBoundariesIndices == nil else {
                throw GraphError(.invalidOption, "box_boundaries_indices apply only to 4 post-processed tensors, got \(tensors.count)")
            }
            let n = o.numBoxes
            guard n > 0 else { throw GraphError(.invalidOption, "num_boxes must be set (> 0)") }
            guard o.xScale != 0, o.yScale != 0, o.wScale != 0, o.hScale != 0 else {
                throw GraphError(.invalidOption, "x_scale, y_scale, w_scale and h_scale must be non-zero to decode against anchors")
            }
            let boxes = try tensor(map.detectionsTensorIndex, "box")
            let scores = try tensor(map.scoresTensorIndex ?? 1, "score")
            try checkShape(boxes, n, o.numCoords, "box")
            try checkShape(scores, n, o.numClasses, "score")
            let a: [Anchor]
            if tensors.count == 3 {
                let t = try tensor(map.anchorsTensorIndex, "anchor")
                guard t.shape == [n, 4] else {
                    throw GraphError(.calculatorFailed, "the anchor tensor has shape \(t.shape), expected [\(n), 4]", stream: "TENSORS")
                }
                let v = t.floats
                a = (0..<n).map {
                    Anchor(x: Double(v[$0 * 4 + 1]), y: Double(v[$0 * 4]), width: Double(v[$0 * 4 + 3]), height: Double(v[$0 * 4 + 2]))
                }
            } else {
                guard let anchors else {
                    throw GraphError(
                        .calculatorFailed, "no anchors: give the ANCHORS side packet (SsdAnchorsCalculator)", stream: "TENSORS")
                }
                guard anchors.count == n else {
                    throw GraphError(.calculatorFailed, "ANCHORS has \(anchors.count) anchors, num_boxes is \(n)", stream: "TENSORS")
                }
                a = anchors
            }
            let decoded = decodeBoxes(boxes.floats, anchors: a, options: o)
            let raw = scores.floats
            var best = [Float](repeating: -Float.greatestFiniteMagnitude, count: n), classes = [Int](repeating: -1, count: n)
            for i in 0..<n {
                for c in 0..<o.numClasses where allowed(c) {
                    var s = raw[i * o.numClasses + c]
                    if o.sigmoidScore {
                        if let t = o.scoreClippingThresh.map(Float.init) { s = min(max(s, -t), t) }
                        s = 1 / (1 + exp(-s))
                    }
                    if best[i] < s {
                        best[i] = s
                        classes[i] = c
                    }
                }
            }
            return convert(
                decoded, scores: best, classes: classes, count: n, perDetection: 1, indices: [0, 1, 2, 3], options: o, allowed: allowed)
        case 4:
            let countTensor = try tensor(map.numDetectionsTensorIndex, "detection count")
            let boxes = try tensor(map.detectionsTensorIndex, "box")
            let classTensor = try tensor(map.classesTensorIndex, "class")
            let scoreTensor = try tensor(map.scoresTensorIndex ?? 2, "score")
            guard countTensor.shape == [1], boxes.shape.count == 3, boxes.shape[0] == 1, boxes.shape[2] == o.numCoords,
                classTensor.shape == [1, boxes.shape[1]], scoreTensor.shape == [1, boxes.shape[1]]
            else {
                throw GraphError(
                    .calculatorFailed,
                    "post-processed tensors need count [1], boxes [1, N, \(o.numCoords)], classes and scores [1, N]; got \(countTensor.shape), \(boxes.shape), \(classTensor.shape), \(scoreTensor.shape)",
                    stream: "TENSORS")
            }
            let count = Int(saturating: countTensor.floats[0])
            let per = o.maxClassesPerDetection
            guard count >= 0, !count.multipliedReportingOverflow(by: per).overflow, count * per <= boxes.shape[1] else {
                throw GraphError(
                    .calculatorFailed, "the count tensor says \(count) detections, the tensors hold \(boxes.shape[1])", stream: "TENSORS")
            }
            let b = o.boxBoundariesIndices ?? Options.BoxBoundariesIndices()
            return convert(
                boxes.floats, scores: scoreTensor.floats, classes: classTensor.floats.map { Int(saturating: $0) }, count: count, perDetection: per,
                indices: [b.ymin, b.xmin, b.ymax, b.xmax], options: o, allowed: allowed)
        default:
            throw GraphError(.calculatorFailed, "expected 2, 3 or 4 tensors, got \(tensors.count)", stream: "TENSORS")
        }
    }

    static func checkShape(_ t: Tensor, _ n: Int, _ k: Int, _ what: String) throws {
        guard t.shape == [1, n, k] || t.shape == [1, 1, n, k] else {
            throw GraphError(.calculatorFailed, "the \(what) tensor has shape \(t.shape), expected [1, \(n), \(k)]", stream: "TENSORS")
        }
    }

    /// MediaPipe's `DecodeBoxes`: per box, ymin, xmin, ymax, xmax at 0…3 and the keypoints
    /// (x, y) at their offsets, all in `Float`.
    static func decodeBoxes(_ raw: [Float], anchors: [Anchor], options o: Options) -> [Float] {
        let n = anchors.count, k = o.numCoords
        var out = [Float](repeating: 0, count: n * k)
        let xs = Float(o.xScale), ys = Float(o.yScale), ws = Float(o.wScale), hs = Float(o.hScale)
        let format = o.effectiveBoxFormat
        for i in 0..<n {
            let b = i * k + o.boxCoordOffset
            let ax = Float(anchors[i].x), ay = Float(anchors[i].y), aw = Float(anchors[i].width), ah = Float(anchors[i].height)
            var cx: Float, cy: Float, w: Float, h: Float
            switch format {
            case .unspecified, .yxhw: (cy, cx, h, w) = (raw[b], raw[b + 1], raw[b + 2], raw[b + 3])
            case .xywh: (cx, cy, w, h) = (raw[b], raw[b + 1], raw[b + 2], raw[b + 3])
            case .xyxy:
                (cx, cy) = ((-raw[b] + raw[b + 2]) / 2, (-raw[b + 1] + raw[b + 3]) / 2)
                (w, h) = (raw[b + 2] + raw[b], raw[b + 3] + raw[b + 1])
            }
            cx = cx / xs * aw + ax
            cy = cy / ys * ah + ay
            if o.applyExponentialOnBoxSize {
                h = exp(h / hs) * ah
                w = exp(w / ws) * aw
            } else {
                h = h / hs * ah
                w = w / ws * aw
            }
            out[i * k] = cy - h / 2
            out[i * k + 1] = cx - w / 2
            out[i * k + 2] = cy + h / 2
            out[i * k + 3] = cx + w / 2
            for p in 0..<o.numKeypoints {
                let off = i * k + o.keypointCoordOffset + p * o.numValuesPerKeypoint
                let (kx, ky) = format == .xywh || format == .xyxy ? (raw[off], raw[off + 1]) : (raw[off + 1], raw[off])
                out[off] = kx / xs * aw + ax
                out[off + 1] = ky / ys * ah + ay
            }
        }
        return out
    }

    /// MediaPipe's `ConvertToDetections`: `boxes` hold `num_coords` values per detection
    /// (box corners at `indices`, keypoints at their offset); `perDetection` class/score
    /// pairs per box.
    static func convert(
        _ boxes: [Float], scores: [Float], classes: [Int], count: Int, perDetection: Int, indices: [Int], options o: Options,
        allowed: (Int) -> Bool
    ) -> [Detection] {
        var out: [Detection] = []
        var i = 0
        while i < count * perDetection {
            defer { i += perDetection }
            if o.maxResults > 0 && out.count == o.maxResults { break }
            var s: [Double] = [], ids: [Int] = []
            for j in i..<(i + perDetection) where allowed(classes[j]) {
                if let t = o.minScoreThresh, scores[j] < Float(t) { continue }
                s.append(Double(scores[j]))
                ids.append(classes[j])
            }
            if s.isEmpty { continue }
            let base = i * o.numCoords
            let ymin = boxes[base + indices[0]], xmin = boxes[base + indices[1]]
            let ymax = boxes[base + indices[2]], xmax = boxes[base + indices[3]]
            let width = xmax - xmin, height = ymax - ymin
            if width < 0 || height < 0 || width.isNaN || height.isNaN { continue }
            var kps: [Point] = []
            for p in 0..<o.numKeypoints {
                let off = base + o.keypointCoordOffset + p * o.numValuesPerKeypoint
                kps.append(Point(x: Double(boxes[off]), y: Double(o.flipVertically ? 1 - boxes[off + 1] : boxes[off + 1])))
            }
            var d = Detection(
                relativeBox: Rect(
                    x: Double(xmin), y: Double(o.flipVertically ? 1 - ymax : ymin), width: Double(width), height: Double(height)),
                score: s[0], keypoints: kps)
            d.scores = s
            d.labelIDs = ids
            if !o.labels.isEmpty { d.labels = ids.map { $0 < o.labels.count ? o.labels[$0] : String($0) } }
            out.append(d)
        }
        return out
    }

    /// FrameFlow's YOLO decoders: boxes in input pixels, divided by the input size.
    static func decodeYOLO(_ tensors: [Tensor], options o: Options) throws -> [Detection] {
        guard let raw = tensors.first else { throw GraphError(.calculatorFailed, "TENSORS is empty", stream: "TENSORS") }
        let values = raw.asFloats
        let v8 = o.decoder == "yolov8"
        let s = raw.shape
        guard s.count == 3 || s.count == 2 else {
            throw GraphError(.calculatorFailed, "a YOLO output is [1, N, K] or [1, K, N], got \(s)", stream: "TENSORS")
        }
        let a = s[s.count - 2], b = s[s.count - 1]
        let (n, k) = v8 ? (b, a) : (a, b)
        let classes = k - (v8 ? 4 : 5)
        guard classes > 0, values.count >= n * k else {
            throw GraphError(.calculatorFailed, "YOLO output \(s) has no class scores", stream: "TENSORS")
        }
        func at(_ box: Int, _ field: Int) -> Double { Double(v8 ? values[field * n + box] : values[box * k + field]) }
        let sx = Double(o.inputSizeWidth), sy = Double(o.inputSizeHeight)
        var out: [Detection] = []
        for i in 0..<n {
            var best = -Double.infinity, bestClass = 0
            for c in 0..<classes {
                let sc = at(i, (v8 ? 4 : 5) + c)
                if sc > best { (best, bestClass) = (sc, c) }
            }
            let score = v8 ? best : best * at(i, 4)
            guard score >= (o.minScoreThresh ?? -Double.infinity) else { continue }
            if o.maxResults > 0 && out.count == o.maxResults { break }
            let cx = at(i, 0) / sx, cy = at(i, 1) / sy, w = at(i, 2) / sx, h = at(i, 3) / sy
            let label = bestClass < o.labels.count ? o.labels[bestClass] : nil
            out.append(
                Detection(
                    relativeBox: Rect(x: cx - w / 2, y: cy - h / 2, width: w, height: h), score: score, label: label, labelID: bestClass))
        }
        return out
    }
}

extension TensorsToDetectionsCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`); the
    /// ranges are the header's.
    public func validate() throws {
        guard ["mediapipe", "yolov5", "yolov8"].contains(decoder) else {
            throw GraphError(.invalidOption, "decoder must be mediapipe, yolov5 or yolov8, not '\(decoder)'")
        }
        guard maxResults == -1 || maxResults > 0 else {
            throw GraphError(.invalidOption, "max_results must be positive (-1: all), not \(maxResults)")
        }
        try OptionCheck.range(maxResults, -1...Int(Int32.max), "max_results")
        if let t = minScoreThresh { try OptionCheck.range(t, -1e6...1e6, "min_score_thresh") }
        if decoder != "mediapipe" {
            try OptionCheck.range(inputSizeWidth, 1...65536, "input_size_width")
            try OptionCheck.range(inputSizeHeight, 1...65536, "input_size_height")
            return
        }
        guard numClasses > 0, numClasses <= 100_000 else {
            throw GraphError(.invalidOption, "num_classes must be from 1 to 100000, not \(numClasses)")
        }
        guard numValuesPerKeypoint == 2 else {
            throw GraphError(.invalidOption, "num_values_per_keypoint must be 2, not \(numValuesPerKeypoint)")
        }
        try OptionCheck.range(numKeypoints, 0...4096, "num_keypoints")
        guard numCoords == 4 + numKeypoints * numValuesPerKeypoint else {
            throw GraphError(
                .invalidOption,
                "num_coords (\(numCoords)) must be 4 + num_keypoints × num_values_per_keypoint (\(4 + numKeypoints * numValuesPerKeypoint))"
            )
        }
        try OptionCheck.range(numBoxes, 0...(1 << 22), "num_boxes")
        try OptionCheck.range(boxCoordOffset, 0...numCoords, "box_coord_offset")
        try OptionCheck.range(keypointCoordOffset, 0...numCoords, "keypoint_coord_offset")
        guard boxCoordOffset + 4 <= numCoords, numKeypoints == 0 || keypointCoordOffset + numKeypoints * numValuesPerKeypoint <= numCoords
        else {
            throw GraphError(
                .invalidOption, "box_coord_offset and keypoint_coord_offset must leave the box and keypoints inside num_coords")
        }
        try OptionCheck.range(xScale, 0...1e6, "x_scale")
        try OptionCheck.range(yScale, 0...1e6, "y_scale")
        try OptionCheck.range(wScale, 0...1e6, "w_scale")
        try OptionCheck.range(hScale, 0...1e6, "h_scale")
        if let t = scoreClippingThresh { try OptionCheck.range(t, 0...1e6, "score_clipping_thresh") }
        guard allowClasses.isEmpty || ignoreClasses.isEmpty else {
            throw GraphError(.invalidOption, "allow_classes and ignore_classes exclude each other")
        }
        try OptionCheck.range(maxClassesPerDetection, 1...1000, "max_classes_per_detection")
        if let m = tensorMapping {
            let all = [
                m.detectionsTensorIndex, m.classesTensorIndex, m.scoresTensorIndex ?? 0, m.numDetectionsTensorIndex, m.anchorsTensorIndex,
            ]
            guard all.allSatisfy({ $0 >= 0 && $0 < 4 }) else { throw GraphError(.invalidOption, "tensor_mapping indices must be in 0...3") }
        }
        if let b = boxBoundariesIndices {
            guard Set([b.ymin, b.xmin, b.ymax, b.xmax]) == [0, 1, 2, 3] else {
                throw GraphError(.invalidOption, "box_boundaries_indices must be 0, 1, 2 and 3 in some order")
            }
        }
    }
}
