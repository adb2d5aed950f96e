import Foundation
import FrameFlow
import FrameFlowInference

/// A model as side packets, as MediaPipe's `ModelResourcesCalculator` gives it in the graphs
/// MediaPipe expands from its Tasks (the configs its `ValidatedGraphConfig` prints): each
/// `InferenceCalculatorCpu` there takes its `MODEL` from one of these. FrameFlow's own Tasks
/// graphs use `ModelAssetCalculator` instead; this one lets MediaPipe's expanded configs run
/// as written.
///
/// Inputs: none. Outputs: none.
/// Side packets out: `MODEL` (`Model`, optional), `OP_RESOLVER` (`TfLiteOpResolver`, optional:
///   FrameFlow's engine resolves every operator itself), `METADATA_EXTRACTOR` ([UInt8],
///   optional: the model file's bytes, where MediaPipe gives a reader of its metadata).
/// Options: `mediapipe.tasks.core.proto.ModelResourcesCalculatorOptions` {
///   model_file { file_name }: a `.tflite` file (relative: under the resource roots);
///   model_resources_tag: MediaPipe's name for the model a task graph registered,
///     `<graph type>_<node path>_model_resources[_<model>]`. FrameFlow reads it from the
///     graph's `ModelAssets`: the bytes held under the tag itself if any, else the entry of
///     `ModelAssets.taskAsset` (the task's `.task` bundle or `.tflite` file) that the graph type
///     loads — `SinglePoseLandmarksDetectorGraph` → `pose_landmarks_detector.tflite`, the
///     gesture recognizer's `_gesture_embedder` suffix → `gesture_embedder.tflite`, … }.
/// An unknown graph type in a tag, a tag without a task asset, or `file_content` (model bytes
/// inside the config; not supported) fail the node's open naming the tag.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ModelResourcesCalculator"
///   output_side_packet: "MODEL:pose_detector_model"
///   options { [mediapipe.tasks.core.proto.ModelResourcesCalculatorOptions.ext] {
///     model_resources_tag: "mediapipe.tasks.vision.pose_detector.PoseDetectorGraph_x_model_resources" } }
/// }
/// ```
public final class ModelResourcesCalculator: Calculator {
    /// Where the model comes from.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.tasks.core.proto.ModelResourcesCalculatorOptions"
        /// A model file (`ExternalFile`; `file_name` only).
        public struct ExternalFile: Codable, Sendable, Equatable {
            /// The model's path.
            public var fileName: String?
            /// Model bytes inside the config: not supported (rejected with a clear error).
            public var fileContent: String?
            public init() {}
        }
        /// MediaPipe's model-resources cache key.
        public var modelResourcesTag = ""
        /// The model file, when there is no tag.
        public var modelFile: ExternalFile?
        public init() {}

        public func validate() throws {
            if modelFile?.fileContent != nil {
                throw GraphError(.invalidOption, "model_file.file_content (model bytes in the config) is not supported: give model_file.file_name")
            }
            if modelResourcesTag.isEmpty, (modelFile?.fileName ?? "").isEmpty {
                throw GraphError(.invalidOption, "set model_resources_tag or model_file.file_name")
            }
        }
    }

    /// The model.
    public static let model = OutputSidePacket<Model>("MODEL", optional: true)
    /// The operator resolver MediaPipe's inference calculator takes (a marker here).
    public static let opResolver = OutputSidePacket<TfLiteOpResolver>("OP_RESOLVER", optional: true)

    /// The model file's bytes.
    public static let metadataExtractor = OutputSidePacket<[UInt8]>("METADATA_EXTRACTOR", optional: true)

    public static let contract = CalculatorContract(ports: [model, opResolver, metadataExtractor])

    /// The bundle entry each MediaPipe Tasks graph type loads (the type's last component).
    static let entries: [String: String] = [
        "FaceDetectorGraph": "face_detector.tflite", "FaceBlendshapesGraph": "face_blendshapes.tflite",
        "SingleFaceLandmarksDetectorGraph": "face_landmarks_detector.tflite", "HandDetectorGraph": "hand_detector.tflite",
        "SingleHandLandmarksDetectorGraph": "hand_landmarks_detector.tflite", "PoseDetectorGraph": "pose_detector.tflite",
        "SinglePoseLandmarksDetectorGraph": "pose_landmarks_detector.tflite",
    ]

    private let options: Options

    public init(options: Options) { self.options = options }

    /// The `ModelAssetCalculator` options that read the model `tag` names from `asset`.
    static func asset(forTag tag: String, taskAsset asset: String) throws -> ModelAssetCalculator.Options {
        guard let marker = tag.range(of: "_model_resources") else {
            throw GraphError(.invalidOption, "model_resources_tag '\(tag)' is not MediaPipe's <graph>_…_model_resources form")
        }
        // The graph type is dotted, its package names may hold underscores, its own name none.
        let lastDot = tag.lastIndex(of: ".").map { tag.index(after: $0) } ?? tag.startIndex
        let graph = String(tag[..<(tag[lastDot...].firstIndex(of: "_") ?? tag.endIndex)])
        let type = String(graph.split(separator: ".").last ?? "")
        let suffix = tag[marker.upperBound...].drop { $0 == "_" }
        if graph == "unnamed" { return .init(modelAssetPath: asset) }  // a task of one plain model (ImageSegmenter)
        if !suffix.isEmpty { return .init(modelAssetPath: asset, entry: "\(suffix).tflite") }
        guard let entry = entries[type] else {
            throw GraphError(.invalidOption, "model_resources_tag '\(tag)': FrameFlow does not know which model \(graph) loads")
        }
        return .init(modelAssetPath: asset, entry: entry)
    }

    public func open(_ cc: CalculatorContext) throws {
        let assets = cc.environment.service(ModelAssets.self)
        let source: ModelAssetCalculator.Options
        if let file = options.modelFile?.fileName, !file.isEmpty {
            source = .init(modelAssetPath: file)
        } else if assets?.bytes(named: options.modelResourcesTag) != nil {
            source = .init(modelAssetPath: options.modelResourcesTag)
        } else if let task = assets?.taskAsset {
            source = try Self.asset(forTag: options.modelResourcesTag, taskAsset: task)
        } else {
            throw GraphError(
                .invalidOption,
                "model_resources_tag '\(options.modelResourcesTag)': no model under that name and no task asset in the graph's ModelAssets (give it the .task file)",
                node: cc.nodeName)
        }
        let (bytes, name) = try ModelAssetCalculator.read(source, environment: cc.environment)
        let connected = Set(cc.outputSidePacketPorts.map(\.tag))
        if connected.contains(Self.opResolver.tag) { try cc.set(TfLiteOpResolver(), to: Self.opResolver) }
        if connected.contains(Self.metadataExtractor.tag) { try cc.set(bytes, to: Self.metadataExtractor) }
        if connected.contains(Self.model.tag) {
            try cc.set(try ModelAssetCalculator.loadModel(bytes, name: name, environment: cc.environment), to: Self.model)
        }
    }

    /// Nothing per frame: the outputs are side packets.
    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}
