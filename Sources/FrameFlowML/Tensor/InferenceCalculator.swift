import Foundation
import FrameFlow
import FrameFlowInference
import Synchronization

/// Runs an ONNX or TFLite model on each packet of tensors, as MediaPipe's
/// `InferenceCalculator` does (FrameFlow has one CPU engine, so the delegate is accepted and
/// does not change anything).
///
/// The model is loaded once, at `open`: from the `MODEL` side packet when the node has one
/// (a `Model`, e.g. from `TfLiteModelCalculator`, or a path string such as
/// `frameflow run --side model=yolo.onnx` gives), else from `model_path` (relative paths are
/// looked up under the resource root first). A file is loaded once per process while graphs
/// use it (`ModelCache`): cameras running the same graph share one `Model`.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]`, matched to the model's inputs in order (or by
///     `input_tensor_names_map` / `input_tensor_indices_map` / `input_names`). A tensor with
///     the input's element count in another shape is taken in the input's shape, as MediaPipe's
///     CPU inference copies buffers.
/// Outputs:
///   - `TENSORS`: `[Tensor]`, the model's outputs in order (or as the output maps or
///     `output_names` select them).
/// Side packets: `MODEL` (optional): `Model` or `String` path; `OP_RESOLVER` /
/// `CUSTOM_OP_RESOLVER` (optional, accepted: FrameFlow's engine has all its ops built in).
/// Options: `mediapipe.InferenceCalculatorOptions` { model_path, try_mmap_model, use_gpu,
/// use_nnapi, cpu_num_thread, delegate { tflite | gpu | nnapi | xnnpack } (accepted, not
/// used), input_output_config { input_tensor_indices_map | input_tensor_names_map,
/// output_tensor_indices_map | output_tensor_names_map } }, and FrameFlow's input_names and
/// output_names (model tensor names, like the names maps). cpu_num_thread: −1…1024.
///
/// Example usage:
/// ```
/// node {
///   calculator: "InferenceCalculator"
///   input_stream: "TENSORS:input_tensors"
///   output_stream: "TENSORS:output_tensors"
///   options { [mediapipe.InferenceCalculatorOptions.ext] {
///     model_path: "mediapipe/modules/face_detection/face_detection_short_range.tflite"
///     delegate { xnnpack {} } } }
/// }
/// ```
public final class InferenceCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.InferenceCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.inferenceCalculatorOptions }

        /// MediaPipe's `Delegate`: which accelerator to use. FrameFlow records only which one
        /// was named; its CPU engine runs every model.
        public struct Delegate: Codable, Sendable, Equatable {
            /// The delegate's name (`tflite`, `gpu`, `nnapi`, `xnnpack`), if one is given.
            public var kind: String?
            public init(kind: String? = nil) { self.kind = kind }
            struct AnyKey: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            public init(from decoder: any Decoder) throws {
                let keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
                let known = ["tflite", "gpu", "nnapi", "xnnpack", "kind"]
                if let bad = keys.first(where: { !known.contains($0) }) {
                    throw GraphError(.unknownOption, "unknown delegate '\(bad)'; known: tflite, gpu, nnapi, xnnpack")
                }
                kind = keys.first { $0 != "kind" }
            }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: AnyKey.self)
                try c.encodeIfPresent(kind, forKey: AnyKey(stringValue: "kind"))
            }
        }

        /// Model tensor indices, in the order of the stream's tensors.
        public struct TensorIndicesMap: Codable, Sendable, Equatable {
            public var modelTensorIndices: [Int] = []
            public init() {}
        }
        /// Model tensor names, in the order of the stream's tensors.
        public struct TensorNamesMap: Codable, Sendable, Equatable {
            public var tensorNames: [String] = []
            public init() {}
        }
        /// MediaPipe's `InputOutputConfig` (feedback tensor links are not supported).
        public struct InputOutputConfig: Codable, Sendable, Equatable {
            public var inputTensorIndicesMap: TensorIndicesMap?
            public var inputTensorNamesMap: TensorNamesMap?
            public var outputTensorIndicesMap: TensorIndicesMap?
            public var outputTensorNamesMap: TensorNamesMap?
            public init() {}
        }

        public var modelPath = ""
        public var tryMmapModel = false
        public var useGpu = false
        public var useNnapi = false
        public var cpuNumThread = -1
        public var delegate: Delegate?
        public var inputOutputConfig: InputOutputConfig?
        // FrameFlow's fields.
        public var inputNames: [String] = []
        public var outputNames: [String] = []
        public init() {}

        /// The header's range (the field is accepted, not used).
        public func validate() throws { try OptionCheck.range(cpuNumThread, -1...1024, "cpu_num_thread") }
    }

    /// MediaPipe's expanded Tasks graphs name the CPU variant.
    public static var aliases: [String] { ["InferenceCalculatorCpu"] }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("TENSORS", [Tensor].self)], outputs: [PortSpec("TENSORS", [Tensor].self)],
        inputSidePackets: [
            PortSpec("MODEL", optional: true), PortSpec("OP_RESOLVER", optional: true), PortSpec("CUSTOM_OP_RESOLVER", optional: true),
        ],
        concurrentProcess: true,  // Model.run is thread-safe: each run takes its own buffers
        runsModel: true)  // every call timed: the fleet's frameflow_camera_inference_seconds

    private var options: Options
    private var model: Model?
    private var environment = GraphEnvironment()
    private var inputNames: [String] = []
    private var outputNames: [String] = []
    /// `process` calls in progress (more than one with the node's `concurrency`).
    private let running = Atomic<Int>(0)

    public init(options: Options) throws { self.options = options }

    public func update(options: Options) throws {
        if options.modelPath != self.options.modelPath && !options.modelPath.isEmpty {
            model = try Self.load(options.modelPath, environment)
        }
        if let m = model {
            try selectTensorNames(of: m, options)
        }
        self.options = options
    }

    /// Loads `path`, a relative one looked up under the environment's resource roots first,
    /// through its `ModelCache` (the process's by default): graphs running the same file
    /// share one `Model`.
    static func load(_ path: String, _ environment: GraphEnvironment) throws -> Model {
        do {
            return try (environment.service(ModelCache.self) ?? .shared).model(atPath: path, environment: environment)
        } catch let e as ModelError {
            throw GraphError(.invalidOption, "model \(path): \(e.message)", cause: e.cause ?? .invalidModelAsset(asset: path))
        }
    }

    public func open(_ cc: CalculatorContext) throws {
        environment = cc.environment
        if let side = cc.sidePacket("MODEL"), !side.isEmpty {
            if let m = try? side.get(Model.self) {
                model = m
            } else {
                model = try Self.load(try side.get(String.self), environment)
            }
        } else {
            guard !options.modelPath.isEmpty else {
                throw GraphError(.invalidOption, "no model: set model_path or give a MODEL side packet")
            }
            model = try Self.load(options.modelPath, environment)
        }
        try selectTensorNames(of: model!, options)
    }

    /// Sets the model's input and output tensors the streams carry, in order, as `options` select.
    private func selectTensorNames(of m: Model, _ options: Options) throws {
        inputNames = try Self.names(
            m.inputs.map(\.name), names: options.inputNames, map: options.inputOutputConfig?.inputTensorNamesMap,
            indices: options.inputOutputConfig?.inputTensorIndicesMap, side: "input")
        outputNames = try Self.names(
            m.outputs.map(\.name), names: options.outputNames, map: options.inputOutputConfig?.outputTensorNamesMap,
            indices: options.inputOutputConfig?.outputTensorIndicesMap, side: "output")
    }

    /// `tensors` (fed to the model's inputs `names`), each with the element count of a fully known
    /// model input but another shape taken in the model's shape: MediaPipe's CPU inference copies
    /// the buffer and checks only its size (GestureRecognizer feeds `[1, 3, 21, 1]` to a
    /// `[1, 21, 3]` input). Any other mismatch is left for the model to refuse.
    static func reshaped(_ tensors: [Tensor], _ names: [String], _ model: Model) -> [Tensor] {
        zip(tensors, names).map { t, name in
            guard let declared = model.inputs.first(where: { $0.name == name })?.shape, !declared.contains(where: { $0 == nil }) else {
                return t
            }
            let shape = declared.map { $0! }
            guard shape != t.shape, shape.reduce(1, *) == t.count else { return t }
            var r = t
            r.shape = shape
            return r
        }
    }

    /// The model's `side` tensors the stream's tensors are, in order: all of `all`, or those
    /// `names`, the names map or the indices map select.
    static func names(_ all: [String], names: [String], map: Options.TensorNamesMap?, indices: Options.TensorIndicesMap?, side: String)
        throws -> [String]
    {
        var chosen = all
        if !names.isEmpty { chosen = names } else if let map { chosen = map.tensorNames }
        if let indices {
            chosen = try indices.modelTensorIndices.map { i in
                guard i >= 0 && i < all.count else {
                    throw GraphError(.invalidOption, "the model has no \(side) tensor \(i) (it has \(all.count))")
                }
                return all[i]
            }
        }
        for n in chosen where !all.contains(n) {
            throw GraphError(.invalidOption, "the model has no \(side) tensor '\(n)' (\(side)s: \(all))")
        }
        return chosen
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let model else { return }
        let tensors = try cc.input("TENSORS", as: [Tensor].self)
        let names = inputNames
        guard tensors.count == names.count else {
            throw GraphError(
                .calculatorFailed, "got \(tensors.count) tensors, the model takes \(names.count) (\(names.joined(separator: ", ")))",
                stream: cc.inputStreamName("TENSORS"))
        }
        let outputs: [String: Tensor]
        do {
            // With another of this node's steps running (a node with `concurrency`), the
            // workers are already busy: run on this thread alone rather than split ops
            // into chunks nobody else is free to take.
            let others = running.add(1, ordering: .acquiringAndReleasing).oldValue
            defer { running.subtract(1, ordering: .acquiringAndReleasing) }
            let parallelism =
                others > 0
                ? Parallelism(threads: 1) { $2(0..<$0) }
                : Parallelism(threads: cc.parallelThreads) { cc.parallelFor($0, grain: $1, $2) }
            outputs = try model.run(Dictionary(uniqueKeysWithValues: zip(names, Self.reshaped(tensors, names, model))), parallelism: parallelism)
        } catch let e as ModelError {
            throw GraphError(.calculatorFailed, e.message, stream: cc.inputStreamName("TENSORS"))
        }
        let wanted = outputNames
        try cc.emit(
            try wanted.map { n in
                guard let t = outputs[n] else { throw GraphError(.calculatorFailed, "the model produced no '\(n)'") }
                return t
            }, tag: "TENSORS")
    }
}
