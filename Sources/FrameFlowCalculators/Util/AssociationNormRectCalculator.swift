import Foundation
import FrameFlow

/// Merges several lists of rects into one without duplicates, as MediaPipe's
/// `AssociationNormRectCalculator`: e.g. hands found by the palm detector this frame and
/// hands tracked from the last frame's landmarks.
///
/// The inputs are taken in index order, and each input's rects in their order. Each rect is
/// compared with those gathered so far: every gathered rect whose IoU with it is above
/// `min_similarity_threshold` is dropped, and the new rect is appended. So of overlapping rects
/// the one from the later input (or later in the same input) is kept, and the output lists the
/// survivors in the order they were added. The IoU is of the axis-aligned boxes (rotation is
/// ignored), in single precision; a box with a negative side overlaps nothing.
///
/// Inputs without a packet at a timestamp, or with an empty list, add nothing; every
/// timestamp with any input packet gives an output list, perhaps empty. A `PREV` input is
/// accepted as MediaPipe's is (rects of the previous frame, to carry ids over), but for
/// `NormalizedRect`s MediaPipe carries no ids, so it changes nothing.
///
/// Inputs:
///   - (untagged, one or more): `[NormalizedRect]`, in increasing priority.
///   - `PREV` (optional): `[NormalizedRect]`, ignored.
/// Outputs:
///   - (untagged) `[NormalizedRect]`.
/// Options: `mediapipe.AssociationCalculatorOptions` (extension 275124847) {
///   min_similarity_threshold (1.0, 0…1): the IoU above which two rects are one }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "AssociationNormRectCalculator"
///   input_stream: "hand_rects_from_palm_detections"
///   input_stream: "gated_prev_hand_rects_from_landmarks"
///   output_stream: "hand_rects"
///   options {
///     [mediapipe.AssociationCalculatorOptions.ext] { min_similarity_threshold: 0.5 }
///   }
/// }
/// ```
public final class AssociationNormRectCalculator: OptionsStoringCalculator {
    /// MediaPipe's `AssociationCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.AssociationCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.associationCalculatorOptions }

        /// Rects whose IoU is above this are the same object.
        public var minSimilarityThreshold = 1.0
        public init() {}
        public init(minSimilarityThreshold: Double) { self.minSimilarityThreshold = minSimilarityThreshold }

        public func validate() throws {
            try OptionCheck.range(minSimilarityThreshold, 0...1, "min_similarity_threshold")
        }
    }

    /// The rect lists, lowest priority first (untagged, one or more indexes).
    public static let rects = InputPort<[NormalizedRect]>("", repeated: true)
    /// The previous associated rects (accepted, not read).
    public static let previous = InputPort<[NormalizedRect]>("PREV", optional: true)
    /// The rects with overlapping ones merged.
    public static let associated = OutputPort<[NormalizedRect]>("")

    public static let contract = CalculatorContract(ports: [rects, previous, associated])

    public var options: Options
    private var indexes: [Int] = []

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        indexes = cc.indexes(Self.rects)
        guard !indexes.isEmpty else {
            throw GraphError(.invalidPort, "AssociationNormRectCalculator needs one or more untagged inputs", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        var lists: [[NormalizedRect]] = []
        for i in indexes {
            if let list = try cc.value(Self.rects, i) { lists.append(list) }
        }
        try cc.emit(Self.associate(lists, threshold: options.minSimilarityThreshold), to: Self.associated)
    }

    /// The rects of `lists` (lowest priority first) with overlapping ones merged: of rects with
    /// IoU above `threshold` the later one stays.
    public static func associate(_ lists: [[NormalizedRect]], threshold: Double) -> [NormalizedRect] {
        let limit = Float(threshold)
        var kept: [(rect: NormalizedRect, box: Box)] = []
        for rect in lists.joined() {
            let box = Box(rect)
            kept.removeAll { iou(box, $0.box) > limit }
            kept.append((rect, box))
        }
        return kept.map(\.rect)
    }

    /// An axis-aligned box as MediaPipe's `Rectangle_f` holds it.
    struct Box {
        var xmin: Float, ymin: Float, xmax: Float, ymax: Float

        init(_ r: NormalizedRect) {
            let w = Float(r.width), h = Float(r.height)
            xmin = Float(Double(Float(r.xCenter)) - Double(w) / 2)
            ymin = Float(Double(Float(r.yCenter)) - Double(h) / 2)
            xmax = xmin + w
            ymax = ymin + h
        }

        var isEmpty: Bool { xmin > xmax || ymin > ymax }
        var area: Float { (xmax - xmin) * (ymax - ymin) }
    }

    /// Intersection over union of `a` and `b`; 0 when they do not meet or either is empty.
    static func iou(_ a: Box, _ b: Box) -> Float {
        if a.isEmpty || b.isEmpty || b.xmax < a.xmin || a.xmax < b.xmin || b.ymax < a.ymin || a.ymax < b.ymin { return 0 }
        let intersection = (min(a.xmax, b.xmax) - max(a.xmin, b.xmin)) * (min(a.ymax, b.ymax) - max(a.ymin, b.ymin))
        let union = a.area + b.area - intersection
        return union > 0 ? intersection / union : 0
    }
}
