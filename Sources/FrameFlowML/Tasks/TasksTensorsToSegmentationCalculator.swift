import Foundation
import FrameFlow
import FrameFlowInference

/// MediaPipe Tasks' segmentation decoder (`mediapipe.tasks.TensorsToSegmentationCalculator`,
/// the name it is registered under; it differs from the solutions' legacy
/// `TensorsToSegmentationCalculator`): one model output tensor `[1, H, W, C]` or `[H, W, C]`
/// becomes C confidence masks and one category mask at `OUTPUT_SIZE`, as MediaPipe's CPU path
/// computes them.
///
/// - Confidence mask c: the activation (NONE: as is; SIGMOID: 1 / (1 + e^−x) per value;
///   SOFTMAX: over the C channels of a pixel) of channel c, resized to the output size by
///   OpenCV `INTER_LINEAR` (half-pixel centres; `ImageFrame.resizedBilinear`).
/// - Category mask (`gray8`): per output pixel (x, y), each channel sampled bilinearly at
///   (x · (W − 1)/(width − 1), y · (H − 1)/(height − 1)) (corners aligned), the activation
///   applied only when SIGMOID; one channel gives 0 where the value is > 0.5, else 255 (no
///   category); more channels give the index of the largest.
/// - Quality scores: 1 per channel (the model gives none).
///
/// Inputs: `TENSORS` ([Tensor]; the first, float, is read), `OUTPUT_SIZE` (ImageSize, optional:
///   else the tensor's size).
/// Outputs (each optional): `CONFIDENCE_MASKS` ([ImageFrame] `grayFloat32`, one per channel),
///   `CONFIDENCE_MASK:i` (MediaPipe's form, as its expanded graphs write it: channel i's mask
///   alone; an index past the last channel is an error), `CATEGORY_MASK` (ImageFrame `gray8`),
///   `QUALITY_SCORES` ([Float]).
/// Options: `mediapipe.tasks.TensorsToSegmentationCalculatorOptions` { segmenter_options {
///   activation (NONE, SIGMOID, SOFTMAX; SOFTMAX needs two channels or more), output_type
///   (ignored: the outputs connected say what is made) }, label_items (accepted and unused:
///   MediaPipe's calculator does not read them either; the task takes its labels from the
///   model) }.
///
/// A non-float tensor, a shape other than those above, or an output size over the graph's
/// image limit is an error naming the stream.
///
/// Example usage:
/// ```
/// node {
///   calculator: "mediapipe.tasks.TensorsToSegmentationCalculator"
///   input_stream: "TENSORS:output_tensors"
///   input_stream: "OUTPUT_SIZE:image_size"
///   output_stream: "CONFIDENCE_MASKS:confidence_masks"
///   output_stream: "CATEGORY_MASK:category_mask"
///   options { [mediapipe.tasks.TensorsToSegmentationCalculatorOptions.ext] {
///     segmenter_options { activation: NONE } } }
/// }
/// ```
public final class TasksTensorsToSegmentationCalculator: Calculator {
    /// The name MediaPipe registers the calculator under (the Swift name would clash with the
    /// legacy calculator's).
    public static var name: String { "mediapipe.tasks.TensorsToSegmentationCalculator" }

    /// MediaPipe's `mediapipe.tasks.TensorsToSegmentationCalculatorOptions` (the fields used).
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.tasks.TensorsToSegmentationCalculatorOptions"
        /// mediapipe/tasks/cc/vision/image_segmenter/calculators/tensors_to_segmentation_calculator.proto.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.tasksTensorsToSegmentationCalculatorOptions }

        /// How a pixel's channels become its confidences.
        public enum Activation: String, Codable, Sendable {
            case none = "NONE", sigmoid = "SIGMOID", softmax = "SOFTMAX"
        }

        /// `SegmenterOptions`: the activation, and the output type (unused here).
        public struct SegmenterOptions: Codable, Sendable, Equatable {
            /// The activation applied to the model's values.
            public var activation = Activation.none
            /// MediaPipe's deprecated output type; ignored.
            public var outputType: String?
            public init() {}
        }

