import Foundation
import FrameFlow

/// As a `.jsonl` line: the best class's `label` (or its index as text), `score` and `index`,
/// and `classifications` with the whole list when there is more than one; an empty list
/// (nothing over the threshold) is `"classifications": []`.
extension Array: JSONLinesRepresentable where Element == Classification {
    public var jsonObject: [String: Any] {
        var members: [String: Any] = [:]
        if let best = first {
            members = ["label": best.label ?? String(best.index), "score": best.score, "index": best.index]
        }
        if count != 1 {
            members["classifications"] = map { c -> [String: Any] in
                ["label": c.label ?? String(c.index), "score": c.score, "index": c.index]
            }
        }
        return members
    }
}

/// Turns a classifier's scores into the top-k classes.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]`; the first tensor's values are the class scores.
/// Outputs:
///   - `CLASSIFICATIONS`: `[Classification]`, best first (at most `top_k`, score ≥
///     `min_score_threshold`). As JSON Lines: `{"index":7,"label":"7","score":0.99}`.
/// Options: `frameflow.TensorsToClassificationCalculatorOptions` { apply_softmax (false),
/// top_k (1; 0 = all), min_score_threshold (-inf), label_map_path (one label per line),
/// labels (inline) }.
public final class TensorsToClassificationCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.TensorsToClassificationCalculatorOptions"
        public var applySoftmax = false
        public var topK = 1
        public var minScoreThreshold = -Double.infinity
        public var labelMapPath = ""
        public var labels: [String] = []
        public init() {}
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("TENSORS", [Tensor].self)], outputs: [PortSpec("CLASSIFICATIONS", [Classification].self)])

    private var options: Options
    private var labels: [String]

    public init(options: Options) throws {
        guard options.topK >= 0 else { throw GraphError(.invalidOption, "top_k must be ≥ 0") }
        self.options = options
        labels = try Self.labels(options)
    }

    static func labels(_ o: Options) throws -> [String] {
        if o.labelMapPath.isEmpty { return o.labels }
        guard let text = try? String(contentsOfFile: ResourcePaths.resolve(o.labelMapPath), encoding: .utf8) else {
            throw GraphError(.invalidOption, "\(o.labelMapPath): cannot read the label map")
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .reversed().drop(while: \.isEmpty).reversed()
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let t = try cc.input("TENSORS", as: [Tensor].self).first else {
            throw GraphError(.calculatorFailed, "TENSORS is empty", stream: cc.inputStreamName("TENSORS"))
        }
        try cc.emit(try Self.classify(t.asFloats, options: options, labels: labels), tag: "CLASSIFICATIONS")
    }

    public static func classify(_ scores: [Float], options o: Options, labels: [String]) throws -> [Classification] {
        guard labels.isEmpty || labels.count == scores.count else {
            throw GraphError(.calculatorFailed, "\(labels.count) labels for \(scores.count) scores")
        }
        var s = scores.map(Double.init)
        if o.applySoftmax, let m = s.max() {
            let e = s.map { exp($0 - m) }
            let total = e.reduce(0, +)
            s = e.map { $0 / total }
        }
        var out = s.enumerated().filter { $0.element >= o.minScoreThreshold }
            .sorted { $0.element != $1.element ? $0.element > $1.element : $0.offset < $1.offset }
            .map { Classification(index: $0.offset, score: $0.element, label: labels.isEmpty ? nil : labels[$0.offset]) }
        if o.topK > 0 && out.count > o.topK { out.removeLast(out.count - o.topK) }
        return out
    }
}
