// TFLiteMetadata: the metadata a TFLite model carries for MediaPipe Tasks and the TFLite
// Support library: the `ModelMetadata` flatbuffer (file identifier "M001", schema
// mediapipe/tasks/metadata/metadata_schema.fbs of MediaPipe 0.10.21) in the buffer that the
// model's `metadata` entry named "TFLITE_METADATA" points to, and the associated files (labels,
// vocabularies) packed in a ZIP archive appended to the model.
//
// Contract:
// - Every table and field of the schema is read (tensor names, descriptions, content
//   properties, process units such as NormalizationOptions — the mean and std that
//   image_to_tensor needs — stats, tensor groups, custom metadata, associated files). Absent
//   strings and tables are nil, absent vectors empty, absent scalars the schema's defaults.
//   Enum values the schema does not know are kept as numbers; union members it does not know
//   are `.other(type:)`.
// - A model without "TFLITE_METADATA" (or with an empty buffer there, as MediaPipe's Python
//   displayer skips it) has no metadata: nil, not an error. A file that is not a TFLite model,
//   a metadata buffer index out of range, a wrong file identifier, or a table, vector or string
//   out of the buffer is a `ModelError` naming the model and the field.
// - The appended archive is read by `ZipArchive` when the model ends in a ZIP end record; its
//   files are read on demand. `labels(_:)` splits a labels file into lines as MediaPipe's
//   `BuildLabelMapFromFiles` does.
// - Shared tables can make a small buffer describe a huge tree: reading stops with an error
//   past one item (table, vector element) per byte of the buffer.

/// The metadata of a TFLite model (`ModelMetadata` of the TFLite metadata schema) and the
/// associated files packed with it.
///
/// ```swift
/// if let meta = try TFLiteMetadata(tflite: bytes, file: "hand_detector.tflite") {
///     let input = meta.subgraphs[0].inputs[0]
///     print(input.normalization?.mean ?? [], input.normalization?.std ?? [])
///     if let labels = meta.subgraphs[0].outputs[1].associatedFile(ofType: .tensorAxisLabels) {
///         print(try meta.labels(labels.name ?? ""))
///     }
/// }
/// ```
public struct TFLiteMetadata: Sendable {
    /// The model's name.
    public var name: String?
    /// What the model does.
    public var description: String?
    /// The model's version.
    public var version: String?
    /// One entry per subgraph of the model (MediaPipe reads the first).
    public var subgraphs: [Subgraph]
    /// The model's author.
    public var author: String?
    /// The model's license.
    public var license: String?
    /// Files that belong to the whole model.
    public var associatedFiles: [AssociatedFile]
    /// The oldest metadata parser version that reads every field this metadata uses.
    public var minParserVersion: String?
    /// The names of the files packed in the ZIP archive appended to the model, in its order.
    public var packedFileNames: [String] { archive?.entries.map(\.name) ?? [] }
    /// The model's name in errors.
    public let file: String
    /// The archive appended to the model, if any.
    let archive: ZipArchive?

    /// Metadata of one subgraph: its input and output tensors and what goes with them.
    public struct Subgraph: Sendable, Equatable {
        /// The subgraph's name.
        public var name: String?
        /// What the subgraph does.
        public var description: String?
        /// One entry per input tensor, in the subgraph's input order.
        public var inputs: [TensorMetadata]
        /// One entry per output tensor, in the subgraph's output order.
        public var outputs: [TensorMetadata]
        /// Files that belong to the subgraph.
        public var associatedFiles: [AssociatedFile]
        /// Processing of all the inputs together (a tokenizer for several tensors).
        public var inputProcessUnits: [ProcessUnit]
        /// Processing of all the outputs together.
        public var outputProcessUnits: [ProcessUnit]
        /// Named groups of input tensors.
        public var inputTensorGroups: [TensorGroup]
        /// Named groups of output tensors (a detector's boxes, classes, scores, count).
        public var outputTensorGroups: [TensorGroup]
        /// Task-specific flatbuffers (a segmenter's activation), by name.
        public var customMetadata: [CustomMetadata]
    }

