import Foundation
import FrameFlow
import FrameFlowInference

/// Refines landmarks with a heatmap, as MediaPipe's `RefineLandmarksFromHeatmapCalculator`:
/// Pose moves each of its 39 landmarks to the centre of mass of its heatmap channel near it.
///
/// For landmark `i` at (x, y) the heatmap cell (col, row) = (Int(x·W), Int(y·H)) (truncated) is
/// the centre of a `kernel_size` window, clipped at the heatmap's edges; a landmark whose cell
/// is outside the heatmap stays as it is. In the window each value of channel `i` becomes a
/// confidence sigmoid(v) = 1 / (1 + e^−v); with their sum S and their largest M, the landmark
/// moves to (Σ col·c / W / S, Σ row·c / H / S) when M ≥ `min_confidence_to_refine`. With
/// `refine_presence` (`refine_visibility`) a landmark that has a presence (visibility) gets
/// min(it, M). All in float, as MediaPipe.
///
/// Inputs:
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList`; a timestamp without it gives nothing.
///   - `TENSORS`: `[Tensor]`, the first a float heatmap [1, H, W, C] or [H, W, C] with C the
///     number of landmarks; without it the landmarks pass unchanged.
/// Outputs:
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList`.
/// Options: `mediapipe.RefineLandmarksFromHeatmapCalculatorOptions` (extension 362281653)
/// { kernel_size (9), min_confidence_to_refine (0.5), refine_presence (false),
/// refine_visibility (false) }; kernel_size 1…4095, min_confidence_to_refine within ±1e6.
///
/// Example usage:
/// ```
/// node {
///   calculator: "RefineLandmarksFromHeatmapCalculator"
///   input_stream: "NORM_LANDMARKS:raw_landmarks"
///   input_stream: "TENSORS:heatmap_tensor"
///   output_stream: "NORM_LANDMARKS:refined_landmarks"
///   options {
///     [mediapipe.RefineLandmarksFromHeatmapCalculatorOptions.ext] {
///       kernel_size: 7 min_confidence_to_refine: 0.5
///     }
///   }
/// }
/// ```
public final class RefineLandmarksFromHeatmapCalculator: Calculator {
    /// MediaPipe's `RefineLandmarksFromHeatmapCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.RefineLandmarksFromHeatmapCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.refineLandmarksFromHeatmapCalculatorOptions }

        public var kernelSize = 9
        public var minConfidenceToRefine: Float = 0.5
        public var refinePresence = false
        public var refineVisibility = false
        public init() {}

        /// The header's ranges.
        public func validate() throws {
            try OptionCheck.range(kernelSize, 1...4095, "kernel_size")
            try OptionCheck.range(minConfidenceToRefine, -1e6...1e6, "min_confidence_to_refine")
        }
    }

    /// The landmarks to refine.
    public static let landmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS")
    /// The heatmap, as the first tensor.
    public static let tensors = InputPort<[Tensor]>("TENSORS")
    /// The refined landmarks.
    public static let refined = OutputPort<NormalizedLandmarkList>("NORM_LANDMARKS")

    public static let contract = CalculatorContract(ports: [landmarks, tensors, refined])

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let landmarks = try cc.value(Self.landmarks) else { return }
        guard cc.has(Self.tensors) else { return try cc.emit(landmarks, to: Self.refined) }
        let stream = cc.inputStreamName(Self.tensors.tag)
        guard let heatmap = try cc.get(Self.tensors).first else {
            throw GraphError(.calculatorFailed, "TENSORS is empty; the first tensor should be the heatmap", node: cc.nodeName, stream: stream)
        }
        do {
            try cc.emit(Self.refine(landmarks, heatmap: heatmap, options: options), to: Self.refined)
        } catch let error as ModelError {
            throw GraphError(.calculatorFailed, "TENSORS: \(error.message)", node: cc.nodeName, stream: stream)
        }
    }

    /// `landmarks` refined with `heatmap` ([1, H, W, C] or [H, W, C] floats, C = landmarks).
    public static func refine(_ landmarks: NormalizedLandmarkList, heatmap: Tensor, options: Options) throws -> NormalizedLandmarkList {
        var dims = heatmap.shape
        if dims.count == 4 {
            guard dims[0] == 1 else { throw ModelError("a [B, H, W, C] heatmap needs B = 1, not \(dims[0])") }
            dims.removeFirst()
        }
        guard dims.count == 3 else { throw ModelError("the heatmap has \(heatmap.shape.count) dimensions, not 3 or 4") }
        guard heatmap.isFloat else { throw ModelError("the heatmap holds \(heatmap.type), not floats") }
        let (height, width, channels) = (dims[0], dims[1], dims[2])
        guard channels == landmarks.landmark.count else {
            throw ModelError("the heatmap has \(channels) channels for \(landmarks.landmark.count) landmarks")
        }
        let values = heatmap.floats
        guard values.count == height * width * channels else {
            throw ModelError("the heatmap holds \(values.count) values, not \(height)×\(width)×\(channels)")
        }
        let offset = (options.kernelSize - 1) / 2
        let w = Float(width), h = Float(height)
        var out = landmarks
        for i in out.landmark.indices {
            let fx = Float(out.landmark[i].x) * w, fy = Float(out.landmark[i].y) * h
            // C++ truncates toward zero; a value beyond Int32 is outside the heatmap anyway.
            guard abs(fx) < 2e9, abs(fy) < 2e9 else { continue }
            let col = Int(fx), row = Int(fy)  // checked: |fx|, |fy| < 2e9 and not NaN (the guard above)
            guard col >= 0, col < width, row >= 0, row < height else { continue }
            var sum: Float = 0, weightedCol: Float = 0, weightedRow: Float = 0, maxConfidence: Float = 0
            for r in max(0, row - offset)..<min(height, row + offset + 1) {
                for c in max(0, col - offset)..<min(width, col + offset + 1) {
                    let confidence = 1 / (1 + exp(-values[(r * width + c) * channels + i]))
                    sum += confidence
                    maxConfidence = max(maxConfidence, confidence)
                    weightedCol += Float(c) * confidence
                    weightedRow += Float(r) * confidence
                }
            }
            if maxConfidence >= options.minConfidenceToRefine && sum > 0 {
                out.landmark[i].x = Double(weightedCol / w / sum)
                out.landmark[i].y = Double(weightedRow / h / sum)
            }
            if options.refinePresence, sum > 0, let p = out.landmark[i].presence {
                out.landmark[i].presence = Double(min(Float(p), maxConfidence))
            }
            if options.refineVisibility, sum > 0, let v = out.landmark[i].visibility {
                out.landmark[i].visibility = Double(min(Float(v), maxConfidence))
            }
        }
        return out
    }
}
