import FrameFlow

/// Compares a score with a threshold, as MediaPipe's `ThresholdingCalculator` does: the score
/// is accepted when it is strictly greater than the threshold.
///
/// The threshold comes from exactly one of the `threshold` option, the `THRESHOLD` input side
/// packet or the `THRESHOLD` input stream (a stream's latest packet holds until the next one;
/// before the first it is 0, as is the threshold when nothing sets it). Every `FLOAT` packet
/// gives `FLAG`; `ACCEPT` carries `true` only at accepted timestamps and `REJECT` carries
/// `false` (MediaPipe's value) only at rejected ones. A timestamp with a `THRESHOLD` packet but
/// no `FLOAT` packet is an error, as in MediaPipe.
///
/// Inputs:
///   - `FLOAT`: `Float`, the score.
///   - `THRESHOLD`: `Double` (optional), the threshold from this timestamp on.
/// Input side packets:
///   - `THRESHOLD`: `Double` (optional), the threshold for the whole run.
/// Outputs:
///   - `FLAG`: `Bool` (optional), score > threshold, at every score.
///   - `ACCEPT`: `Bool` (optional), `true` at accepted scores only.
///   - `REJECT`: `Bool` (optional), `false` at rejected scores only.
/// Options: `mediapipe.ThresholdingCalculatorOptions` { threshold (any finite number; only compared) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ThresholdingCalculator"
///   input_stream: "FLOAT:face_presence_score"
///   output_stream: "FLAG:face_presence"
///   options { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }
/// }
/// ```
public final class ThresholdingCalculator: Calculator {
    /// MediaPipe's `ThresholdingCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.ThresholdingCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.thresholdingCalculatorOptions }

        /// Unset: the threshold comes from the `THRESHOLD` stream or side packet (or is 0).
        public var threshold: Double?
        public init() {}
        public init(threshold: Double?) { self.threshold = threshold }
    }

    /// The score to compare.
    public static let score = InputPort<Float>("FLOAT")
    /// The threshold, as a stream.
    public static let threshold = InputPort<Double>("THRESHOLD", optional: true)
    /// Whether the score passes the threshold.
    public static let flag = OutputPort<Bool>("FLAG", optional: true)
    /// `true` when the score passes.
    public static let accept = OutputPort<Bool>("ACCEPT", optional: true)
    /// `false` when the score does not pass.
    public static let reject = OutputPort<Bool>("REJECT", optional: true)
    /// The threshold, as a side packet.
    public static let thresholdSidePacket = InputSidePacket<Double>("THRESHOLD", optional: true)

    public static let contract = CalculatorContract(ports: [score, threshold, flag, accept, reject, thresholdSidePacket])

    private let options: Options
    private var threshold = 0.0
    private var outputs: Set<PortID> = []

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let stream = cc.isConnected(Self.threshold)
        let side = cc.sidePacketPorts.contains(PortID(Self.thresholdSidePacket.tag, 0))
        if stream && side {
            throw GraphError(
                .invalidPort, "THRESHOLD is either an input stream or an input side packet, not both", node: cc.nodeName)
        }
        if let t = options.threshold {
            if stream || side {
                throw GraphError(
                    .invalidOption, "threshold: the option excludes a THRESHOLD input \(stream ? "stream" : "side packet")",
                    node: cc.nodeName)
            }
            threshold = t
        }
        if side { threshold = try cc.get(Self.thresholdSidePacket) }
        outputs = Set(cc.outputPorts)
    }

    public func process(_ cc: CalculatorContext) throws {
        if let t = try cc.value(Self.threshold) { threshold = t }
        guard let score = try cc.value(Self.score) else {
            throw GraphError(.calculatorFailed, "FLOAT has no score at this timestamp", stream: cc.inputStreamName(Self.score.tag))
        }
        let accept = Self.accepts(score, threshold: threshold)
        if outputs.contains(PortID(Self.flag.tag, 0)) { try cc.emit(accept, to: Self.flag) }
        if accept && outputs.contains(PortID(Self.accept.tag, 0)) { try cc.emit(true, to: Self.accept) }
        if !accept && outputs.contains(PortID(Self.reject.tag, 0)) { try cc.emit(false, to: Self.reject) }
    }

    /// Whether `score` passes `threshold` (compared in double precision, strictly greater).
    public static func accepts(_ score: Float, threshold: Double) -> Bool { Double(score) > threshold }
}