        /// The segmenter's options.
        public var segmenterOptions = SegmenterOptions()
        /// The category names by index (`map<int64, LabelMapItem>`); carried, not used.
        public var labelItems: [TensorsToClassificationCalculator.Options.LabelItem] = []
        public init() {}
    }

    /// The model's output; the first tensor is read.
    public static let tensors = InputPort<[Tensor]>("TENSORS")
    /// The size of the masks (else the tensor's).
    public static let outputSize = InputPort<ImageSize>("OUTPUT_SIZE", optional: true)
    /// One float mask per channel.
    public static let confidenceMasks = OutputPort<[ImageFrame]>("CONFIDENCE_MASKS", optional: true)
    /// Channel i's float mask at index i (MediaPipe's `CONFIDENCE_MASK` @Multiple).
    public static let confidenceMask = OutputPort<ImageFrame>("CONFIDENCE_MASK", optional: true, repeated: true)
    /// The category of each pixel (255: none).
    public static let categoryMask = OutputPort<ImageFrame>("CATEGORY_MASK", optional: true)
    /// One quality score per channel.
    public static let qualityScores = OutputPort<[Float]>("QUALITY_SCORES", optional: true)

    public static let contract = CalculatorContract(ports: [tensors, outputSize, confidenceMasks, confidenceMask, categoryMask, qualityScores])

    private let activation: Options.Activation

    public init(options: Options) {
        activation = options.segmenterOptions.activation
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let tensors = try cc.value(Self.tensors) else { return }
        let stream = cc.inputStreamName(Self.tensors.tag)
        guard let t = tensors.first else { throw GraphError(.calculatorFailed, "TENSORS is an empty vector", stream: stream) }
        guard t.isFloat else {
            throw GraphError(.calculatorFailed, "TENSORS: the first tensor must hold floats, not \(t.type)", stream: stream)
        }
        let (h, w, c) = try TensorsToSegmentationCalculator.hwc(t.shape, stream: stream)
        if activation == .softmax && c < 2 {
            throw GraphError(.calculatorFailed, "SOFTMAX needs two channels or more; the tensor \(t.shape) has \(c)", stream: stream)
        }
        var size = ImageSize(width: w, height: h)
        if cc.isConnected(Self.outputSize) {
            guard let given = try cc.value(Self.outputSize) else {
                throw GraphError(.calculatorFailed, "no OUTPUT_SIZE packet at this timestamp", stream: cc.inputStreamName(Self.outputSize.tag))
            }
            guard given.width > 0, given.height > 0, cc.environment.limits.allowsImage(width: given.width, height: given.height) else {
                throw GraphError(
                    .calculatorFailed, "OUTPUT_SIZE \(given.width)×\(given.height) is empty or exceeds the image limit",
                    stream: cc.inputStreamName(Self.outputSize.tag))
            }
            size = given
        }
        let values = t.floats
        let maskIndexes = cc.outputPorts.filter { $0.tag == Self.confidenceMask.tag }.map(\.index).sorted()
        if let last = maskIndexes.last, last >= c {
            throw GraphError(
                .calculatorFailed, "CONFIDENCE_MASK:\(last) has no channel: the tensor \(t.shape) has \(c)", stream: stream)
        }
        if cc.isConnected(Self.confidenceMasks) || !maskIndexes.isEmpty {
            let activated = Self.activate(values, channels: c, activation)
            var masks: [ImageFrame] = []
            for k in 0..<c {
                let plane = stride(from: k, to: activated.count, by: c).map { activated[$0] }
                let small = try ImageFrame.grayFloat(width: w, height: h, values: plane, pool: cc.pool)
                masks.append(try small.resizedBilinear(width: size.width, height: size.height, pool: cc.pool))
            }
            if cc.isConnected(Self.confidenceMasks) { try cc.emit(masks, to: Self.confidenceMasks) }
            for i in maskIndexes { try cc.emit(masks[i], to: Self.confidenceMask, index: i) }
        }
        if cc.isConnected(Self.categoryMask) {
            let bytes = Self.categories(values, width: w, height: h, channels: c, activation, size: size)
            var out = try cc.pool.makeImage(width: size.width, height: size.height, format: .gray8)
            for y in 0..<size.height {
                out.withMutableRow(y) { row in
                    for x in 0..<size.width { row[x] = bytes[y * size.width + x] }
                }
            }
            try cc.emit(out.freeze(), to: Self.categoryMask)
        }
        if cc.isConnected(Self.qualityScores) {
            try cc.emit([Float](repeating: 1, count: c), to: Self.qualityScores)
        }
    }

    /// The values with the activation applied pixel by pixel (`channels` interleaved).
    static func activate(_ values: [Float], channels c: Int, _ activation: Options.Activation) -> [Float] {
        switch activation {
        case .none: return values
        case .sigmoid: return values.map { 1 / (1 + exp(-$0)) }
        case .softmax:
            var out = values
            for p in stride(from: 0, to: values.count, by: c) {
                // Stable softmax: shifted by the pixel's maximum.
                let m = values[p..<p + c].max() ?? 0
                var sum: Float = 0
                for k in 0..<c {
                    out[p + k] = exp(values[p + k] - m)
                    sum += out[p + k]
                }
                for k in 0..<c { out[p + k] /= sum }
            }
            return out
        }
    }

    /// The category mask's bytes, row by row: MediaPipe's corner-aligned bilinear sampling of
    /// the `width` × `height` × `channels` tensor at each pixel of `size`.
    static func categories(
        _ values: [Float], width w: Int, height h: Int, channels c: Int, _ activation: Options.Activation, size: ImageSize
    ) -> [UInt8] {
        // A one-pixel output divides by zero in MediaPipe (an infinite or NaN scale); here it
        // samples the tensor's first pixel.
        let sx = size.width > 1 ? Float(w - 1) / Float(size.width - 1) : 0
        let sy = size.height > 1 ? Float(h - 1) / Float(size.height - 1) : 0
        var out = [UInt8](repeating: 255, count: size.width * size.height)
        var scores = [Float](repeating: 0, count: c)
        // Per column: the two source columns and the weight (the same for every row).
        let columns: [(x0: Int, x1: Int, t: Float)] = (0..<size.width).map { x in
            let fx = Float(x) * sx
            let x0 = max(Int(fx.rounded(.down)), 0)  // checked: fx is in 0…w − 1 (x < width, sx ≤ w − 1)
            return (x0, min(Int(fx.rounded(.up)), w - 1), max(min(fx - Float(x0), 1), 0))  // checked: as above
        }
        values.withUnsafeBufferPointer { v in
            for y in 0..<size.height {
                let fy = Float(y) * sy
                let y0 = max(Int(fy.rounded(.down)), 0), y1 = min(Int(fy.rounded(.up)), h - 1)  // checked: fy is in 0…h − 1
                let ty = max(min(fy - Float(y0), 1), 0)
                let row0 = y0 * w * c, row1 = y1 * w * c
                for x in 0..<size.width {
                    let (x0, x1, tx) = columns[x]
                    for k in 0..<c {
                        // Along y first, then x, as MediaPipe's BilinearInterpolate.
                        let a = v[row0 + x0 * c + k], b = v[row1 + x0 * c + k]
                        let d = v[row0 + x1 * c + k], e = v[row1 + x1 * c + k]
                        let left = a + ty * (b - a), right = d + ty * (e - d)
                        var s = left + tx * (right - left)
                        if activation == .sigmoid { s = 1 / (1 + exp(-s)) }
                        scores[k] = s
                    }
                    if c == 1 {
                        out[y * size.width + x] = scores[0] > 0.5 ? 0 : 255
                    } else {
                        var best = 0
                        for k in 1..<c where scores[k] > scores[best] { best = k }
                        out[y * size.width + x] = UInt8(clamping: best)
                    }
                }
            }
        }
        return out
    }
}
