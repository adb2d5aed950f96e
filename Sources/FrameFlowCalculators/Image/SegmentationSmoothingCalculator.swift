import FrameFlow

/// Mixes a new segmentation mask with the previous one where the new one is unsure, as
/// MediaPipe's `SegmentationSmoothingCalculator` does on the CPU: steadier masks across
/// video frames.
///
/// For a new value p and a previous value q, with t = p − 0.5 and x = t²:
/// `u = 1 − min(1, x·(c1 + x·(c2 + x·(c3 + x·(c4 + x·c5)))))`, MediaPipe's polynomial fit of
/// H(p)², the squared binary entropy in bits (1 at p = 0.5, near 0 at 0 and 1), and the output is
/// `p + (q − p) · u · combine_with_previous_ratio`. Confident pixels keep the new value; unsure
/// ones lean towards the previous mask. Without a `MASK_PREVIOUS` packet the new mask passes
/// through unchanged.
///
/// Inputs:
///   - `MASK`: `ImageFrame` in `grayFloat32`, the current mask.
///   - `MASK_PREVIOUS`: `ImageFrame` in `grayFloat32` of the same size (usually the previous
///     output, through a `PreviousLoopbackCalculator`).
/// Outputs:
///   - `MASK_SMOOTHED`: `ImageFrame` in `grayFloat32`.
/// Options: `mediapipe.SegmentationSmoothingCalculatorOptions` (extension 377425128)
///   { combine_with_previous_ratio (0: no smoothing; 0…1) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "SegmentationSmoothingCalculator"
///   input_stream: "MASK:mask"
///   input_stream: "MASK_PREVIOUS:previous_mask"
///   output_stream: "MASK_SMOOTHED:smoothed_mask"
///   options { [mediapipe.SegmentationSmoothingCalculatorOptions.ext] { combine_with_previous_ratio: 0.7 } }
/// }
/// ```
public final class SegmentationSmoothingCalculator: Calculator {
    /// MediaPipe's `SegmentationSmoothingCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.SegmentationSmoothingCalculatorOptions"
        /// mediapipe/calculators/image/segmentation_smoothing_calculator.proto, for binary graphs.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.segmentationSmoothingCalculatorOptions }

        /// How much of the previous mask unsure pixels take, 0…1.
        public var combineWithPreviousRatio: Float = 0
        public init() {}
        public init(combineWithPreviousRatio: Float) { self.combineWithPreviousRatio = combineWithPreviousRatio }

        public func validate() throws { try OptionCheck.range(combineWithPreviousRatio, 0...1, "combine_with_previous_ratio") }
    }

    /// The new mask.
    public static let mask = InputPort<ImageFrame>("MASK")
    /// The previous smoothed mask.
    public static let previousMask = InputPort<ImageFrame>("MASK_PREVIOUS")
    /// The blend of the two.
    public static let smoothed = OutputPort<ImageFrame>("MASK_SMOOTHED")

    public static let contract = CalculatorContract(ports: [mask, previousMask, smoothed])

    private let ratio: Float

    public init(options: Options) {
        ratio = options.combineWithPreviousRatio
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.has(Self.mask) else { return }
        // No previous mask, or a ratio of 0 (the blend then gives the new mask exactly): pass it on.
        guard cc.has(Self.previousMask), ratio != 0 else {
            cc.emit(packet: cc.input(Self.mask.tag), atPosition: 0)
            return
        }
        let current = try cc.get(Self.mask)
        let previous = try cc.get(Self.previousMask)
        guard current.format == .grayFloat32 else {
            throw GraphError(
                .calculatorFailed, "MASK must be a one-channel float image (gray_f32), not \(current.format)",
                stream: cc.inputStreamName(Self.mask.tag))
        }
        guard previous.format == current.format, previous.width == current.width, previous.height == current.height else {
            throw GraphError(
                .calculatorFailed,
                "MASK_PREVIOUS is \(previous.width)×\(previous.height) \(previous.format); MASK is "
                    + "\(current.width)×\(current.height) \(current.format)", stream: cc.inputStreamName(Self.previousMask.tag))
        }
        let out = try cc.pool.makeImage(width: current.width, height: current.height, format: .grayFloat32)
        let p = current.planes[0], q = previous.planes[0], d = out.planes[0]
        let ratio = ratio
        for y in 0..<current.height {
            let now = (p.baseAddress + y * p.bytesPerRow).assumingMemoryBound(to: Float.self)
            let before = (q.baseAddress + y * q.bytesPerRow).assumingMemoryBound(to: Float.self)
            let dst = (d.baseAddress + y * d.bytesPerRow).assumingMemoryBound(to: Float.self)
            for x in 0..<current.width { dst[x] = Self.blend(previous: before[x], current: now[x], ratio: ratio) }
        }
        try cc.emit(out.freeze(), to: Self.smoothed)
    }

    /// One pixel: `current` moved towards `previous` by its uncertainty times `ratio`.
    @inline(__always)
    public static func blend(previous: Float, current: Float, ratio: Float) -> Float {
        let c1: Float = 5.68842, c2: Float = -0.748699, c3: Float = -57.8051, c4: Float = 291.309, c5: Float = -624.717
        let t = current - 0.5
        let x = t * t
        let uncertainty = 1 - min(1, x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5)))))
        return current + (previous - current) * (uncertainty * ratio)
    }
}
