import FrameFlow

/// Picks one gesture from several classifiers' results, as MediaPipe Tasks'
/// `CombinedPredictionCalculator`. The inputs are taken in order (GestureRecognizer: the custom
/// classifier, then the canned one); an input without a packet or with an empty list is skipped.
/// For each, the highest-scoring class (the first of equal ones; none above 0 gives an empty
/// label with score 0) wins when its score reaches its threshold — its `class` entry's
/// `score_threshold`, 0 for `background_label`, else `default_global_threshold` — otherwise the
/// list's `background_label` entry stands in (an empty prediction when it has none). The first
/// input whose prediction is not `background_label` is sent; if all are, the first prediction.
/// Nothing is sent when every input is empty.
///
/// The prediction holds one classification: the label and score only (index −1, as MediaPipe
/// leaves it unset).
///
/// Inputs: (untagged, one or more) ClassificationList. Outputs: `PREDICTION` (ClassificationList).
/// Options: `mediapipe.CombinedPredictionCalculatorOptions` { class (repeated { label,
///   score_threshold }), default_global_threshold (0), background_label ("") }; thresholds must be
///   finite.
///
/// Example usage:
/// ```
/// node {
///   calculator: "CombinedPredictionCalculator"
///   input_stream: "custom_gestures"
///   input_stream: "canned_gestures"
///   output_stream: "PREDICTION:gesture"
///   options { [mediapipe.CombinedPredictionCalculatorOptions.ext] { background_label: "None" } }
/// }
/// ```
public final class CombinedPredictionCalculator: Calculator {
    /// MediaPipe's `CombinedPredictionCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.CombinedPredictionCalculatorOptions"
        /// A class and its own threshold.
        public struct Class: Codable, Sendable, Equatable {
            /// The class's label.
            public var label: String?
            /// The score it needs.
            public var scoreThreshold: Double?
            /// A class `label` needing `scoreThreshold`.
            public init(label: String? = nil, scoreThreshold: Double? = nil) {
                self.label = label
                self.scoreThreshold = scoreThreshold
            }
        }
        /// Per-class thresholds.
        public var `class`: [Class] = []
        /// The threshold of the other classes.
        public var defaultGlobalThreshold = 0.0
        /// The class that means "no gesture".
        public var backgroundLabel = ""
        public init() {}

        public func validate() throws {
            try OptionCheck.finite(defaultGlobalThreshold)
            for c in `class` { try OptionCheck.finite(c.scoreThreshold ?? 0) }
        }
    }

    /// The classifiers' results, in priority order.
    public static let lists = InputPort<ClassificationList>("", repeated: true)
    /// The chosen class.
    public static let prediction = OutputPort<ClassificationList>("PREDICTION")

    public static let contract = CalculatorContract(ports: [lists, prediction])

    private let options: Options
    private var thresholds: [String: Float] = [:]
    private var indexes: [Int] = []

    public init(options: Options) {
        self.options = options
        for c in options.class { thresholds[c.label ?? ""] = Float(c.scoreThreshold ?? 0) }
        thresholds[options.backgroundLabel] = 0
    }

    public func open(_ cc: CalculatorContext) throws {
        indexes = cc.indexes(Self.lists)
        guard !indexes.isEmpty else {
            throw GraphError(.invalidPort, "CombinedPredictionCalculator needs one or more untagged inputs", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        var lists: [ClassificationList] = []
        for i in indexes { if let l = try cc.value(Self.lists, i) { lists.append(l) } }
        if let p = combine(lists) { try cc.emit(p, to: Self.prediction) }
    }

    /// The prediction for `lists` (in priority order), or nil when all are empty.
    func combine(_ lists: [ClassificationList]) -> ClassificationList? {
        var first: ClassificationList?
        for list in lists where !list.classification.isEmpty {
            let p = winner(list)
            if (p.label ?? "") != options.backgroundLabel { return ClassificationList([p]) }
            if first == nil { first = ClassificationList([p]) }
        }
        return first
    }

    /// The class `list` predicts.
    private func winner(_ list: ClassificationList) -> Classification {
        var best = Classification(index: -1, score: 0, label: "")
        for c in list.classification where Float(best.score) < Float(c.score) {
            best = Classification(index: -1, score: c.score, label: c.label ?? "")
        }
        let threshold = thresholds[best.label ?? ""] ?? Float(options.defaultGlobalThreshold)
        if Float(best.score) >= threshold { return best }
        if let bg = list.classification.first(where: { ($0.label ?? "") == options.backgroundLabel }) {
            return Classification(index: -1, score: bg.score, label: bg.label ?? "")
        }
        return Classification(index: -1, score: 0, label: "")
    }
}
