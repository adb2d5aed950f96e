import FrameFlow

/// Merges the hand ROIs tracked from the previous frame with new ones from the palm detector,
/// as MediaPipe Tasks' `HandAssociationCalculator` (HandLandmarkerGraph, video mode): every
/// `BASE_RECTS` rect is kept, in order, and each `RECTS` rect is appended only when its IoU
/// with every rect kept so far (new ones included) is at most `min_similarity_threshold`. So a
/// tracked hand is never replaced by a detection (unlike `AssociationNormRectCalculator`,
/// where the later rect wins).
///
/// The IoU is of the axis-aligned boxes (rotation ignored), in single precision, as
/// MediaPipe's `DoesRectOverlap`. A rect without a `rect_id` gets the next id of this node
/// (1, 2, …), so a hand keeps its id while it is tracked. A rect of negative (or NaN) size is
/// an error, as in MediaPipe.
///
/// Inputs: `BASE_RECTS` (one or more indexes, `[NormalizedRect]`: kept first),
///   `RECTS` (one or more, `[NormalizedRect]`: added where they overlap nothing). Inputs
///   without a packet add nothing; every timestamp with any packet gives an output.
/// Outputs: (untagged) `[NormalizedRect]`.
/// Options: `mediapipe.HandAssociationCalculatorOptions` { min_similarity_threshold (1.0):
///   must be in (0, 1] }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "HandAssociationCalculator"
///   input_stream: "BASE_RECTS:tracked_hand_rects"
///   input_stream: "RECTS:palm_hand_rects"
///   output_stream: "hand_rects"
///   options { [mediapipe.HandAssociationCalculatorOptions.ext] { min_similarity_threshold: 0.5 } }
/// }
/// ```
public final class HandAssociationCalculator: OptionsStoringCalculator {
    /// MediaPipe's `HandAssociationCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.HandAssociationCalculatorOptions"

        /// Rects whose IoU is above this are the same hand.
        public var minSimilarityThreshold = 1.0
        public init() {}
        /// Options with `threshold` as `min_similarity_threshold`.
        public init(minSimilarityThreshold: Double) { self.minSimilarityThreshold = minSimilarityThreshold }

        public func validate() throws {
            guard minSimilarityThreshold > 0, minSimilarityThreshold <= 1 else {
                throw GraphError(.invalidOption, "min_similarity_threshold must be above 0 and at most 1, not \(minSimilarityThreshold)")
            }
        }
    }

    /// The tracked rects, all kept.
    public static let baseRects = InputPort<[NormalizedRect]>("BASE_RECTS", optional: true, repeated: true)
    /// The new rects, kept where they overlap nothing kept.
    public static let rects = InputPort<[NormalizedRect]>("RECTS", optional: true, repeated: true)
    /// The merged rects.
    public static let associated = OutputPort<[NormalizedRect]>("")

    public static let contract = CalculatorContract(ports: [baseRects, rects, associated])

    public var options: Options
    private var baseIndexes: [Int] = []
    private var rectIndexes: [Int] = []
    private var nextID: Int64 = 1

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        baseIndexes = cc.indexes(Self.baseRects)
        rectIndexes = cc.indexes(Self.rects)
        guard !baseIndexes.isEmpty || !rectIndexes.isEmpty else {
            throw GraphError(.invalidPort, "HandAssociationCalculator needs BASE_RECTS or RECTS inputs", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        var base: [[NormalizedRect]] = []
        for i in baseIndexes { if let list = try cc.value(Self.baseRects, i) { base.append(list) } }
        var new: [[NormalizedRect]] = []
        for i in rectIndexes { if let list = try cc.value(Self.rects, i) { new.append(list) } }
        let all: [NormalizedRect] = base.flatMap { $0 } + new.flatMap { $0 }
        if let bad = all.first(where: { !($0.width >= 0 && $0.height >= 0) }) {
            throw GraphError(.calculatorFailed, "a rect has a negative or NaN size: \(bad)", node: cc.nodeName)
        }
        try cc.emit(associate(base: base.flatMap { $0 }, new: new.flatMap { $0 }), to: Self.associated)
    }

    /// `base` with ids given, then each of `new` that overlaps no rect kept so far.
    func associate(base: [NormalizedRect], new: [NormalizedRect]) -> [NormalizedRect] {
        var kept: [NormalizedRect] = []
        func withID(_ r: NormalizedRect) -> NormalizedRect {
            var r = r
            if r.rectID == nil {
                r.rectID = nextID
                nextID += 1
            }
            return r
        }
        for r in base { kept.append(withID(r)) }
        let limit = Float(options.minSimilarityThreshold)
        for r in new where !kept.contains(where: { Self.iou($0, r) > limit }) { kept.append(withID(r)) }
        return kept
    }

    /// IoU of the rects' axis-aligned boxes in single precision; 0 when they do not meet.
    static func iou(_ a: NormalizedRect, _ b: NormalizedRect) -> Float {
        func box(_ r: NormalizedRect) -> (Float, Float, Float, Float) {
            let w = Float(r.width), h = Float(r.height)
            // As MediaPipe's ToRectangle: the corner in double, then single precision.
            let xmin = Float(Double(Float(r.xCenter)) - Double(w) / 2), ymin = Float(Double(Float(r.yCenter)) - Double(h) / 2)
            return (xmin, ymin, xmin + w, ymin + h)
        }
        let (ax0, ay0, ax1, ay1) = box(a), (bx0, by0, bx1, by1) = box(b)
        guard ax0 <= ax1, ay0 <= ay1, bx0 <= bx1, by0 <= by1 else { return 0 }
        let iw = min(ax1, bx1) - max(ax0, bx0), ih = min(ay1, by1) - max(ay0, by0)
        guard iw >= 0, ih >= 0 else { return 0 }
        let intersection = iw * ih
        let union = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - intersection
        return union > 0 ? intersection / union : 0
    }
}
