import Foundation
import FrameFlow
import FrameFlowInference

/// Decodes a landmark model's output tensor into landmarks, as MediaPipe's
/// `TensorsToLandmarksCalculator` does.
///
/// The first tensor holds `num_landmarks` landmarks one after another, each of
/// d = elements / `num_landmarks` values (integer division, at least 1): x, then y, z,
/// visibility and presence as far as d goes. With a horizontal flip x becomes
/// `input_image_width` − x, with a vertical flip y becomes `input_image_height` − y.
/// Visibility and presence go through their activation (SIGMOID: 1 / (1 + e^−v)).
/// `NORM_LANDMARKS` divides x by the width, y by the height and z by the width and by
/// `normalize_z`; visibility and presence are kept only when the model gives them.
///
/// Inputs:
///   - `TENSORS`: `[Tensor]`; the first must be a float tensor.
///   - `FLIP_HORIZONTALLY`, `FLIP_VERTICALLY`: `Bool` (optional), per timestamp; a timestamp
///     without a packet uses the option.
/// Input side packets:
///   - `FLIP_HORIZONTALLY`, `FLIP_VERTICALLY`: `Bool` (optional), for the whole run (instead
///     of the stream of the same tag).
/// Outputs:
///   - `LANDMARKS`: `LandmarkList` (optional), in the model's input pixels.
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList` (optional), as fractions of the input image.
/// Options: `mediapipe.TensorsToLandmarksCalculatorOptions` { num_landmarks (required),
/// input_image_width, input_image_height (required for NORM_LANDMARKS and for flips),
/// flip_vertically, flip_horizontally, normalize_z (default 1), visibility_activation,
/// presence_activation (NONE, SIGMOID) }. Ranges (checked when the graph is built):
/// num_landmarks 1…1048576, input_image_width and _height 1…65536, normalize_z 1e-6…1e6.
///
/// Example usage:
/// ```
/// node {
///   calculator: "TensorsToLandmarksCalculator"
///   input_stream: "TENSORS:landmark_tensors"
///   output_stream: "NORM_LANDMARKS:landmarks"
///   options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
///     num_landmarks: 468 input_image_width: 192 input_image_height: 192 } }
/// }
/// ```
public final class TensorsToLandmarksCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.TensorsToLandmarksCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.tensorsToLandmarksCalculatorOptions }

        public enum Activation: String, Codable, Sendable {
            case none = "NONE", sigmoid = "SIGMOID"
        }

        /// Required.
        public var numLandmarks: Int?
        public var inputImageWidth: Int?
        public var inputImageHeight: Int?
        public var flipVertically = false
        public var flipHorizontally = false
        public var normalizeZ = 1.0
        public var visibilityActivation = Activation.none
        public var presenceActivation = Activation.none
        public init() {}

        /// The header's ranges.
        public func validate() throws {
            // Unset is the calculator's error (init), at start.
            if let n = numLandmarks { try OptionCheck.range(n, 1...(1 << 20), "num_landmarks") }
            if let w = inputImageWidth { try OptionCheck.range(w, 1...65536, "input_image_width") }
            if let h = inputImageHeight { try OptionCheck.range(h, 1...65536, "input_image_height") }
            try OptionCheck.range(normalizeZ, 1e-6...1e6, "normalize_z")
        }
    }

    /// The model's output; the first tensor is read.
    public static let tensors = InputPort<[Tensor]>("TENSORS")
    /// Whether to flip this frame's landmarks left–right.
    public static let flipHorizontally = InputPort<Bool>("FLIP_HORIZONTALLY", optional: true)
    /// Whether to flip this frame's landmarks top–bottom.
    public static let flipVertically = InputPort<Bool>("FLIP_VERTICALLY", optional: true)
    /// The landmarks in the model's input pixels.
    public static let landmarks = OutputPort<LandmarkList>("LANDMARKS", optional: true)
    /// The landmarks as fractions of the model's input image.
    public static let normLandmarks = OutputPort<NormalizedLandmarkList>("NORM_LANDMARKS", optional: true)
    /// Whether to flip every frame's landmarks left–right.
    public static let flipHorizontallySidePacket = InputSidePacket<Bool>("FLIP_HORIZONTALLY", optional: true)
    /// Whether to flip every frame's landmarks top–bottom.
    public static let flipVerticallySidePacket = InputSidePacket<Bool>("FLIP_VERTICALLY", optional: true)

    public static let contract = CalculatorContract(
        ports: [
            tensors, flipHorizontally, flipVertically, landmarks, normLandmarks, flipHorizontallySidePacket,
            flipVerticallySidePacket,
        ])

    private let options: Options
    private var absolute = false
    private var normalized = false

    public init(options: Options) throws {
        self.options = options
        guard let n = options.numLandmarks, n > 0 else {
            throw GraphError(.invalidOption, "num_landmarks must be set and > 0, not \(options.numLandmarks.map(String.init) ?? "unset")")
        }
    }

    public func open(_ cc: CalculatorContext) throws {
        let outs = Set(cc.outputPorts)
        absolute = outs.contains(PortID(Self.landmarks.tag, 0))
        normalized = outs.contains(PortID(Self.normLandmarks.tag, 0))
        let size = options.inputImageWidth != nil && options.inputImageHeight != nil
        if normalized && !size {
            throw GraphError(
                .invalidOption, "input_image_width and input_image_height are needed for NORM_LANDMARKS", node: cc.nodeName)
        }
        let flips = [Self.flipHorizontally.tag, Self.flipVertically.tag]
        let flipPorts = flips.contains { cc.hasInputPort($0) || cc.sidePacketPorts.contains(PortID($0, 0)) }
        if absolute && !size && (options.flipHorizontally || options.flipVertically || flipPorts) {
            throw GraphError(
                .invalidOption, "input_image_width and input_image_height are needed to flip LANDMARKS", node: cc.nodeName)
        }
        for tag in flips where cc.hasInputPort(tag) && cc.sidePacketPorts.contains(PortID(tag, 0)) {
            throw GraphError(.invalidPort, "\(tag) is either an input stream or an input side packet, not both", node: cc.nodeName)
        }
    }

    /// The flip asked for at this timestamp: the side packet `side`, else the packet on
    /// `stream`, else `fallback`.
    private func flip(
        _ cc: CalculatorContext, _ stream: InputPort<Bool>, _ side: InputSidePacket<Bool>, _ fallback: Bool
    ) throws -> Bool {
        if cc.sidePacketPorts.contains(PortID(side.tag, 0)) { return try cc.get(side) }
        if cc.isConnected(stream), let value = try cc.value(stream) { return value }
        return fallback
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.tensors) else { return }
        let stream = cc.inputStreamName(Self.tensors.tag)
        let tensors = try cc.get(Self.tensors)
        guard let t = tensors.first, t.isFloat else {
            throw GraphError(.calculatorFailed, "TENSORS must hold a float tensor of landmarks", stream: stream)
        }
        var o = options
        o.flipHorizontally = try flip(cc, Self.flipHorizontally, Self.flipHorizontallySidePacket, options.flipHorizontally)
        o.flipVertically = try flip(cc, Self.flipVertically, Self.flipVerticallySidePacket, options.flipVertically)
        let landmarks: LandmarkList
        do {
            landmarks = try Self.decode(t.floats, options: o)
        } catch var e as GraphError {
            e.stream = stream
            throw e
        }
        if normalized { try cc.emit(Self.normalized(landmarks, options: o), to: Self.normLandmarks) }
        if absolute { try cc.emit(landmarks, to: Self.landmarks) }
    }

    /// The landmarks in `values` under `o` (flips included), in the model's input pixels.
    public static func decode(_ values: [Float], options o: Options) throws -> LandmarkList {
        let n = o.numLandmarks ?? 0
        guard n > 0 else { throw GraphError(.invalidOption, "num_landmarks must be set and > 0") }
        let d = values.count / n
        guard d > 0 else {
            throw GraphError(.calculatorFailed, "TENSORS has \(values.count) values, fewer than num_landmarks (\(n))")
        }
        let width = Float(o.inputImageWidth ?? 0), height = Float(o.inputImageHeight ?? 0)
        func activate(_ a: Options.Activation, _ v: Float) -> Float { a == .sigmoid ? 1 / (1 + exp(-v)) : v }
        var out: [Landmark] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            let v = values[(i * d)...]
            let base = v.startIndex
            let x = o.flipHorizontally ? width - v[base] : v[base]
            var y: Float = 0, z: Float = 0
            if d > 1 { y = o.flipVertically ? height - v[base + 1] : v[base + 1] }
            if d > 2 { z = v[base + 2] }
            var p = Landmark(x: Double(x), y: Double(y), z: Double(z))
            if d > 3 { p.visibility = Double(activate(o.visibilityActivation, v[base + 3])) }
            if d > 4 { p.presence = Double(activate(o.presenceActivation, v[base + 4])) }
            out.append(p)
        }
        return LandmarkList(out)
    }

    /// `landmarks` as fractions of the input image (z by the width and by `normalize_z`).
    public static func normalized(_ landmarks: LandmarkList, options o: Options) -> NormalizedLandmarkList {
        let width = Float(o.inputImageWidth ?? 1), height = Float(o.inputImageHeight ?? 1), nz = Float(o.normalizeZ)
        return NormalizedLandmarkList(
            landmarks.landmark.map {
                NormalizedLandmark(
                    x: Double(Float($0.x) / width), y: Double(Float($0.y) / height), z: Double(Float($0.z) / width / nz),
                    visibility: $0.visibility, presence: $0.presence)
            })
    }
}
