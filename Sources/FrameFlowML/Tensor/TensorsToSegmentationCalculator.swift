import Foundation
import FrameFlow
import FrameFlowInference

/// Turns a segmentation model's output tensor into a float mask image, as MediaPipe's
/// `TensorsToSegmentationCalculator` does on the CPU.
///
/// The first tensor is read as height × width × channels (`[H, W, C]` or `[1, H, W, C]`).
/// Each pixel becomes one value: the channel itself (`NONE`, one channel), 1 / (1 + e^−x)
/// (`SIGMOID`, one channel), or the softmax of the two channels taken at
/// `output_layer_index` (`SOFTMAX`, two channels). The mask is then resized to
/// `OUTPUT_SIZE` by OpenCV's bilinear interpolation (`ImageFrame.resizedBilinear`), as
/// MediaPipe's `cv::resize` does; without `OUTPUT_SIZE` it keeps the tensor's size.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]`; the first must be a float tensor.
///   - `OUTPUT_SIZE`: `ImageSize` (optional), the mask's size (usually the input image's).
/// Outputs:
///   - `MASK`: `ImageFrame` in `grayFloat32`, values from the activation (0…1 for SIGMOID and
///     SOFTMAX).
/// Options: `mediapipe.TensorsToSegmentationCalculatorOptions` (extension 374311106)
///   { activation (NONE, SIGMOID, SOFTMAX), output_layer_index (1; 0 or 1), gpu_origin
///   (ignored: the CPU tensor is already top-down) }. An `OUTPUT_SIZE` larger than
///   the graph's `limits.maxImagePixels` is an error.
///
/// Example usage:
/// ```
/// node {
///   calculator: "TensorsToSegmentationCalculator"
///   input_stream: "TENSORS:output_tensors"
///   input_stream: "OUTPUT_SIZE:input_size"
///   output_stream: "MASK:mask_image"
///   options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] { activation: NONE } }
/// }
/// ```
public final class TensorsToSegmentationCalculator: Calculator {
    /// MediaPipe's `TensorsToSegmentationCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.TensorsToSegmentationCalculatorOptions"
        /// mediapipe/calculators/tensor/tensors_to_segmentation_calculator.proto, for binary graphs.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.tensorsToSegmentationCalculatorOptions }

        /// How a pixel's channels become its mask value.
        public enum Activation: String, Codable, Sendable {
            case none = "NONE", sigmoid = "SIGMOID", softmax = "SOFTMAX"
        }

        /// The activation; NONE and SIGMOID take one channel, SOFTMAX two.
        public var activation = Activation.none
        /// The channel SOFTMAX keeps (0 or 1).
        public var outputLayerIndex = 1
        /// Where a GPU texture starts; the CPU path ignores it.
        public var gpuOrigin: String?
        public init() {}

        public func validate() throws {
            guard (0...1).contains(outputLayerIndex) else {
                throw GraphError(.invalidOption, "output_layer_index must be 0 or 1 (SOFTMAX's two channels), not \(outputLayerIndex)")
            }
        }
    }

    /// The model's output; the first tensor is read.
    public static let tensors = InputPort<[Tensor]>("TENSORS")
    /// The size to scale the mask to (else the tensor's).
    public static let outputSize = InputPort<ImageSize>("OUTPUT_SIZE", optional: true)
    /// The mask.
    public static let mask = OutputPort<ImageFrame>("MASK")

    public static let contract = CalculatorContract(ports: [tensors, outputSize, mask])

    private let options: Options
    private var sized = false

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        sized = cc.isConnected(Self.outputSize)
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.tensors) else { return }
        let stream = cc.inputStreamName(Self.tensors.tag)
        let tensors = try cc.get(Self.tensors)
        guard let t = tensors.first else { throw GraphError(.calculatorFailed, "TENSORS is an empty vector", stream: stream) }
        guard t.isFloat else {
            throw GraphError(.calculatorFailed, "TENSORS: the first tensor must hold floats, not \(t.type)", stream: stream)
        }
        let (h, w, c) = try Self.hwc(t.shape, stream: stream)
        let needed = options.activation == .softmax ? 2 : 1
        guard c == needed else {
            throw GraphError(
                .calculatorFailed, "activation \(options.activation.rawValue) needs \(needed) channel(s); the tensor \(t.shape) has \(c)",
                stream: stream)
        }
        let values = Self.activate(t.floats, channels: c, activation: options.activation, layer: options.outputLayerIndex)
        let small = try ImageFrame.grayFloat(width: w, height: h, values: values, pool: cc.pool)
        var size = ImageSize(width: w, height: h)
        if sized {
            guard let given = try cc.value(Self.outputSize) else {
                throw GraphError(.calculatorFailed, "no OUTPUT_SIZE packet at this timestamp", stream: cc.inputStreamName(Self.outputSize.tag))
            }
            size = given
            guard cc.environment.limits.allowsImage(width: size.width, height: size.height) else {
                throw GraphError(
                    .calculatorFailed, "OUTPUT_SIZE \(size.width)×\(size.height) exceeds the image limit",
                    stream: cc.inputStreamName(Self.outputSize.tag))
            }
        }
        try cc.emit(try small.resizedBilinear(width: size.width, height: size.height, pool: cc.pool), to: Self.mask)
    }

    /// Height, width and channels of a `[H, W, C]` or `[1, H, W, C]` shape.
    static func hwc(_ shape: [Int], stream: String?) throws -> (Int, Int, Int) {
        switch shape.count {
        case 3 where shape.allSatisfy({ $0 > 0 }): return (shape[0], shape[1], shape[2])
        case 4 where shape[0] == 1 && shape.allSatisfy({ $0 > 0 }): return (shape[1], shape[2], shape[3])
        default:
            throw GraphError(.calculatorFailed, "a segmentation tensor is [H, W, C] or [1, H, W, C], not \(shape)", stream: stream)
        }
    }

    /// One mask value per pixel from `channels` interleaved values, with MediaPipe's arithmetic.
    public static func activate(_ values: [Float], channels: Int, activation: Options.Activation, layer: Int) -> [Float] {
        switch activation {
        case .none:
            return channels == 1 ? values : stride(from: 0, to: values.count, by: channels).map { values[$0] }
        case .sigmoid:
            return stride(from: 0, to: values.count, by: channels).map { Float(1.0 / (Double(exp(-values[$0])) + 1.0)) }
        case .softmax:
            return stride(from: 0, to: values.count, by: channels).map { i in
                let a = values[i], b = values[i + 1]
                let hi = max(a, b), lo = min(a, b)
                return exp(values[i + layer] - hi) / (1 + exp(lo - hi))
            }
        }
    }
}