    /// Metadata of one input or output tensor.
    public struct TensorMetadata: Sendable, Equatable {
        /// The tensor's name in the metadata (not necessarily the model's tensor name).
        public var name: String?
        /// What the tensor holds.
        public var description: String?
        /// Names of the tensor's dimensions.
        public var dimensionNames: [String]
        /// What kind of data the tensor holds and its value range.
        public var content: Content?
        /// How to turn raw data into the tensor, or the tensor into results.
        public var processUnits: [ProcessUnit]
        /// Bounds of the tensor's values, per channel or for all.
        public var stats: Stats?
        /// Files that belong to the tensor (labels of its classes).
        public var associatedFiles: [AssociatedFile]

        /// The first normalization among `processUnits`: the mean and std a float image input
        /// takes (`(pixel - mean) / std`), as image_to_tensor reads it.
        public var normalization: NormalizationOptions? {
            for unit in processUnits { if case .normalization(let n) = unit { return n } }
            return nil
        }

        /// The first associated file of `type`, and of `locale` when one is given — as MediaPipe's
        /// `FindFirstAssociatedFileName` picks labels (no locale) and display names (a locale).
        public func associatedFile(ofType type: AssociatedFileType, locale: String? = nil) -> AssociatedFile? {
            associatedFiles.first { $0.type == type && $0.name != nil && (locale == nil || locale == "" || $0.locale == locale) }
        }
    }

    /// What a tensor holds: its properties and the range of dimensions they apply to.
    public struct Content: Sendable, Equatable {
        /// The kind of data (image, features, boxes, audio), nil when absent.
        public var properties: ContentProperties?
        /// The dimensions the content covers (`ValueRange` in the schema).
        public var range: ValueRange?
    }

    /// The `ContentProperties` union.
    public enum ContentProperties: Sendable, Equatable {
        /// Plain features (`FeatureProperties`, no fields).
        case feature
        /// An image (`ImageProperties`).
        case image(ImageProperties)
        /// Bounding boxes (`BoundingBoxProperties`).
        case boundingBox(BoundingBoxProperties)
        /// Audio samples (`AudioProperties`).
        case audio(AudioProperties)
        /// A union member this schema does not know, by its type number.
        case other(type: UInt8)
    }

    /// An image tensor's color space and default size.
    public struct ImageProperties: Sendable, Equatable {
        /// RGB, grayscale or unknown.
        public var colorSpace: ColorSpaceType
        /// The size images are resized to when the model takes any, nil when absent.
        public var defaultSize: ImageSize?
    }

    /// An image size in pixels.
    public struct ImageSize: Sendable, Equatable {
        /// Width in pixels.
        public var width: UInt32
        /// Height in pixels.
        public var height: UInt32
    }

    /// How a tensor's boxes are laid out.
    public struct BoundingBoxProperties: Sendable, Equatable {
        /// Where each of the four coordinates sits in the box's dimension.
        public var index: [UInt32]
        /// Boundaries, upper-left and size, or center and size.
        public var type: BoundingBoxType
        /// Ratios of the image size, or pixels.
        public var coordinateType: CoordinateType
    }

    /// An audio tensor's format.
    public struct AudioProperties: Sendable, Equatable {
        /// Samples per second.
        public var sampleRate: UInt32
        /// Channels, interleaved.
        public var channels: UInt32
    }

    /// An inclusive range of dimensions (`ValueRange`).
    public struct ValueRange: Sendable, Equatable {
        /// The first.
        public var min: Int32
        /// The last.
        public var max: Int32
    }

