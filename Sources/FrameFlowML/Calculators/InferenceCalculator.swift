import Foundation
import FrameFlow
import Synchronization

/// Runs an ONNX or TFLite model on each packet of tensors.
///
/// The model is loaded once, at `open`: from the `MODEL` side packet when the node has one
/// (a `Model`, or a path string such as `frameflow run --side model=yolo.onnx` gives), else
/// from `model_path`.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]`, matched to the model's inputs in order (or by `input_names`).
/// Outputs:
///   - `TENSORS`: `[Tensor]`, the model's outputs in order (or those named in `output_names`).
/// Side packets: `MODEL` (optional): `Model` or `String` path.
/// Options: `frameflow.InferenceCalculatorOptions` { model_path, input_names ([]),
/// output_names ([]) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "InferenceCalculator"
///   input_stream: "TENSORS:input_tensors"
///   output_stream: "TENSORS:output_tensors"
///   options { [frameflow.InferenceCalculatorOptions.ext] { model_path: "digits.onnx" } }
/// }
/// ```
public final class InferenceCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.InferenceCalculatorOptions"
        public var modelPath = ""
        public var inputNames: [String] = []
        public var outputNames: [String] = []
        public init() {}
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec("TENSORS", [Tensor].self)], outputs: [PortSpec("TENSORS", [Tensor].self)],
        inputSidePackets: [PortSpec("MODEL", optional: true)],
        concurrentProcess: true)  // Model.run is thread-safe: each run takes its own buffers

    private var options: Options
    private var model: Model?
    /// `process` calls in progress (more than one with the node's `concurrency`).
    private let running = Atomic<Int>(0)

    public init(options: Options) throws { self.options = options }

    public func update(options: Options) throws {
        if options.modelPath != self.options.modelPath && !options.modelPath.isEmpty {
            model = try Self.load(options.modelPath)
        }
        self.options = options
    }

    /// Loads `path`, a relative one looked up under the resource root first.
    static func load(_ path: String) throws -> Model {
        do {
            return try Model(contentsOf: URL(fileURLWithPath: ResourcePaths.resolve(path)))
        } catch let e as ModelError {
            throw GraphError(.invalidOption, "model \(path): \(e.message)")
        }
    }

    public func open(_ cc: CalculatorContext) throws {
        if let side = cc.sidePacket("MODEL"), !side.isEmpty {
            if let m = try? side.get(Model.self) {
                model = m
            } else {
                model = try Self.load(try side.get(String.self))
            }
        } else {
            guard !options.modelPath.isEmpty else { throw GraphError(.invalidOption, "no model: set model_path or give a MODEL side packet") }
            model = try Self.load(options.modelPath)
        }
        let m = model!
        for name in options.inputNames + options.outputNames where !(m.inputs + m.outputs).contains(where: { $0.name == name }) {
            throw GraphError(.invalidOption, "the model has no tensor '\(name)' (inputs: \(m.inputs.map(\.name)), outputs: \(m.outputs.map(\.name)))")
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let model else { return }
        let tensors = try cc.input("TENSORS", as: [Tensor].self)
        let names = options.inputNames.isEmpty ? model.inputs.map(\.name) : options.inputNames
        guard tensors.count == names.count else {
            throw GraphError(.calculatorFailed, "got \(tensors.count) tensors, the model takes \(names.count) (\(names.joined(separator: ", ")))", stream: cc.inputStreamName("TENSORS"))
        }
        let outputs: [String: Tensor]
        do {
            // With another of this node's steps running (a node with `concurrency`), the
            // workers are already busy: run on this thread alone rather than split ops
            // into chunks nobody else is free to take.
            let others = running.add(1, ordering: .acquiringAndReleasing).oldValue
            defer { running.subtract(1, ordering: .acquiringAndReleasing) }
            let parallelism = others > 0
                ? Parallelism(threads: 1) { $2(0..<$0) }
                : Parallelism(threads: cc.parallelThreads) { cc.parallelFor($0, grain: $1, $2) }
            outputs = try model.run(Dictionary(uniqueKeysWithValues: zip(names, tensors)), parallelism: parallelism)
        } catch let e as ModelError {
            throw GraphError(.calculatorFailed, e.message, stream: cc.inputStreamName("TENSORS"))
        }
        let wanted = options.outputNames.isEmpty ? model.outputs.map(\.name) : options.outputNames
        try cc.emit(try wanted.map { n in
            guard let t = outputs[n] else { throw GraphError(.calculatorFailed, "the model produced no '\(n)'") }
            return t
        }, tag: "TENSORS")
    }
}
