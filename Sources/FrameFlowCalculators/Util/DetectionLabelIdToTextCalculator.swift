import Foundation
import FrameFlow

/// Gives detections text labels for their label ids, as MediaPipe's
/// `DetectionLabelIdToTextCalculator`: for each id of a detection that the label map knows,
/// its name is appended to the detection's labels; when any id was known the ids are cleared,
/// unless `keep_label_id`. Ids the map lacks are skipped (kept when nothing was known).
///
/// The label map is one of (setting two is an error at graph build): `label_map_path`, a text
/// file with one name a line (line i names id i; relative paths under the resource roots);
/// `label`, names for ids 0, 1, …; `label_items`, id → name entries.
///
/// Inputs: (untagged) [Detection]. Outputs: (untagged) [Detection], one per input detection.
/// Options: `mediapipe.DetectionLabelIdToTextCalculatorOptions` { label_map_path, label (repeated),
///   keep_label_id (false), label_items (map<int64, LabelMapItem>: name) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "DetectionLabelIdToTextCalculator"
///   input_stream: "palm_detections"
///   output_stream: "labeled_palm_detections"
///   options { [mediapipe.DetectionLabelIdToTextCalculatorOptions.ext] { label: "Palm" } }
/// }
/// ```
public final class DetectionLabelIdToTextCalculator: Calculator {
    /// MediaPipe's `DetectionLabelIdToTextCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.DetectionLabelIdToTextCalculatorOptions"
        /// mediapipe/calculators/util/detection_label_id_to_text_calculator.proto, for binary graphs.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.detectionLabelIdToTextCalculatorOptions }

        /// One `label_items` entry: an id and its `LabelMapItem` (only the name is used).
        public struct LabelItem: Codable, Sendable, Equatable {
            /// The `LabelMapItem` of an id.
            public struct Value: Codable, Sendable, Equatable {
                /// The id's label.
                public var name: String?
                /// A name for display (accepted, not used: FrameFlow's Detection has none).
                public var displayName: String?
                /// Child labels (accepted, not used).
                public var childName: [String]?
                /// An item named `name`.
                public init(name: String? = nil) { self.name = name }
            }
            /// The label id.
            public var key = 0
            /// Its names.
            public var value = Value()
            /// An entry for `key`.
            public init(key: Int = 0, value: Value = Value()) {
                self.key = key
                self.value = value
            }
        }

        /// A text file of names, one a line.
        public var labelMapPath = ""
        /// Names for ids 0, 1, ….
        public var label: [String] = []
        /// Keep the ids when a name was found.
        public var keepLabelId = false
        /// Names by id.
        public var labelItems: [LabelItem] = []
        public init() {}
        /// Options naming ids 0, 1, … `labels`.
        public init(label: [String]) { self.label = label }

        public func validate() throws {
            let given = [!labelMapPath.isEmpty, !label.isEmpty, !labelItems.isEmpty].filter { $0 }.count
            guard given <= 1 else {
                throw GraphError(.invalidOption, "set only one of label_map_path, label and label_items")
            }
        }
    }

    /// The detections.
    public static let input = InputPort<[Detection]>("")
    /// The detections with text labels.
    public static let output = OutputPort<[Detection]>("")

    public static let contract = CalculatorContract(ports: [input, output])

    private let labels: [Int: String]
    private let keepLabelID: Bool

    public convenience init(options: Options) throws {
        try self.init(options: options, environment: GraphEnvironment())
    }

    /// Reads the label map (a relative `label_map_path` under `environment`'s resource roots).
    public init(options: Options, environment: GraphEnvironment) throws {
        keepLabelID = options.keepLabelId
        if !options.labelMapPath.isEmpty {
            let path = environment.resolve(options.labelMapPath)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw GraphError(
                    .invalidOption,
                    "label_map_path \(options.labelMapPath): cannot read the label map\(environment.placesSearched(for: path))",
                    cause: .missingFile(path: options.labelMapPath))
            }
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }  // the final newline ends the last line
            labels = Dictionary(uniqueKeysWithValues: lines.enumerated().map { ($0.offset, $0.element) })
        } else if !options.label.isEmpty {
            labels = Dictionary(uniqueKeysWithValues: options.label.enumerated().map { ($0.offset, $0.element) })
        } else {
            var m: [Int: String] = [:]
            for item in options.labelItems { m[item.key] = item.value.name ?? "" }
            labels = m
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let detections = try cc.value(Self.input) else { return }
        try cc.emit(detections.map(relabel), to: Self.output)
    }

    /// `d` with the names of its known ids appended to its labels.
    func relabel(_ d: Detection) -> Detection {
        var d = d
        let names = d.labelIDs.compactMap { labels[$0] }
        d.labels += names
        if !names.isEmpty, !keepLabelID { d.labelIDs = [] }
        return d
    }
}