    /// One processing step (`ProcessUnit`, whose options are the `ProcessUnitOptions` union).
    public enum ProcessUnit: Sendable, Equatable {
        /// `(value - mean) / std` per channel.
        case normalization(NormalizationOptions)
        /// Score calibration with a parameters file.
        case scoreCalibration(ScoreCalibrationOptions)
        /// Scores under the threshold are dropped.
        case scoreThresholding(globalScoreThreshold: Float)
        /// A BERT tokenizer and its vocabulary files.
        case bertTokenizer(vocabFiles: [AssociatedFile])
        /// A SentencePiece tokenizer: its model files and vocabulary files.
        case sentencePieceTokenizer(modelFiles: [AssociatedFile], vocabFiles: [AssociatedFile])
        /// A regular-expression tokenizer: the delimiter pattern and vocabulary files.
        case regexTokenizer(delimiterPattern: String?, vocabFiles: [AssociatedFile])
        /// No options (type 0), or options this schema does not know, by their type number.
        case other(type: UInt8)
    }

    /// Normalization of a tensor's values: `(value - mean) / std`, per channel or for all.
    public struct NormalizationOptions: Sendable, Equatable {
        /// The means, one per channel or one for all.
        public var mean: [Float]
        /// The standard deviations, one per channel or one for all.
        public var std: [Float]
    }

    /// Score calibration options.
    public struct ScoreCalibrationOptions: Sendable, Equatable {
        /// The transformation applied before calibration.
        public var scoreTransformation: ScoreTransformationType
        /// The score of classes without calibration parameters.
        public var defaultScore: Float
    }

    /// Bounds of a tensor's values.
    public struct Stats: Sendable, Equatable {
        /// The largest values, per channel or for all.
        public var max: [Float]
        /// The smallest values, per channel or for all.
        public var min: [Float]
    }

    /// A named group of tensors.
    public struct TensorGroup: Sendable, Equatable {
        /// The group's name.
        public var name: String?
        /// The metadata names of its tensors.
        public var tensorNames: [String]
    }

    /// A named task-specific flatbuffer.
    public struct CustomMetadata: Sendable, Equatable {
        /// The metadata's name (`SEGMENTER_METADATA`).
        public var name: String?
        /// Its bytes.
        public var data: [UInt8]
    }

    /// A file that goes with the model, a subgraph or a tensor, packed in the appended archive.
    public struct AssociatedFile: Sendable, Equatable {
        /// The file's name in the appended archive.
        public var name: String?
        /// What the file holds.
        public var description: String?
        /// What the file is for (labels, vocabulary, calibration).
        public var type: AssociatedFileType
        /// The locale of a labels file that holds display names.
        public var locale: String?
        /// The file's version.
        public var version: String?
    }

