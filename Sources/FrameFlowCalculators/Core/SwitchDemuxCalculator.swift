import FrameFlow

/// The input half of a `SwitchContainer` (MediaPipe's `SwitchDemuxCalculator`): sends each
/// input packet to the same port on the channel in force at its timestamp (`TAG` →
/// `C<channel>__TAG`), and every input side packet to every channel.
///
/// Inputs: any ports, plus an optional `SELECT` (Int) or `ENABLE` (Bool) stream choosing the
/// channel from its packet's timestamp on. Side packets: any, plus optional `SELECT` / `ENABLE`.
/// Outputs: `C<c>__TAG:index` for each input `TAG:index` and channel `c`. Packets wait until
/// the selection stream has settled their timestamp; the other channels' bounds advance.
/// Options: `SwitchContainerOptions`. Written by `SwitchContainer`'s expansion, not by hand.
public final class SwitchDemuxCalculator: OptionsStoringCalculator {
    public typealias Options = SwitchContainerOptions
    public static let contract = SwitchChannels.contract

    public var options: Options
    private var channels: SwitchChannels!
    /// The channels the ports show (nil: none, a container of side packets alone).
    private var channelCount: Int?
    /// Per input: the input's position and its output position on each channel (nil: none).
    private var routes: [(input: Int, outputs: [Int?])] = []
    private var queues: [[Packet]] = []

    public init(options: Options) { self.options = options }

    public func open(_ cc: CalculatorContext) throws {
        let outs = cc.outputPorts.map(SwitchChannels.split)
        channelCount = SwitchChannels.count(cc.outputPorts, cc.outputSidePacketPorts)
        channels = try SwitchChannels(cc, options: options, channelCount: channelCount)
        for (i, port) in cc.inputPorts.enumerated() where i != channels.selectInput {
            let outputs = (0..<(channelCount ?? 0)).map { c in outs.firstIndex { $0?.channel == c && $0?.port == port } }
            routes.append((i, outputs))
        }
        queues = Array(repeating: [], count: routes.count)
        // Every channel gets the side packets (its nodes open only when theirs are given).
        let sidePorts = cc.sidePacketPorts
        for (o, port) in cc.outputSidePacketPorts.enumerated() {
            guard let base = SwitchChannels.split(port)?.port, let i = sidePorts.firstIndex(of: base),
                let p = cc.sidePacket(at: i)
            else { continue }
            cc.setSidePacket(p, atPosition: o)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        // A container of side packets only: nothing to run.
        if cc.inputCount == 0 { return cc.finishSource() }
        try channels.record(cc, channelCount: channelCount)
        for (k, route) in routes.enumerated() {
            let p = cc.input(at: route.input)
            if !p.isEmpty { queues[k].append(p) }
            var sent = 0
            for packet in queues[k] {
                guard packet.timestamp < channels.settled else { break }
                let c = channels.channel(at: packet.timestamp)
                if c < route.outputs.count, let o = route.outputs[c] { cc.emit(packet: packet, atPosition: o) }
                sent += 1
            }
            queues[k].removeFirst(sent)
            let bound = queues[k].first?.timestamp ?? Swift.min(cc.inputBound(atPosition: route.input), channels.settled)
            for o in route.outputs.compactMap({ $0 }) { cc.setNextTimestampBound(bound, atPosition: o) }
        }
        // The channel changes still needed: from the earliest packet queued or still to come.
        var pending = channels.settled
        for (k, route) in routes.enumerated() {
            pending = Swift.min(pending, queues[k].first?.timestamp ?? cc.inputBound(atPosition: route.input))
        }
        channels.forget(before: pending)
    }

    /// Sends what is still queued: the selection is settled to the end now.
    public func close(_ cc: CalculatorContext) throws { try process(cc) }
}
