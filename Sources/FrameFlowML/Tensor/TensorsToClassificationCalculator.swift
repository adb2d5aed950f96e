import Foundation
import FrameFlow
import FrameFlowInference

/// Turns a classifier's scores into classes, as MediaPipe's `TensorsToClassificationCalculator`
/// does.
///
/// Each score of the tensor is a class (index = position) unless the class is ignored (or not
/// allowed) or under `min_score_threshold`; with `binary_classification` the single score s
/// gives class 0 with s and class 1 with 1 − s. With `top_k` > 0 the best k remain, best
/// first; otherwise the classes keep index order unless `sort_by_descending_score`. Names
/// come from the label map (`label_map_path`: one label per line; `label_items`;
/// `label_map`), which must have one entry per class.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]`; the first tensor's values are the class scores.
/// Outputs:
///   - `CLASSIFICATIONS`: `ClassificationList`. As JSON Lines:
///     `{"classification":[{"index":7,"label":"7","score":0.99}],"index":7,"label":"7","score":0.99}`.
/// Options: `mediapipe.TensorsToClassificationCalculatorOptions` { min_score_threshold,
/// top_k (≤ 0: all, as in MediaPipe, whose Tasks graphs write -1), sort_by_descending_score, label_map_path, label_map { entries { id label } },
/// label_items { key value { name display_name } }, binary_classification, ignore_classes,
/// allow_classes }, and FrameFlow's apply_softmax (false: softmax over the scores first) and
/// labels (inline, by index).
///
/// Example usage:
/// ```
/// node {
///   calculator: "TensorsToClassificationCalculator"
///   input_stream: "TENSORS:logits"
///   output_stream: "CLASSIFICATIONS:classification"
///   options { [mediapipe.TensorsToClassificationCalculatorOptions.ext] {
///     top_k: 1 label_map_path: "Models/digits.txt" apply_softmax: true } }
/// }
/// ```
public final class TensorsToClassificationCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.TensorsToClassificationCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.tensorsToClassificationCalculatorOptions }

        /// MediaPipe's `LabelMap`: labels by class id.
        public struct LabelMap: Codable, Sendable, Equatable {
            public struct Entry: Codable, Sendable, Equatable {
                public var id = 0
                public var label = ""
                public init(id: Int = 0, label: String = "") {
                    self.id = id
                    self.label = label
                }
                public init(from decoder: any Decoder) throws {
                    let c = try decoder.container(keyedBy: CodingKeys.self)
                    id = try c.decodeIfPresent(Int.self, forKey: .id) ?? 0
                    label = try c.decodeIfPresent(String.self, forKey: .label) ?? ""
                }
            }
            public var entries: [Entry] = []
            public init(entries: [Entry] = []) { self.entries = entries }
        }

        /// One `label_items` map entry: a class id and its names.
        public struct LabelItem: Codable, Sendable, Equatable {
            public struct Value: Codable, Sendable, Equatable {
                public var name: String?
                public var displayName: String?
                public var childName: [String]?
                public init(name: String? = nil, displayName: String? = nil) {
                    self.name = name
                    self.displayName = displayName
                }
            }
            public var key = 0
            public var value = Value()
            public init(key: Int = 0, value: Value = Value()) {
                self.key = key
                self.value = value
            }
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                key = try c.decodeIfPresent(Int.self, forKey: .key) ?? 0
                value = try c.decodeIfPresent(Value.self, forKey: .value) ?? Value()
            }
        }

        /// Unset: every score passes.
        public var minScoreThreshold: Double?
        public var topK = 0
        public var sortByDescendingScore = false
        public var labelMapPath = ""
        public var labelMap: LabelMap?
        public var labelItems: [LabelItem] = []
        public var binaryClassification = false
        public var ignoreClasses: [Int] = []
        public var allowClasses: [Int] = []
        // FrameFlow's fields.
        public var applySoftmax = false
        public var labels: [String] = []
        public init() {}
    }

    /// The scores, as the first tensor.
    public static let tensors = InputPort<[Tensor]>("TENSORS")
    /// The classes and their scores.
    public static let classifications = OutputPort<ClassificationList>("CLASSIFICATIONS")

    public static let contract = CalculatorContract(ports: [tensors, classifications])

    private var options: Options
    private var labels: [Int: (name: String?, displayName: String?)]?

    public convenience init(options: Options) throws {
        try self.init(options: options, environment: GraphEnvironment())
    }

    /// Reads the label map, a relative `label_map_path` under `environment`'s resource roots.
    public init(options: Options, environment: GraphEnvironment) throws {
        self.options = options
        labels = try Self.labels(options, environment)
    }

    /// The label map `o` gives, by class id; `nil` without one.
    static func labels(_ o: Options, _ environment: GraphEnvironment = GraphEnvironment()) throws
        -> [Int: (name: String?, displayName: String?)]?
    {
        if !o.labelMapPath.isEmpty {
            guard let text = try? String(contentsOfFile: environment.resolve(o.labelMapPath), encoding: .utf8) else {
                let searched = environment.placesSearched(for: environment.resolve(o.labelMapPath))
                throw GraphError(
                    .invalidOption, "label_map_path \(o.labelMapPath): cannot read the label map\(searched)",
                    cause: .missingFile(path: o.labelMapPath))
            }
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
                String($0.hasSuffix("\r") ? $0.dropLast() : $0)
            }
            if lines.last == "" { lines.removeLast() }  // the final newline ends the last line
            return Dictionary(
                uniqueKeysWithValues: lines.enumerated().map { ($0.offset, (name: Optional($0.element), displayName: String?.none)) })
        }
        if !o.labelItems.isEmpty {
            var m: [Int: (name: String?, displayName: String?)] = [:]
            for item in o.labelItems { m[item.key] = (item.value.name, item.value.displayName) }
            return m
        }
        if let map = o.labelMap {
            var m: [Int: (name: String?, displayName: String?)] = [:]
            for e in map.entries {
                guard m[e.id] == nil else { throw GraphError(.invalidOption, "label_map: duplicate id \(e.id)") }
                m[e.id] = (e.label, nil)
            }
            return m
        }
        if !o.labels.isEmpty {
            return Dictionary(
                uniqueKeysWithValues: o.labels.enumerated().map { ($0.offset, (name: Optional($0.element), displayName: String?.none)) })
        }
        return nil
    }

    public func process(_ cc: CalculatorContext) throws {
        let tensors = try cc.get(Self.tensors)
        guard let t = tensors.first, t.isFloat else {
            throw GraphError(.calculatorFailed, "TENSORS must hold a float tensor of scores", stream: cc.inputStreamName(Self.tensors.tag))
        }
        do {
            try cc.emit(ClassificationList(try Self.classify(t.floats, options: options, labels: labels)), to: Self.classifications)
        } catch var e as GraphError {
            e.stream = cc.inputStreamName(Self.tensors.tag)
            throw e
        }
    }

    /// The classes of `scores` under `o`, named by `labels` (from `labels(_:)`).
    public static func classify(_ scores: [Float], options o: Options, labels: [Int: (name: String?, displayName: String?)]?) throws
        -> [Classification]
    {
        let classes = o.binaryClassification ? 2 : scores.count
        if o.binaryClassification && scores.count != 1 {
            throw GraphError(.calculatorFailed, "binary_classification needs exactly one score, got \(scores.count)")
        }
        if let labels, labels.count != classes {
            throw GraphError(.calculatorFailed, "the label map has \(labels.count) entries for \(classes) classes")
        }
        func named(_ i: Int, _ score: Double) -> Classification {
            Classification(index: i, score: score, label: labels?[i]?.name, displayName: labels?[i]?.displayName)
        }
        var out: [Classification]
        if o.binaryClassification {
            let s = Double(scores[0])
            out = [named(0, s), named(1, 1 - s)]
        } else {
            var s = scores.map(Double.init)
            if o.applySoftmax, let m = s.max() {
                let e = s.map { exp($0 - m) }
                let total = e.reduce(0, +)
                s = e.map { $0 / total }
            }
            let allow = Set(o.allowClasses), ignore = Set(o.ignoreClasses)
            out = s.indices.filter { allow.isEmpty ? !ignore.contains($0) : allow.contains($0) }
                .filter { o.minScoreThreshold == nil || Float(s[$0]) >= Float(o.minScoreThreshold!) }
                .map { named($0, s[$0]) }
        }
        // Best first, ties in index order.
        if o.topK > 0 || o.sortByDescendingScore {
            out = out.enumerated().sorted {
                $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset
            }.map(\.element)
        }
        if o.topK > 0 && out.count > o.topK { out.removeLast(out.count - o.topK) }
        return out
    }
}

extension TensorsToClassificationCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`): top_k
    /// any int32 (≤ 0 keeps all, as MediaPipe does), min_score_threshold any finite float.
    public func validate() throws {
        try OptionCheck.range(topK, Int(Int32.min)...Int(Int32.max), "top_k")
        // Any finite float: MediaPipe's Tasks graphs write the lowest float for "no threshold".
        // (3.4028235e38 is how protobuf prints that float; as a Double it is a little larger.)
        let float = 3.4028235e38
        if let t = minScoreThreshold { try OptionCheck.range(t, -float...float, "min_score_threshold") }
        guard allowClasses.isEmpty || ignoreClasses.isEmpty else {
            throw GraphError(.invalidOption, "allow_classes and ignore_classes exclude each other")
        }
        guard !binaryClassification || (allowClasses.isEmpty && ignoreClasses.isEmpty) else {
            throw GraphError(.invalidOption, "binary_classification takes no allow_classes or ignore_classes")
        }
    }
}
