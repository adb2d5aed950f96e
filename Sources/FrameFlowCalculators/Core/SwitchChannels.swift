import FrameFlow

/// Options of `SwitchContainer` and of the demux / mux it expands to
/// (`mediapipe.SwitchContainerOptions`, without its `contained_node`s, which the expansion
/// consumes).
public struct SwitchContainerOptions: CalculatorOptions, Equatable {
    public static let typeName: String? = "mediapipe.SwitchContainerOptions"
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.switchContainerOptions }
    /// The channel to run, unless a `SELECT` / `ENABLE` side packet or stream says otherwise.
    public var select: Int?
    /// `true` runs channel 1, `false` channel 0.
    public var enable: Bool?
    /// Accepted for MediaPipe's graphs: FrameFlow's demux always orders packets by timestamp.
    public var synchronizeIo = false
    /// Accepted for MediaPipe's graphs: selection by stream always applies from its timestamp on.
    public var asyncSelection = false
    /// Accepted for MediaPipe's graphs.
    public var tickInputStream: [String] = []
    public init() {}

    public func validate() throws {
        if select != nil && enable != nil {
            throw GraphError(.invalidOption, "select and enable exclude each other")
        }
        if let select, select < 0 { throw GraphError(.invalidOption, "select \(select) is negative") }
    }
}

/// The channel bookkeeping both halves of a `SwitchContainer` share: the channel in force at
/// each timestamp, from the options, a `SELECT` / `ENABLE` side packet and, over time, a
/// `SELECT` / `ENABLE` input stream.
struct SwitchChannels {
    /// Both halves' contract: any ports, a `SELECT` (Int) or `ENABLE` (Bool) side packet, the
    /// immediate policy (packets wait in the calculator until the selection settles them), and
    /// bounds set by the calculator.
    static let contract = CalculatorContract(
        inputSidePackets: [.init("SELECT", Int.self, optional: true), .init("ENABLE", Bool.self, optional: true)],
        acceptsAnyPorts: true, inputPolicy: .immediate, timestampOffset: nil)

    /// (first timestamp, channel), ascending; the first entry holds from the start.
    private(set) var history: [(Timestamp, Int)]
    /// Position of the `SELECT` / `ENABLE` input stream, if the node has one.
    let selectInput: Int?
    /// Everything below this is settled by the selection stream.
    private(set) var settled: Timestamp = .done

    /// The channel at the start, and where the selection stream is.
    /// - Parameter channelCount: the channels the node's ports show, nil when they show none.
    init(_ cc: CalculatorContext, options: SwitchContainerOptions, channelCount: Int?) throws {
        var channel = options.select ?? (options.enable == true ? 1 : 0)
        for (i, port) in cc.sidePacketPorts.enumerated() where port.tag == "SELECT" || port.tag == "ENABLE" {
            guard let p = cc.sidePacket(at: i), !p.isEmpty else { continue }
            channel = try Self.channel(p, "input side packet \(port.tag)")
        }
        if let channelCount, channel >= channelCount {
            throw GraphError(.invalidOption, "channel \(channel) selected, the container has \(channelCount) (0…\(channelCount - 1))")
        }
        history = [(.unstarted, channel)]
        selectInput = cc.inputPorts.firstIndex { $0.tag == "SELECT" || $0.tag == "ENABLE" }
        if selectInput != nil { settled = .unstarted }
    }

    /// Takes the selection stream's packet and bound at this call.
    mutating func record(_ cc: CalculatorContext, channelCount: Int?) throws {
        guard let s = selectInput else { return }
        let p = cc.input(at: s)
        var bound = cc.inputBound(atPosition: s)
        if !p.isEmpty {
            let channel = try Self.channel(p, "input stream \(cc.inputPorts[s].tag)")
            if let channelCount, channel >= channelCount {
                throw GraphError(.invalidOption, "channel \(channel) selected at \(p.timestamp), the container has \(channelCount)")
            }
            if channel != history[history.count - 1].1 { history.append((p.timestamp, channel)) }
            bound = Swift.max(bound, p.timestamp.next)
        }
        settled = Swift.max(settled, bound)
    }

    /// The channel in force at `t`.
    func channel(at t: Timestamp) -> Int {
        var k = history.count - 1
        while k > 0 && history[k].0 > t { k -= 1 }
        return history[k].1
    }

    /// The segments of `history` from `t` on: (start, end, channel).
    func segments(from t: Timestamp) -> [(Timestamp, Timestamp, Int)] {
        var out: [(Timestamp, Timestamp, Int)] = []
        for (k, (start, c)) in history.enumerated() {
            let end = k + 1 < history.count ? history[k + 1].0 : .done
            if end > t { out.append((Swift.max(start, t), end, c)) }
        }
        return out
    }

    /// Forgets channel changes before `t` (keeping the one in force at `t`).
    mutating func forget(before t: Timestamp) {
        while history.count > 1 && history[1].0 <= t { history.removeFirst() }
    }

    private static func channel(_ p: Packet, _ what: String) throws -> Int {
        switch p.payload {
        case let b as Bool: return b ? 1 : 0
        case let i as Int where i >= 0: return i
        case let i as Int32 where i >= 0: return Int(i)
        default:
            let got = p.payload.map { "\($0)" } ?? "nothing"
            throw GraphError(.typeMismatch, "\(what): expected a channel (Int ≥ 0 or Bool), got \(got)")
        }
    }

    /// How many channels `ports` show (`C<c>__…`), nil when none.
    static func count(_ ports: [PortID]...) -> Int? {
        ports.joined().compactMap { split($0)?.channel }.max().map { $0 + 1 }
    }

    /// The channel and base port of a channel port (`C1__TAG:index`), or nil.
    static func split(_ port: PortID) -> (channel: Int, port: PortID)? {
        guard port.tag.hasPrefix("C"), let sep = port.tag.range(of: "__"),
            let c = Int(port.tag[port.tag.index(after: port.tag.startIndex)..<sep.lowerBound])
        else { return nil }
        return (c, PortID(String(port.tag[sep.upperBound...]), port.index))
    }
}
