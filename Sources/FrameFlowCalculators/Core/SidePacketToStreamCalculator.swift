import FrameFlow

/// Sends input side packets into streams at the timestamps of a `TICK` stream, as MediaPipe's
/// `SidePacketToStreamCalculator` does in its tick modes: side packet i goes out on output i
/// of `AT_TICK` at every `TICK` packet's timestamp, or of `AT_FIRST_TICK` at the first one only
/// (the Tasks graphs pick a vector item so: a constant 0 made a stream beside the vector).
///
/// Inputs: `TICK` (any type). Outputs: `AT_TICK` or `AT_FIRST_TICK` (one per side packet, the
///   side packet's type). Side packets in: untagged, one or more (any type).
/// MediaPipe's other modes (`AT_PRESTREAM`, `AT_POSTSTREAM`, `AT_ZERO`, `AT_TIMESTAMP`) are not
/// supported: connecting one, connecting both tick outputs, a tick output without `TICK`, or
/// outputs and side packets of different counts are errors when the graph is built.
///
/// Example usage:
/// ```
/// node {
///   calculator: "SidePacketToStreamCalculator"
///   input_stream: "TICK:landmarks"
///   input_side_packet: "item_index"
///   output_stream: "AT_TICK:item_index_stream"
/// }
/// ```
public final class SidePacketToStreamCalculator: Calculator {
    public static let contract = CalculatorContract(
        inputs: [.init("TICK", .any, optional: true)],
        outputs: [
            .init("AT_TICK", .any, optional: true, repeated: true), .init("AT_FIRST_TICK", .any, optional: true, repeated: true),
            .init("AT_PRESTREAM", .any, optional: true, repeated: true), .init("AT_POSTSTREAM", .any, optional: true, repeated: true),
            .init("AT_ZERO", .any, optional: true, repeated: true), .init("AT_TIMESTAMP", .any, optional: true, repeated: true),
        ],
        inputSidePackets: [.init("", .any, repeated: true)])

    private var tag = "AT_TICK"
    private var count = 0
    private var sent = false

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        let outputs = cc.outputPorts
        for unsupported in ["AT_PRESTREAM", "AT_POSTSTREAM", "AT_ZERO", "AT_TIMESTAMP"] where outputs.contains(where: { $0.tag == unsupported }) {
            throw GraphError(.invalidPort, "\(unsupported) is not supported; use TICK with AT_TICK or AT_FIRST_TICK", node: cc.nodeName)
        }
        let ticks = Set(outputs.map(\.tag))
        guard ticks.count == 1, let t = ticks.first else {
            throw GraphError(.invalidPort, "connect exactly one of AT_TICK and AT_FIRST_TICK", node: cc.nodeName)
        }
        guard cc.hasInputPort("TICK") else { throw GraphError(.invalidPort, "\(t) needs a TICK input stream", node: cc.nodeName) }
        tag = t
        count = outputs.count
        let sides = cc.sidePacketPorts.filter { $0.tag.isEmpty }.count
        guard count == sides, sides > 0 else {
            throw GraphError(.invalidPort, "\(sides) side packet(s) for \(count) \(t) output(s): one side packet per output", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard cc.hasInput("TICK"), !(tag == "AT_FIRST_TICK" && sent) else { return }
        for i in 0..<count {
            guard let side = cc.sidePacket("", i), let payload = side.payload else {
                throw GraphError(.missingSidePacket, "side packet \(i) has no value", node: cc.nodeName)
            }
            try cc.emit(payload, tag: tag, index: i)
        }
        sent = true
    }
}
