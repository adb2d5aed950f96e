import FrameFlow

/// Says whether a stream has a packet, as MediaPipe's `PacketPresenceCalculator`: `true` at
/// each timestamp `PACKET` carries a packet, and `false` at each timestamp its bound passes
/// without one. Often feeds a `GateCalculator`'s `ALLOW` or `DISALLOW`.
///
/// Inputs: `PACKET`, any type.
/// Outputs: `PRESENCE` (Bool).
///
/// Example usage:
/// ```
/// node {
///   calculator: "PacketPresenceCalculator"
///   input_stream: "PACKET:tracked_face"
///   output_stream: "PRESENCE:has_tracked_face"
/// }
/// ```
public final class PacketPresenceCalculator: Calculator {
    public static let contract = CalculatorContract(
        inputs: [.init("PACKET")], outputs: [.init("PRESENCE", Bool.self)], processesTimestampBounds: true)

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        try cc.emit(cc.hasInput("PACKET"), tag: "PRESENCE")
    }
}
