import FrameFlow

/// Lets its data streams through only while the gate is open, as MediaPipe's
/// `GateCalculator`: data input `i` goes to data output `i` unchanged when allowed, and is
/// dropped when not.
///
/// The gate is decided per timestamp by one of, in this order of precedence:
///   - an `ALLOW` or `DISALLOW` input side packet (fixed for the whole run; a disallowing one
///     closes the data outputs at once),
///   - an `ALLOW` or `DISALLOW` input stream, synchronized with the data (default policy):
///     its packet at the timestamp decides, and a timestamp without one counts as
///     disallowed, or as allowed with `empty_packets_as_allow`,
///   - else the `allow` option.
/// `ALLOW` and `DISALLOW` are exclusive, and a node uses either streams or side packets.
/// Dropped packets still move the outputs' bounds (the outputs follow the inputs' bounds), so
/// nothing downstream waits for them.
///
/// Inputs:
///   - untagged, any number and types: the data streams.
///   - `ALLOW` or `DISALLOW` (Bool, optional): the gate, per timestamp.
/// Outputs:
///   - untagged: one per data input, same position.
///   - `STATE_CHANGE` (Bool, optional): the new state (true: allowed) at the timestamp where
///     it differs from the previous one (the first decision counts only against
///     `initial_gate_state`).
/// Side packets: `ALLOW` or `DISALLOW` (Bool, optional).
/// Options: `mediapipe.GateCalculatorOptions` { empty_packets_as_allow (false), allow (false),
///   initial_gate_state (GATE_UNINITIALIZED | GATE_ALLOW | GATE_DISALLOW) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "GateCalculator"
///   input_stream: "image"
///   input_stream: "DISALLOW:has_tracked_face"
///   output_stream: "image_for_detection"
///   output_stream: "STATE_CHANGE:detection_toggled"
///   options { [mediapipe.GateCalculatorOptions.ext] { empty_packets_as_allow: true } }
/// }
/// ```
public final class GateCalculator: Calculator {
    /// MediaPipe's `GateCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.GateCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.gateCalculatorOptions }

        /// The gate state before the first decision: what the first `STATE_CHANGE` compares with.
        public enum GateState: String, Codable, Sendable {
            case unspecified = "UNSPECIFIED"
            case uninitialized = "GATE_UNINITIALIZED"
            case allow = "GATE_ALLOW"
            case disallow = "GATE_DISALLOW"
        }

        /// Whether a timestamp without an `ALLOW`/`DISALLOW` packet lets the data through.
        public var emptyPacketsAsAllow = false
        /// The decision when the node has no `ALLOW`/`DISALLOW` stream or side packet.
        public var allow = false
        /// The state the first decision is compared with for `STATE_CHANGE`.
        public var initialGateState = GateState.uninitialized

        public init() {}
        public init(emptyPacketsAsAllow: Bool = false, allow: Bool = false, initialGateState: GateState = .uninitialized) {
            self.emptyPacketsAsAllow = emptyPacketsAsAllow
            self.allow = allow
            self.initialGateState = initialGateState
        }
    }

    public static let contract = CalculatorContract(
        inputs: [.init("ALLOW", Bool.self, optional: true), .init("DISALLOW", Bool.self, optional: true)],
        outputs: [.init("STATE_CHANGE", Bool.self, optional: true)],
        inputSidePackets: [.init("ALLOW", Bool.self, optional: true), .init("DISALLOW", Bool.self, optional: true)],
        acceptsAnyPorts: true)

    private let options: Options
    /// (input position, output position) of each data stream.
    private var routes: [(input: Int, output: Int)] = []
    /// The decision fixed by a side packet or the `allow` option; nil when a stream decides.
    private var fixedDecision: Bool?
    private var lastState: Options.GateState

    public init(options: Options) {
        self.options = options
        lastState = options.initialGateState
    }

    public func open(_ cc: CalculatorContext) throws {
        let control: Set<String> = ["ALLOW", "DISALLOW"]
        let streamControls = cc.inputPorts.filter { control.contains($0.tag) }
        let sideControls = cc.sidePacketPorts.filter { control.contains($0.tag) }
        guard streamControls.count + sideControls.count <= 1 else {
            throw GraphError(
                .invalidPort,
                "GateCalculator takes one ALLOW or DISALLOW input stream or side packet, not several "
                    + "(found streams: \(streamControls), side packets: \(sideControls))",
                node: cc.nodeName)
        }
        for port in cc.inputPorts where !port.tag.isEmpty && !control.contains(port.tag) {
            throw GraphError(.invalidPort, "GateCalculator's data inputs are untagged; got input \(port)", node: cc.nodeName)
        }
        for port in cc.outputPorts where !port.tag.isEmpty && port.tag != "STATE_CHANGE" {
            throw GraphError(.invalidPort, "GateCalculator's data outputs are untagged; got output \(port)", node: cc.nodeName)
        }
        let dataIn = cc.inputPorts.indices.filter { cc.inputPorts[$0].tag.isEmpty }
        let dataOut = cc.outputPorts.indices.filter { cc.outputPorts[$0].tag.isEmpty }
        guard dataIn.count == dataOut.count else {
            throw GraphError(
                .invalidPort, "GateCalculator needs one data output per data input (\(dataIn.count) inputs, \(dataOut.count) outputs)",
                node: cc.nodeName)
        }
        routes = Array(zip(dataIn, dataOut))

        let sides = cc.sidePacketPorts
        if sides.contains(PortID("ALLOW", 0)) {
            fixedDecision = try cc.sidePacket("ALLOW", as: Bool.self)
        } else if sides.contains(PortID("DISALLOW", 0)) {
            fixedDecision = try !cc.sidePacket("DISALLOW", as: Bool.self)
        } else if streamControls.isEmpty {
            fixedDecision = options.allow
        }
        // A side packet's decision holds for the whole run: a closed gate ends its outputs now.
        if !sideControls.isEmpty, fixedDecision == false {
            for route in routes { cc.setNextTimestampBound(.done, atPosition: route.output) }
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let allow = try decision(cc)
        let state: Options.GateState = allow ? .allow : .disallow
        if lastState != .uninitialized, lastState != state {
            try cc.emit(allow, tag: "STATE_CHANGE")
        }
        lastState = state
        // A closed gate emits nothing; the outputs' bounds still follow the inputs' (offset 0).
        guard allow else { return }
        for route in routes {
            let p = cc.input(at: route.input)
            if !p.isEmpty { cc.emit(packet: p, atPosition: route.output) }
        }
    }

    private func decision(_ cc: CalculatorContext) throws -> Bool {
        if let fixedDecision { return fixedDecision }
        if cc.hasInput("ALLOW") { return try cc.input("ALLOW", as: Bool.self) }
        if cc.hasInput("DISALLOW") { return try !cc.input("DISALLOW", as: Bool.self) }
        return options.emptyPacketsAsAllow
    }
}
