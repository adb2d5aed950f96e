import FrameFlow

/// The output half of a `SwitchContainer` (MediaPipe's `SwitchMuxCalculator`): passes on
/// each output of the channel in force at its timestamp (`C<channel>__TAG` → `TAG`) and drops
/// the other channels' packets; output side packets come from the channel chosen at the start.
///
/// Inputs: `C<c>__TAG:index` per channel, plus an optional `SELECT` (Int) or `ENABLE` (Bool)
/// stream. Side packets: `C<c>__TAG:index`, plus optional `SELECT` / `ENABLE`.
/// Outputs: `TAG:index` for each channel port. Options: `SwitchContainerOptions`.
/// Written by `SwitchContainer`'s expansion, not by hand.
public final class SwitchMuxCalculator: OptionsStoringCalculator {
    public typealias Options = SwitchContainerOptions
    public static let contract = SwitchChannels.contract

    public var options: Options
    private var channels: SwitchChannels!
    /// The channels the ports show (nil: none).
    private var channelCount: Int?
    /// Per output: its input position on each channel (nil: that channel gives none).
    private var routes: [[Int?]] = []
    private var queues: [[Packet]] = []
    /// Below this, every output is settled.
    private var done: [Timestamp] = []

    public init(options: Options) { self.options = options }

    public func open(_ cc: CalculatorContext) throws {
        let ins = cc.inputPorts.map(SwitchChannels.split)
        channelCount = SwitchChannels.count(cc.inputPorts, cc.sidePacketPorts)
        channels = try SwitchChannels(cc, options: options, channelCount: channelCount)
        routes = cc.outputPorts.map { port in
            (0..<(channelCount ?? 0)).map { c in ins.firstIndex { $0?.channel == c && $0?.port == port } }
        }
        queues = Array(repeating: [], count: cc.inputPorts.count)
        done = Array(repeating: .unstarted, count: routes.count)
        let chosen = channels.channel(at: .unstarted)
        let sidePorts = cc.sidePacketPorts.map(SwitchChannels.split)
        for (o, port) in cc.outputSidePacketPorts.enumerated() {
            guard let i = sidePorts.firstIndex(where: { $0?.channel == chosen && $0?.port == port }) else { continue }
            guard let p = cc.sidePacket(at: i) else {
                throw GraphError(.missingSidePacket, "channel \(chosen) gave no side packet \(port)", node: cc.nodeName)
            }
            cc.setSidePacket(p, atPosition: o)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        // A container of side packets only: nothing to run.
        if cc.inputCount == 0 { return cc.finishSource() }
        try channels.record(cc, channelCount: channelCount)
        for i in queues.indices where i != channels.selectInput {
            let p = cc.input(at: i)
            if !p.isEmpty { queues[i].append(p) }
        }
        for (o, inputs) in routes.enumerated() {
            // Settled: below the selection's bound and, in each stretch of one channel, below
            // that channel's bound.
            var bound = channels.settled
            for (start, end, c) in channels.segments(from: done[o]) where start < bound {
                guard c < inputs.count, let i = inputs[c] else { continue }
                let channelBound = cc.inputBound(atPosition: i)
                if channelBound < Swift.min(end, bound) {
                    bound = Swift.max(start, channelBound)
                    break
                }
            }
            var ready: [Packet] = []
            for (c, input) in inputs.enumerated() {
                guard let i = input else { continue }
                var taken = 0
                for packet in queues[i] {
                    guard packet.timestamp < bound else { break }
                    // Below `done` the output is settled: such a packet came from a channel
                    // that was not chosen then.
                    if packet.timestamp >= done[o] && channels.channel(at: packet.timestamp) == c { ready.append(packet) }
                    taken += 1
                }
                queues[i].removeFirst(taken)
            }
            ready.sort { $0.timestamp < $1.timestamp }
            for packet in ready { cc.emit(packet: packet, atPosition: o) }
            if bound > done[o] {
                done[o] = bound
                cc.setNextTimestampBound(bound, atPosition: o)
            }
        }
        channels.forget(before: done.min() ?? .unstarted)
    }

    /// Passes on what is still queued: every bound is `done` now.
    public func close(_ cc: CalculatorContext) throws { try process(cc) }
}
