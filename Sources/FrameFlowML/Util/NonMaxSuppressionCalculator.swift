import Foundation
import FrameFlow
import FrameFlowInference

/// Removes overlapping detections, as MediaPipe's `NonMaxSuppressionCalculator` does.
///
/// The detections of all input streams are pooled; each keeps only its best score and that
/// score's label id (or label); detections with neither label ids nor labels are dropped.
/// They are taken by descending score (stopping at one under `min_score_threshold`, when
/// that is > 0):
///   - `DEFAULT`: a detection is kept unless its overlap with a kept one exceeds
///     `min_suppression_threshold`; at most `max_num_detections` are kept.
///   - `WEIGHTED`: the best remaining detection claims every remaining one (itself included)
///     whose overlap with it exceeds the threshold; it is output with the score-weighted
///     mean of their boxes' corners and keypoints, and its own score and labels. Claimed
///     detections leave the pool; when a round claims nothing, it ends.
///     `max_num_detections` does not apply, as in MediaPipe.
///
/// Overlap (`overlap_type`): `JACCARD` is the intersection over the area of the box enclosing
/// both, `MODIFIED_JACCARD` the intersection over the second box's area (the kept or best
/// detection's), `INTERSECTION_OVER_UNION` the usual IoU.
///
/// Inputs:
///   - (untagged, `num_detection_streams` of them): `[Detection]`.
///   - `IMAGE` (optional, accepted): MediaPipe uses it to measure pixel boxes; overlaps are
///     the same in pixels and in fractions, so it is not read.
/// Outputs:
///   - (untagged): `[Detection]`, nothing when no input holds a detection unless
///     `return_empty_detections`.
/// Options: `mediapipe.NonMaxSuppressionCalculatorOptions` { num_detection_streams (1),
/// max_num_detections (-1: all), min_score_threshold (-1), min_suppression_threshold (1),
/// overlap_type (JACCARD), return_empty_detections (false), algorithm (DEFAULT | WEIGHTED) },
/// and FrameFlow's per_class (false; true: only detections of one label id suppress each
/// other, as YOLO pipelines do). Ranges (checked when the graph is built):
/// num_detection_streams 1…1024, max_num_detections −1 or 1…2³¹ − 1, min_score_threshold and
/// min_suppression_threshold within ±1e6.
///
/// Example usage (MediaPipe's face detection):
/// ```
/// node {
///   calculator: "NonMaxSuppressionCalculator"
///   input_stream: "unfiltered_detections"
///   output_stream: "filtered_detections"
///   options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
///     min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION algorithm: WEIGHTED } }
/// }
/// ```
public final class NonMaxSuppressionCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.NonMaxSuppressionCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.nonMaxSuppressionCalculatorOptions }

        public enum OverlapType: String, Codable, Sendable {
            case unspecified = "UNSPECIFIED_OVERLAP_TYPE", jaccard = "JACCARD", modifiedJaccard = "MODIFIED_JACCARD"
            case intersectionOverUnion = "INTERSECTION_OVER_UNION"
        }

        public enum Algorithm: String, Codable, Sendable {
            case `default` = "DEFAULT", weighted = "WEIGHTED"
        }

        public var numDetectionStreams = 1
        public var maxNumDetections = -1
        public var minScoreThreshold = -1.0
        public var minSuppressionThreshold = 1.0
        public var overlapType = OverlapType.jaccard
        public var returnEmptyDetections = false
        public var algorithm = Algorithm.default
        /// FrameFlow's field: detections of different label ids never suppress each other.
        public var perClass = false
        public init() {}
    }

    /// The detection lists to pool (untagged, `num_detection_streams` indexes).
    public static let detections = InputPort<[Detection]>("", repeated: true)
    /// The image the detections are on (accepted, not read).
    public static let image = InputPort<ImageFrame>("IMAGE", optional: true)
    /// The detections kept.
    public static let suppressed = OutputPort<[Detection]>("")

    public static let contract = CalculatorContract(ports: [detections, image, suppressed])

    public var options: Options

    public init(options: Options) throws {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let streams = cc.indexes(Self.detections).count
        guard streams == options.numDetectionStreams else {
            throw GraphError(
                .invalidOption, "num_detection_streams is \(options.numDetectionStreams), the node has \(streams) untagged input streams")
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        var pooled: [Detection] = []
        for i in 0..<options.numDetectionStreams {
            if let list = try cc.value(Self.detections, i) { pooled += list }
        }
        if pooled.isEmpty {
            if options.returnEmptyDetections { try cc.emit([Detection](), to: Self.suppressed) }
            return
        }
        try cc.emit(Self.suppress(pooled, options: options), to: Self.suppressed)
    }

    /// The overlap of `a` with `b` as `type` measures it (`b` normalises `MODIFIED_JACCARD`).
    public static func overlap(_ type: Options.OverlapType, _ a: Rect, _ b: Rect) -> Float {
        let ax0 = Float(a.x), ay0 = Float(a.y), ax1 = Float(a.x + a.width), ay1 = Float(a.y + a.height)
        let bx0 = Float(b.x), by0 = Float(b.y), bx1 = Float(b.x + b.width), by1 = Float(b.y + b.height)
        // Empty or disjoint boxes do not overlap.
        if ax0 > ax1 || ay0 > ay1 || bx0 > bx1 || by0 > by1 || ax1 < bx0 || bx1 < ax0 || ay1 < by0 || by1 < ay0 { return 0 }
        let inter = (min(ax1, bx1) - max(ax0, bx0)) * (min(ay1, by1) - max(ay0, by0))
        let areaA = (ax1 - ax0) * (ay1 - ay0), areaB = (bx1 - bx0) * (by1 - by0)
        let norm: Float
        switch type {
        case .jaccard, .unspecified: norm = (max(ax1, bx1) - min(ax0, bx0)) * (max(ay1, by1) - min(ay0, by0))
        case .modifiedJaccard: norm = areaB
        case .intersectionOverUnion: norm = areaA + areaB - inter
        }
        return norm > 0 ? inter / norm : 0
    }

    /// `d` with only its best score and that score's label id (or label); `nil` without labels.
    static func bestLabelOnly(_ d: Detection) -> Detection? {
        guard !d.labelIDs.isEmpty || !d.labels.isEmpty, !d.scores.isEmpty else { return nil }
        var top = 0
        for k in d.scores.indices where d.scores[k] > d.scores[top] { top = k }
        var out = d
        out.scores = [d.scores[top]]
        if d.labelIDs.count > top { out.labelIDs = [d.labelIDs[top]] } else if d.labels.count > top { out.labels = [d.labels[top]] }
        return out
    }

    /// The detections `input` leaves after suppression.
    public static func suppress(_ input: [Detection], options o: Options) -> [Detection] {
        if o.perClass {
            var single = o
            single.perClass = false
            let pruned = input.compactMap(bestLabelOnly)
            let groups = Dictionary(grouping: pruned) { $0.labelID ?? -1 }
            var out = groups.keys.sorted().flatMap { suppress(groups[$0]!, options: single) }
            out = out.enumerated().sorted {
                $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset
            }.map(\.element)
            if o.maxNumDetections > 0 && out.count > o.maxNumDetections { out.removeLast(out.count - o.maxNumDetections) }
            return out
        }
        let pruned = input.compactMap(bestLabelOnly)
        // By descending score; ties keep their input order.
        let order = pruned.indices.sorted { pruned[$0].score != pruned[$1].score ? pruned[$0].score > pruned[$1].score : $0 < $1 }
        let threshold = Float(o.minSuppressionThreshold)
        func tooLow(_ d: Detection) -> Bool { o.minScoreThreshold > 0 && Float(d.score) < Float(o.minScoreThreshold) }
        var out: [Detection] = []
        if o.algorithm == .default {
            let limit = o.maxNumDetections > -1 ? o.maxNumDetections : order.count
            for i in order {
                let d = pruned[i]
                if tooLow(d) { break }
                if !out.contains(where: { overlap(o.overlapType, $0.box, d.box) > threshold }) { out.append(d) }
                if out.count >= limit { break }
            }
            return out
        }
        var remaining = order
        while let first = remaining.first {
            let d = pruned[first]
            if tooLow(d) { break }
            var claimed: [Int] = [], rest: [Int] = []
            for i in remaining {
                if overlap(o.overlapType, pruned[i].box, d.box) > threshold { claimed.append(i) } else { rest.append(i) }
            }
            var merged = d
            if !claimed.isEmpty {
                // Sums in Float, as MediaPipe's.
                let n = d.keypoints.count
                var kps = [Float](repeating: 0, count: 2 * n)
                var x0: Float = 0, y0: Float = 0, x1: Float = 0, y1: Float = 0, total: Float = 0
                for i in claimed {
                    let c = pruned[i], s = Float(c.score), b = c.box
                    total += s
                    x0 += Float(b.x) * s
                    y0 += Float(b.y) * s
                    x1 += Float(b.x + b.width) * s
                    y1 += Float(b.y + b.height) * s
                    let ck = c.keypoints
                    for k in 0..<min(n, ck.count) {
                        kps[2 * k] += Float(ck[k].x) * s
                        kps[2 * k + 1] += Float(ck[k].y) * s
                    }
                }
                let xmin = x0 / total, ymin = y0 / total
                merged.box = Rect(x: Double(xmin), y: Double(ymin), width: Double(x1 / total - xmin), height: Double(y1 / total - ymin))
                merged.keypoints = (0..<n).map { Point(x: Double(kps[2 * $0] / total), y: Double(kps[2 * $0 + 1] / total)) }
            }
            out.append(merged)
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return out
    }
}

extension NonMaxSuppressionCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard numDetectionStreams > 0, numDetectionStreams <= 1024 else {
            throw GraphError(.invalidOption, "num_detection_streams must be in 1...1024, not \(numDetectionStreams)")
        }
        guard maxNumDetections != 0, maxNumDetections >= -1 else {
            throw GraphError(.invalidOption, "max_num_detections must be positive, or -1 for no limit, not \(maxNumDetections)")
        }
        guard overlapType != .unspecified else {
            throw GraphError(.invalidOption, "overlap_type must be JACCARD, MODIFIED_JACCARD or INTERSECTION_OVER_UNION")
        }
        try OptionCheck.range(maxNumDetections, -1...Int(Int32.max), "max_num_detections")
        try OptionCheck.range(minScoreThreshold, -1e6...1e6, "min_score_threshold")
        try OptionCheck.range(minSuppressionThreshold, -1e6...1e6, "min_suppression_threshold")
    }
}
