import FrameFlow

/// Lets at most `max_in_flight` frames into the part of the graph it guards, dropping
/// the others, as MediaPipe's `FlowLimiterCalculator`: a slow detector then works on the
/// newest frame instead of an ever-growing backlog.
///
/// A frame is in flight from the moment it passes until the guarded part reports it
/// finished on the `FINISHED` back edge (a packet, or the stream's bound moving past it).
/// Up to `max_in_queue` frames wait for a free slot; older waiting frames are dropped
/// first. Dropped frames advance the output's timestamp bound, so nothing downstream waits.
///
/// Inputs:
///   - (untagged) the frames, any type.
///   - `FINISHED`: any packet per finished frame; mark it `back_edge: true`.
/// Outputs:
///   - (untagged) the frames let through.
/// Options: `mediapipe.FlowLimiterCalculatorOptions` { max_in_flight (1, 1…1000000), max_in_queue
/// (0, 0…1000000), in_flight_timeout (µs, within ±1 day; accepted, not used) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "FlowLimiterCalculator"
///   input_stream: "input_video"
///   input_stream: "FINISHED:detections"
///   input_stream_info: { tag_index: "FINISHED" back_edge: true }
///   output_stream: "throttled_input_video"
/// }
/// ```
public final class FlowLimiterCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.FlowLimiterCalculatorOptions"
        /// Frames allowed inside the guarded part at once.
        public var maxInFlight = 1
        /// Frames that may wait for a slot (0: drop at once).
        public var maxInQueue = 0
        /// Accepted for compatibility with MediaPipe files; not used.
        public var inFlightTimeout: Int64 = 0
        public init() {}
        public init(maxInFlight: Int, maxInQueue: Int = 0) {
            self.maxInFlight = maxInFlight
            self.maxInQueue = maxInQueue
        }

        public func validate() throws {
            try OptionCheck.range(maxInFlight, 1...1_000_000, "max_in_flight")
            try OptionCheck.range(maxInQueue, 0...1_000_000, "max_in_queue")
            try OptionCheck.range(inFlightTimeout, -86_400_000_000...86_400_000_000, "in_flight_timeout")
        }
    }

    public static let contract = CalculatorContract(
        inputs: [PortSpec(""), PortSpec("FINISHED", optional: true)], outputs: [PortSpec("")],
        inputPolicy: .immediate, timestampOffset: nil)

    private var options: Options
    private var inFlight: [Timestamp] = []
    private var queue: [Packet] = []
    private var lastInput = Timestamp.unstarted
    /// Frames dropped so far.
    public private(set) var dropped = 0

    public init(options: Options) throws {
        guard options.maxInFlight >= 1, options.maxInQueue >= 0 else {
            throw GraphError(.invalidOption, "max_in_flight must be ≥ 1 and max_in_queue ≥ 0")
        }
        self.options = options
    }

    public func update(options: Options) throws {
        guard options.maxInFlight >= 1, options.maxInQueue >= 0 else {
            throw GraphError(.invalidOption, "max_in_flight must be ≥ 1 and max_in_queue ≥ 0")
        }
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        // Frames the guarded part has finished: the FINISHED bound moved past them.
        let finished = cc.inputBound("FINISHED")
        if cc.hasInputPort("FINISHED") {
            inFlight.removeAll { $0 < finished }
        }
        let frame = cc.input()
        if !frame.isEmpty {
            queue.append(frame)
            lastInput = frame.timestamp
        }
        while inFlight.count < options.maxInFlight, !queue.isEmpty {
            let p = queue.removeFirst()
            inFlight.append(p.timestamp)
            cc.emit(packet: p, atPosition: 0)
        }
        while queue.count > options.maxInQueue {
            queue.removeFirst()
            dropped += 1
            cc.countDropped()
        }
        // Nothing below the oldest waiting frame (or past the newest input) will come.
        if let oldest = queue.first {
            cc.setNextTimestampBound(oldest.timestamp)
        } else if lastInput.isRangeValue {
            cc.setNextTimestampBound(lastInput.next)
        }
    }
}

extension FlowLimiterCalculator.Options {
    /// mediapipe/calculators/core/flow_limiter_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.flowLimiterCalculatorOptions }
}
