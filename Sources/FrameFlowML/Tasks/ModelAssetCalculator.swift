import Foundation
import FrameFlow
import FrameFlowInference

/// One entry of a MediaPipe Tasks model asset — a `.task` bundle (a ZIP of models and
/// resources, possibly nested) or a plain `.tflite` — as side packets: the model built from it
/// (shared through `ModelCache`, so every graph of the process holds one copy) and its bytes.
/// It plays the part of MediaPipe's `ModelResourcesCalculator` in FrameFlow's Tasks graphs,
/// which forward the task's `base_options.model_asset.file_name` into `model_asset_path`.
///
/// Inputs: none. Outputs: none.
/// Side packets out: `MODEL` (`Model`, optional), `CONTENTS` ([UInt8], optional).
/// Options: `frameflow.ModelAssetCalculatorOptions` {
///   model_asset_path: the `.task` or `.tflite` file (relative: under the resource roots), or
///     the name of bytes the graph's `ModelAssets` service holds;
///   entry: the entry to take when the asset is a bundle, `outer.task/inner.tflite` for a
///     nested one; a plain name missing at the bundle's top is looked for in its nested `.task`
///     bundles (in exactly one), so `hand_detector.tflite` is found in gesture_recognizer.task's
///     hand_landmarker.task; a plain model file is taken whole, so one graph runs on either }.
///
/// A missing file or entry fails the node's open with the file, the entry and the entries the
/// bundle has; a malformed bundle or model fails it naming the entry.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ModelAssetCalculator"
///   output_side_packet: "MODEL:face_detector_model"
///   options { [frameflow.ModelAssetCalculatorOptions.ext] {
///     model_asset_path: "face_landmarker.task" entry: "face_detector.tflite" } }
/// }
/// ```
public final class ModelAssetCalculator: Calculator {
    /// Which asset and which entry of it.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.ModelAssetCalculatorOptions"
        /// The `.task` or `.tflite` file.
        public var modelAssetPath = ""
        /// The entry to take when the asset is a bundle; ignored for a plain model file.
        public var entry = ""
        public init() {}
        /// Options for `entry` of `modelAssetPath`.
        public init(modelAssetPath: String, entry: String = "") {
            self.modelAssetPath = modelAssetPath
            self.entry = entry
        }
    }

    /// The model built from the entry.
    public static let model = OutputSidePacket<Model>("MODEL", optional: true)
    /// The entry's bytes.
    public static let contents = OutputSidePacket<[UInt8]>("CONTENTS", optional: true)

    public static let contract = CalculatorContract(ports: [model, contents])

    private let options: Options

    public init(options: Options) throws {
        guard !options.modelAssetPath.isEmpty else {
            throw GraphError(.invalidOption, "model_asset_path is empty: set base_options.model_asset.file_name of the task")
        }
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let (bytes, name) = try Self.read(options, environment: cc.environment)
        let connected = Set(cc.outputSidePacketPorts.map(\.tag))
        if connected.contains(Self.contents.tag) { try cc.set(bytes, to: Self.contents) }
        if connected.contains(Self.model.tag) { try cc.set(try Self.loadModel(bytes, name: name, environment: cc.environment), to: Self.model) }
    }

    /// The TFLite model in `bytes` (named `name` in errors), through the graph's `ModelCache`.
    static func loadModel(_ bytes: [UInt8], name: String, environment: GraphEnvironment) throws -> Model {
        do {
            let cache = environment.service(ModelCache.self) ?? .shared
            return try cache.model(tflite: bytes, file: name, limits: environment.limits)
        } catch let e as ModelError {
            throw GraphError(.calculatorFailed, e.message, cause: .invalidModelAsset(asset: name))
        }
    }

    /// Nothing per frame: the outputs are side packets.
    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }

    /// Whether `data` is a ZIP archive rather than a TFLite model: not `TFL3` at offset 4, and a
    /// local file header (`PK\u{3}\u{4}`) within its first 64 bytes. MediaPipe's published
    /// `.task` files start with two zero bytes before the first header (ZIP offsets count them).
    static func isBundle(_ data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(64))
        if bytes.count >= 8, bytes[4..<8].elementsEqual("TFL3".utf8) { return false }
        guard bytes.count >= 4 else { return false }
        return (0...(bytes.count - 4)).contains { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x03, 0x04]) }
    }

    /// The entry's bytes and its name for errors (`bundle.task/entry.tflite`).
    static func read(_ options: Options, environment: GraphEnvironment) throws -> (bytes: [UInt8], name: String) {
        let path = environment.resolve(options.modelAssetPath)
        let held = environment.service(ModelAssets.self)?.bytes(named: options.modelAssetPath).map { Data($0) }
        guard let data = held ?? FileManager.default.contents(atPath: path) else {
            let searched = path == options.modelAssetPath ? environment.placesSearched(for: path) : ""
            throw GraphError(
                .invalidOption, "cannot read the model asset '\(options.modelAssetPath)'\(searched)",
                cause: .missingFile(path: options.modelAssetPath))
        }
        guard isBundle(data) else { return ([UInt8](data), path) }
        guard !options.entry.isEmpty else {
            throw GraphError(
                .invalidOption, "\(options.modelAssetPath) is a bundle (a .task file): say which entry to take",
                cause: .invalidModelAsset(asset: options.modelAssetPath))
        }
        do {
            var bundle = try ModelBundle(bytes: [UInt8](data), name: path)
            let parts = options.entry.split(separator: "/").map(String.init)
            for part in parts.dropLast() { bundle = try bundle.bundle(part) }
            let last = parts.last ?? options.entry
            if parts.count == 1, !bundle.contains(last) {
                // As MediaPipe hands a sub-task its nested bundle (GestureRecognizer's
                // hand_landmarker.task): a name missing at the top is looked up one level down.
                let nested = try bundle.entryNames.filter { $0.hasSuffix(".task") }.map { try bundle.bundle($0) }
                let holders = nested.filter { $0.contains(last) }
                if holders.count > 1 {
                    throw GraphError(
                        .invalidOption,
                        "\(options.modelAssetPath) has '\(last)' in several nested bundles (\(holders.map(\.name).joined(separator: ", "))): name one",
                        cause: .invalidModelAsset(asset: options.modelAssetPath))
                }
                if let inner = holders.first { return (try inner.data(last), inner.path(of: last)) }
            }
            return (try bundle.data(last), bundle.path(of: last))
        } catch let e as ModelError {
            throw GraphError(.invalidOption, e.message, cause: .invalidModelAsset(asset: "\(options.modelAssetPath)/\(options.entry)"))
        }
    }
}
