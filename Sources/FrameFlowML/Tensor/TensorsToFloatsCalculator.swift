import Foundation
import FrameFlow
import FrameFlowInference

/// Reads the values of a float tensor as plain floats, as MediaPipe's
/// `TensorsToFloatsCalculator` does.
///
/// Only the first tensor of the vector is read, all of its elements in order; with
/// `activation: SIGMOID` each value becomes 1 / (1 + e^−x). `FLOAT` needs a tensor of exactly
/// one element; when `FLOAT` is connected it is the only output written.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]`; the first must be a float tensor.
/// Outputs:
///   - `FLOAT`: `Float`, the single value (optional).
///   - `FLOATS`: `[Float]`, every value (optional; one of the two outputs is needed).
/// Options: `mediapipe.TensorsToFloatsCalculatorOptions` { activation (NONE, SIGMOID) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "TensorsToFloatsCalculator"
///   input_stream: "TENSORS:face_flag_tensor"
///   output_stream: "FLOAT:face_presence_score"
///   options { [mediapipe.TensorsToFloatsCalculatorOptions.ext] { activation: SIGMOID } }
/// }
/// ```
public final class TensorsToFloatsCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.TensorsToFloatsCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.tensorsToFloatsCalculatorOptions }

        public enum Activation: String, Codable, Sendable {
            case none = "NONE", sigmoid = "SIGMOID"
        }

        public var activation = Activation.none
        public init() {}
        public init(activation: Activation) { self.activation = activation }
    }

    /// The tensors; the first one is read.
    public static let tensors = InputPort<[Tensor]>("TENSORS")
    /// The one value of a one-element tensor.
    public static let float = OutputPort<Float>("FLOAT", optional: true)
    /// All the values.
    public static let floats = OutputPort<[Float]>("FLOATS", optional: true)

    public static let contract = CalculatorContract(ports: [tensors, float, floats])

    private let options: Options
    private var single = false

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let ports = Set(cc.outputPorts)
        single = ports.contains(PortID(Self.float.tag, 0))
        guard single || ports.contains(PortID(Self.floats.tag, 0)) else {
            throw GraphError(.invalidPort, "TensorsToFloatsCalculator needs a FLOAT or FLOATS output", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let stream = cc.inputStreamName(Self.tensors.tag)
        let tensors = try cc.get(Self.tensors)
        guard let t = tensors.first else {
            throw GraphError(.calculatorFailed, "TENSORS is an empty vector", stream: stream)
        }
        guard t.isFloat else {
            throw GraphError(.calculatorFailed, "TENSORS: the first tensor must hold floats, not \(t.type)", stream: stream)
        }
        let values = Self.floats(t.floats, activation: options.activation)
        if single {
            guard values.count == 1 else {
                throw GraphError(
                    .calculatorFailed, "FLOAT needs a tensor of one element; TENSORS has \(values.count)", stream: stream)
            }
            try cc.emit(values[0], to: Self.float)
        } else {
            try cc.emit(values, to: Self.floats)
        }
    }

    /// `values` after `activation`.
    public static func floats(_ values: [Float], activation: Options.Activation) -> [Float] {
        switch activation {
        case .none: return values
        case .sigmoid: return values.map { 1 / (1 + exp(-$0)) }
        }
    }
}
