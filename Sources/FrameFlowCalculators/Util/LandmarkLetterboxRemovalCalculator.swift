import FrameFlow

/// Maps landmarks found on a letterboxed image back to the image without its bars, as
/// MediaPipe's `LandmarkLetterboxRemovalCalculator` does.
///
/// With the padding (left, top, right, bottom) as fractions of the letterboxed image:
/// x ↦ (x − left) / (1 − left − right), y ↦ (y − top) / (1 − top − bottom), and z is scaled as
/// x, z ↦ z / (1 − left − right); in single precision as MediaPipe computes. Visibility and
/// presence are kept. A timestamp without the padding gives nothing; a landmarks input
/// without a packet gives nothing on its output.
///
/// Inputs:
///   - `LANDMARKS` (indexed, one or more): `NormalizedLandmarkList`.
///   - `LETTERBOX_PADDING`: `[Double]` left, top, right, bottom (MediaPipe's
///     `std::array<float, 4>`; `ImageToTensorCalculator` and `ImageTransformationCalculator`
///     give it).
/// Outputs:
///   - `LANDMARKS` (indexed, as many as the inputs): `NormalizedLandmarkList`, the input of
///     the same index without the letterbox.
/// Options: none.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarkLetterboxRemovalCalculator"
///   input_stream: "LANDMARKS:landmarks"
///   input_stream: "LETTERBOX_PADDING:letterbox_padding"
///   output_stream: "LANDMARKS:adjusted_landmarks"
/// }
/// ```
public final class LandmarkLetterboxRemovalCalculator: Calculator {
    /// The landmark lists to correct (one output per input index).
    public static let landmarks = InputPort<NormalizedLandmarkList>("LANDMARKS", repeated: true)
    /// The letterbox padding: left, top, right, bottom.
    public static let padding = InputPort<[Double]>("LETTERBOX_PADDING")
    /// The corrected lists.
    public static let corrected = OutputPort<NormalizedLandmarkList>("LANDMARKS", repeated: true)

    public static let contract = CalculatorContract(ports: [landmarks, padding, corrected])

    private var indexes: [Int] = []

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        indexes = cc.indexes(Self.landmarks)
        let outs = cc.outputPorts.filter { $0.tag == Self.corrected.tag }.map(\.index).sorted()
        guard !indexes.isEmpty, outs == indexes else {
            throw GraphError(
                .invalidPort, "LANDMARKS: one output per input is needed (\(indexes.count) inputs, \(outs.count) outputs)",
                node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let padding = try cc.value(Self.padding) else { return }
        let remove: (NormalizedLandmark) -> NormalizedLandmark
        do {
            remove = try Self.remover(padding: padding)
        } catch var e as GraphError {
            e.stream = cc.inputStreamName(Self.padding.tag)
            throw e
        }
        for i in indexes {
            guard let list = try cc.value(Self.landmarks, i) else { continue }
            try cc.emit(NormalizedLandmarkList(list.landmark.map(remove)), to: Self.corrected, index: i)
        }
    }

    /// The mapping that takes a landmark off the letterbox `padding` (left, top, right, bottom).
    /// - Throws: `GraphError(.calculatorFailed)` unless there are 4 values leaving some image.
    public static func remover(padding: [Double]) throws -> (NormalizedLandmark) -> NormalizedLandmark {
        guard padding.count == 4 else { throw GraphError(.calculatorFailed, "LETTERBOX_PADDING has \(padding.count) values, not 4") }
        let left = Float(padding[0]), top = Float(padding[1])
        let sx = 1 - (left + Float(padding[2])), sy = 1 - (top + Float(padding[3]))
        guard sx > 0, sy > 0 else { throw GraphError(.calculatorFailed, "LETTERBOX_PADDING \(padding) leaves no image") }
        return { p in
            var q = p
            q.x = Double((Float(p.x) - left) / sx)
            q.y = Double((Float(p.y) - top) / sy)
            q.z = Double(Float(p.z) / sx)
            return q
        }
    }
}
