import Foundation
import FrameFlow

/// Removes overlapping detections, as MediaPipe's `NonMaxSuppressionCalculator` does.
///
/// Detections are taken by descending score; each one claims every remaining detection
/// whose IoU with it exceeds `min_suppression_threshold`. The `default` algorithm keeps the
/// claimer; `weighted` replaces it by the score-weighted mean of the box and keypoints of
/// everything it claimed (itself included), keeping its score.
///
/// Inputs:
///   - `DETECTIONS`: `[Detection]`.
/// Outputs:
///   - `DETECTIONS`: `[Detection]`, by descending score.
/// Options: `frameflow.NonMaxSuppressionCalculatorOptions` { min_suppression_threshold (0.3),
/// algorithm ("default" | "weighted"), max_num_detections (-1 = all), min_score_threshold (0),
/// per_class (false: detections of different labels also suppress each other) }.
public final class NonMaxSuppressionCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.NonMaxSuppressionCalculatorOptions"
        public var minSuppressionThreshold = 0.3
        public var algorithm = "default"
        public var maxNumDetections = -1
        public var minScoreThreshold = 0.0
        public var perClass = false
        public init() {}
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("DETECTIONS", [Detection].self)], outputs: [PortSpec("DETECTIONS", [Detection].self)])

    public var options: Options

    public init(options: Options) throws {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        try cc.emit(Self.suppress(try cc.input("DETECTIONS", as: [Detection].self), options: options), tag: "DETECTIONS")
    }

    public static func suppress(_ input: [Detection], options o: Options) -> [Detection] {
        if o.perClass {
            let groups = Dictionary(grouping: input) { $0.labelID ?? -1 }
            var out = groups.keys.sorted().flatMap { k in suppress(groups[k]!, options: { var p = o; p.perClass = false; return p }()) }
            out.sort { $0.score > $1.score }
            if o.maxNumDetections >= 0 && out.count > o.maxNumDetections { out.removeLast(out.count - o.maxNumDetections) }
            return out
        }
        // Stable: equal scores keep their input order.
        var remaining = input.enumerated().sorted { $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset }.map(\.element)
        var out: [Detection] = []
        while let top = remaining.first, top.score >= o.minScoreThreshold {
            if o.maxNumDetections >= 0 && out.count >= o.maxNumDetections { break }
            var claimed: [Detection] = [], rest: [Detection] = []
            for d in remaining {
                if top.box.iou(d.box) > o.minSuppressionThreshold || d == top { claimed.append(d) } else { rest.append(d) }
            }
            var kept = top
            if o.algorithm == "weighted" && claimed.count > 1 {
                let total = claimed.reduce(0) { $0 + $1.score }
                var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
                var kps = [Point](repeating: Point(x: 0, y: 0), count: top.keypoints.count)
                for d in claimed {
                    let w = d.score / total
                    x0 += d.box.x * w; y0 += d.box.y * w; x1 += d.box.maxX * w; y1 += d.box.maxY * w
                    for k in kps.indices where k < d.keypoints.count {
                        kps[k].x += d.keypoints[k].x * w
                        kps[k].y += d.keypoints[k].y * w
                    }
                }
                kept.box = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                if claimed.allSatisfy({ $0.keypoints.count == top.keypoints.count }) { kept.keypoints = kps }
            }
            out.append(kept)
            remaining = rest
        }
        return out
    }
}

extension NonMaxSuppressionCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard ["default", "weighted"].contains(algorithm) else {
            throw GraphError(.invalidOption, "algorithm must be default or weighted, not '\(algorithm)'")
        }
        guard (0...1).contains(minSuppressionThreshold) else { throw GraphError(.invalidOption, "min_suppression_threshold must be in [0, 1]") }
    }
}
