import Foundation
import FrameFlow
import FrameFlowInference

/// Builds a model from its file's bytes, as MediaPipe's `TfLiteModelCalculator` does, for
/// `InferenceCalculator`'s `MODEL` side packet. Graphs given equal bytes share one `Model`
/// (`ModelCache`), held while one of them runs.
///
/// Input side packets:
///   - `MODEL_BLOB`: the `.tflite` file's bytes (`[UInt8]`, `Data` or `String`, as
///     `LocalFileContentsCalculator` reads them); or `MODEL_RESOURCE`, the same bytes as
///     `ResourceProviderCalculator` reads them (MediaPipe's loaders since 0.10.15).
/// Output side packets:
///   - `MODEL`: `Model`.
///
/// Example usage:
/// ```
/// node {
///   calculator: "TfLiteModelCalculator"
///   input_side_packet: "MODEL_BLOB:model_blob"
///   output_side_packet: "MODEL:model"
/// }
/// ```
public final class TfLiteModelCalculator: Calculator {
    public static let contract = CalculatorContract(
        inputSidePackets: [PortSpec("MODEL_BLOB", optional: true), PortSpec("MODEL_RESOURCE", optional: true)],
        outputSidePackets: [PortSpec("MODEL", Model.self)])

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        let tag = cc.sidePacket("MODEL_BLOB") != nil ? "MODEL_BLOB" : "MODEL_RESOURCE"
        guard let p = cc.sidePacket(tag), !p.isEmpty else {
            throw GraphError(.calculatorFailed, "no MODEL_BLOB or MODEL_RESOURCE side packet")
        }
        let bytes: [UInt8]
        if let b = try? p.get([UInt8].self) {
            bytes = b
        } else if let d = try? p.get(Data.self) {
            bytes = [UInt8](d)
        } else if let s = try? p.get(String.self) {
            bytes = Array(s.utf8)
        } else {
            throw GraphError(.calculatorFailed, "\(tag) must hold the model's bytes ([UInt8], Data or String)")
        }
        do {
            let cache = cc.environment.service(ModelCache.self) ?? .shared
            try cc.setSidePacket(try cache.model(tflite: bytes, file: tag, limits: cc.environment.limits), tag: "MODEL")
        } catch let e as ModelError {
            throw GraphError(.calculatorFailed, "\(tag): \(e.message)", cause: .invalidModelAsset(asset: tag))
        }
    }

    /// Nothing per frame: the output is the side packet.
    public func process(_ cc: CalculatorContext) throws { cc.finishSource() }
}