    /// The `AssociatedFileType` enum.
    public struct AssociatedFileType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The schema's value.
        public let rawValue: Int8
        /// A value of the enum.
        public init(rawValue: Int8) { self.rawValue = rawValue }
        /// UNKNOWN.
        public static let unknown = Self(rawValue: 0)
        /// DESCRIPTIONS.
        public static let descriptions = Self(rawValue: 1)
        /// TENSOR_AXIS_LABELS: one label per line, for a tensor's last axis.
        public static let tensorAxisLabels = Self(rawValue: 2)
        /// TENSOR_VALUE_LABELS: one label per line, for a tensor's values.
        public static let tensorValueLabels = Self(rawValue: 3)
        /// TENSOR_AXIS_SCORE_CALIBRATION.
        public static let tensorAxisScoreCalibration = Self(rawValue: 4)
        /// VOCABULARY.
        public static let vocabulary = Self(rawValue: 5)
        /// SCANN_INDEX_FILE.
        public static let scannIndexFile = Self(rawValue: 6)
        /// The schema's name of the value, or the number.
        public var description: String {
            schemaName(
                rawValue,
                [
                    "UNKNOWN", "DESCRIPTIONS", "TENSOR_AXIS_LABELS", "TENSOR_VALUE_LABELS", "TENSOR_AXIS_SCORE_CALIBRATION", "VOCABULARY",
                    "SCANN_INDEX_FILE",
                ])
        }
    }

    /// The `ColorSpaceType` enum.
    public struct ColorSpaceType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The schema's value.
        public let rawValue: Int8
        /// A value of the enum.
        public init(rawValue: Int8) { self.rawValue = rawValue }
        /// UNKNOWN.
        public static let unknown = Self(rawValue: 0)
        /// RGB.
        public static let rgb = Self(rawValue: 1)
        /// GRAYSCALE.
        public static let grayscale = Self(rawValue: 2)
        /// The schema's name of the value, or the number.
        public var description: String { schemaName(rawValue, ["UNKNOWN", "RGB", "GRAYSCALE"]) }
    }

    /// The `BoundingBoxType` enum.
    public struct BoundingBoxType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The schema's value.
        public let rawValue: Int8
        /// A value of the enum.
        public init(rawValue: Int8) { self.rawValue = rawValue }
        /// UNKNOWN.
        public static let unknown = Self(rawValue: 0)
        /// BOUNDARIES: left, top, right, bottom.
        public static let boundaries = Self(rawValue: 1)
        /// UPPER_LEFT: left, top, width, height.
        public static let upperLeft = Self(rawValue: 2)
        /// CENTER: center x, center y, width, height.
        public static let center = Self(rawValue: 3)
        /// The schema's name of the value, or the number.
        public var description: String { schemaName(rawValue, ["UNKNOWN", "BOUNDARIES", "UPPER_LEFT", "CENTER"]) }
    }

    /// The `CoordinateType` enum.
    public struct CoordinateType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The schema's value.
        public let rawValue: Int8
        /// A value of the enum.
        public init(rawValue: Int8) { self.rawValue = rawValue }
        /// RATIO: fractions of the image size.
        public static let ratio = Self(rawValue: 0)
        /// PIXEL.
        public static let pixel = Self(rawValue: 1)
        /// The schema's name of the value, or the number.
        public var description: String { schemaName(rawValue, ["RATIO", "PIXEL"]) }
    }

    /// The `ScoreTransformationType` enum.
    public struct ScoreTransformationType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The schema's value.
        public let rawValue: Int8
        /// A value of the enum.
        public init(rawValue: Int8) { self.rawValue = rawValue }
        /// IDENTITY.
        public static let identity = Self(rawValue: 0)
        /// LOG.
        public static let log = Self(rawValue: 1)
        /// INVERSE_LOGISTIC.
        public static let inverseLogistic = Self(rawValue: 2)
        /// The schema's name of the value, or the number.
        public var description: String { schemaName(rawValue, ["IDENTITY", "LOG", "INVERSE_LOGISTIC"]) }
    }

    /// The bytes of the associated file `name`, from the archive appended to the model.
    /// - Throws: `ModelError` naming the model and the file when the model has no archive, the
    ///   archive has no such file (listing those it has), or the file cannot be read.
    public func associatedFile(_ name: String) throws -> [UInt8] {
        guard let archive else { throw ModelError("\(file): no associated file '\(name)' (the model has no files packed with it)") }
        return try archive.data(named: name)
    }

    /// The labels in the associated file `name`, one per line, as MediaPipe's
    /// `BuildLabelMapFromFiles` reads them: split at each `\n` (a `\r` stays), a final empty line
    /// dropped.
    /// - Throws: `ModelError` naming the model and the file when it is missing or empty.
    public func labels(_ name: String) throws -> [String] {
        let bytes = try associatedFile(name)
        guard !bytes.isEmpty else { throw ModelError("\(file): the labels file '\(name)' is empty") }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// `names[value]`, or the number when the schema has no name for it.
private func schemaName(_ value: Int8, _ names: [String]) -> String {
    value >= 0 && Int(value) < names.count ? names[Int(value)] : String(value)
}
