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

    public static let contract = CalculatorContract(
        inputs: [PortSpec("FLOAT", Float.self), PortSpec("THRESHOLD", Double.self, optional: true)],
        outputs: [
            PortSpec("FLAG", Bool.self, optional: true), PortSpec("ACCEPT", Bool.self, optional: true),
            PortSpec("REJECT", Bool.self, optional: true),
        ],
        inputSidePackets: [PortSpec("THRESHOLD", Double.self, optional: true)])

    private let options: Options
    private var threshold = 0.0
    private var outputs: Set<PortID> = []

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let stream = cc.hasInputPort("THRESHOLD")
        let side = cc.sidePacketPorts.contains(PortID("THRESHOLD", 0))
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
        if side { threshold = try cc.sidePacket("THRESHOLD", as: Double.self) }
        outputs = Set(cc.outputPorts)
    }

    public func process(_ cc: CalculatorContext) throws {
        if cc.hasInput("THRESHOLD") { threshold = try cc.input("THRESHOLD", as: Double.self) }
        guard cc.hasInput("FLOAT") else {
            throw GraphError(.calculatorFailed, "FLOAT has no score at this timestamp", stream: cc.inputStreamName("FLOAT"))
        }
        let accept = Self.accepts(try cc.input("FLOAT", as: Float.self), threshold: threshold)
        if outputs.contains(PortID("FLAG", 0)) { try cc.emit(accept, tag: "FLAG") }
        if accept && outputs.contains(PortID("ACCEPT", 0)) { try cc.emit(true, tag: "ACCEPT") }
        if !accept && outputs.contains(PortID("REJECT", 0)) { try cc.emit(false, tag: "REJECT") }
    }

    /// Whether `score` passes `threshold` (compared in double precision, strictly greater).
    public static func accepts(_ score: Float, threshold: Double) -> Bool { Double(score) > threshold }
}
