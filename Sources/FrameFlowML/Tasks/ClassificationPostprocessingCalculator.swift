import FrameFlow
import FrameFlowInference

/// A classifier model's scores as a ClassificationList, configured from the model's own TFLite
/// metadata as MediaPipe Tasks' `ClassificationPostprocessingGraph` configures its
/// `TensorsToClassificationCalculator` (one output head; no score calibration): the labels are
/// the first output tensor's TENSOR_AXIS_LABELS file, the threshold its ScoreThresholdingOptions
/// (−FLT_MAX without one), unless `score_threshold` is set; `max_results` > 0 keeps that many;
/// the classes are sorted by descending score (ties in index order). A model without metadata
/// gives classes without labels (GestureRecognizer's canned classifier).
///
/// Inputs: `TENSORS` ([Tensor]: the first holds the scores).
/// Outputs: `CLASSIFICATIONS` (ClassificationList).
/// Side packets in: `CONTENTS` ([UInt8]: the .tflite file, e.g. `ModelAssetCalculator`'s).
/// Options: `frameflow.ClassificationPostprocessingCalculatorOptions` (the fields of MediaPipe's
///   `ClassifierOptions` that apply) { score_threshold (unset: the metadata's), max_results
///   (−1: all; 0 is refused, as MediaPipe), category_allowlist, category_denylist (exclusive;
///   need labels) }.
/// Malformed metadata or labels fail the node's open naming the model.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ClassificationPostprocessingCalculator"
///   input_stream: "TENSORS:scores"
///   input_side_packet: "CONTENTS:classifier_bytes"
///   output_stream: "CLASSIFICATIONS:classes"
/// }
/// ```
public final class ClassificationPostprocessingCalculator: Calculator {
    /// The `ClassifierOptions` fields this calculator applies.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.ClassificationPostprocessingCalculatorOptions"
        /// The lowest score kept; unset: the metadata's threshold.
        public var scoreThreshold: Double?
        /// How many classes to keep, best first; −1 (or any negative): all.
        public var maxResults = -1
        /// Keep only these labels.
        public var categoryAllowlist: [String] = []
        /// Drop these labels.
        public var categoryDenylist: [String] = []
        public init() {}

        public func validate() throws {
            if let t = scoreThreshold {
                try OptionCheck.range(t, -Double(Float.greatestFiniteMagnitude)...Double(Float.greatestFiniteMagnitude), "score_threshold")
            }
            try OptionCheck.range(maxResults, Int(Int32.min)...Int(Int32.max), "max_results")
            guard maxResults != 0 else { throw GraphError(.invalidOption, "max_results must not be 0") }
            guard categoryAllowlist.isEmpty || categoryDenylist.isEmpty else {
                throw GraphError(.invalidOption, "category_allowlist and category_denylist exclude each other")
            }
        }
    }

    /// The scores.
    public static let tensors = InputPort<[Tensor]>("TENSORS")
    /// The classes.
    public static let classifications = OutputPort<ClassificationList>("CLASSIFICATIONS")
    /// The model file.
    public static let contents = InputSidePacket<[UInt8]>("CONTENTS")

    public static let contract = CalculatorContract(ports: [tensors, classifications, contents])

    private let options: Options
    private var settings = TensorsToClassificationCalculator.Options()
    private var labels: [Int: (name: String?, displayName: String?)]?

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let bytes = try cc.get(Self.contents)
        var names: [String]?
        var threshold = -Double(Float.greatestFiniteMagnitude)
        do {
            if let meta = try TFLiteMetadata(tflite: bytes, file: "the classifier model"), let head = meta.subgraphs.first?.outputs.first {
                if let file = head.associatedFile(ofType: .tensorAxisLabels) { names = try meta.labels(file.name ?? "") }
                for unit in head.processUnits {
                    if case .scoreThresholding(let t) = unit { threshold = Double(t) }
                }
            }
        } catch let e as ModelError {
            throw GraphError(.calculatorFailed, e.message, node: cc.nodeName, cause: .invalidModelAsset(asset: "the classifier model"))
        }
        if let t = options.scoreThreshold { threshold = t }
        settings.minScoreThreshold = threshold
        settings.topK = max(options.maxResults, 0)
        settings.sortByDescendingScore = true
        let listed = options.categoryAllowlist.isEmpty ? options.categoryDenylist : options.categoryAllowlist
        if !listed.isEmpty {
            guard let names else {
                throw GraphError(.invalidOption, "category_allowlist/denylist need a model with labels", node: cc.nodeName)
            }
            let ids = names.indices.filter { listed.contains(names[$0]) }
            if options.categoryAllowlist.isEmpty { settings.ignoreClasses = ids } else { settings.allowClasses = ids }
        }
        labels = names.map {
            Dictionary(uniqueKeysWithValues: $0.enumerated().map { ($0.offset, (name: Optional($0.element), displayName: String?.none)) })
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let tensors = try cc.value(Self.tensors) else { return }
        guard let t = tensors.first, t.isFloat else {
            throw GraphError(.calculatorFailed, "TENSORS must hold a float tensor of scores", node: cc.nodeName)
        }
        do {
            let classes = try TensorsToClassificationCalculator.classify(t.asFloats, options: settings, labels: labels)
            try cc.emit(ClassificationList(classes), to: Self.classifications)
        } catch var e as GraphError {
            e.node = cc.nodeName
            throw e
        }
    }
}
