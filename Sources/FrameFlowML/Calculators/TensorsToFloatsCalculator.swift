import Foundation
import FrameFlow

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

    public static let contract = CalculatorContract(
        inputs: [PortSpec("TENSORS", [Tensor].self)],
        outputs: [PortSpec("FLOAT", Float.self, optional: true), PortSpec("FLOATS", [Float].self, optional: true)])

    private let options: Options
    private var single = false

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let ports = Set(cc.outputPorts)
        single = ports.contains(PortID("FLOAT", 0))
        guard single || ports.contains(PortID("FLOATS", 0)) else {
            throw GraphError(.invalidPort, "TensorsToFloatsCalculator needs a FLOAT or FLOATS output", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let stream = cc.inputStreamName("TENSORS")
        let tensors = try cc.input("TENSORS", as: [Tensor].self)
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
            try cc.emit(values[0], tag: "FLOAT")
        } else {
            try cc.emit(values, tag: "FLOATS")
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
