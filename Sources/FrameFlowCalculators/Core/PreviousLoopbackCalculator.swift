import FrameFlow

/// Pairs each input with the loop's result for the input before it, as MediaPipe's
/// `PreviousLoopbackCalculator`: the way a tracker sees its own previous output.
///
/// For each packet on `MAIN` at timestamp T, `PREV_LOOP` gets, at T, the `LOOP` packet whose
/// timestamp is that of the previous `MAIN` packet; when `LOOP` has no packet there (its
/// bound passed it), or for the first `MAIN` packet, `PREV_LOOP` instead advances its bound
/// past T, so a consumer sees an empty input at T and does not wait. A `MAIN` bound that moves
/// without a packet moves `PREV_LOOP`'s bound too. Each answer waits until `LOOP` has settled
/// the timestamp it needs, and answers go out in `MAIN`'s order.
///
/// Inputs:
///   - `MAIN`: any type; only its timestamps matter.
///   - `LOOP`: any type, the loop's result; mark it `back_edge: true`.
/// Outputs:
///   - `PREV_LOOP`: the previous `LOOP` packet, re-stamped with the current `MAIN` timestamp.
///
/// Example usage:
/// ```
/// node {
///   calculator: "PreviousLoopbackCalculator"
///   input_stream: "MAIN:input_video"
///   input_stream: "LOOP:tracked_rect"
///   input_stream_info: { tag_index: "LOOP" back_edge: true }
///   output_stream: "PREV_LOOP:prev_tracked_rect"
/// }
/// ```
public final class PreviousLoopbackCalculator: Calculator {
    public static let contract = CalculatorContract(
        inputs: [.init("MAIN"), .init("LOOP")], outputs: [.init("PREV_LOOP")], inputPolicy: .immediate,
        timestampOffset: nil, processesTimestampBounds: true, waitsForBackEdges: true)

    /// A `MAIN` timestamp still to answer, and the `LOOP` timestamp that answers it (`.unset`
    /// for a bound move, which any `LOOP` progress answers with a bound).
    private struct Pending {
        var timestamp: Timestamp
        var loopTimestamp: Timestamp
    }

    /// `MAIN` timestamps not answered yet, oldest first.
    private var pending: [Pending] = []
    private var lastMain = Timestamp.unstarted
    private var lastNonEmptyMain = Timestamp.unstarted
    /// What `LOOP` settled and no answer has used: packets, and empty packets for timestamps
    /// its bound passed without one. Starts with an empty one before any timestamp, which
    /// answers the first `MAIN` packet.
    private var loop: [Packet] = [Packet(emptyAt: .unstarted)]
    private var lastLoop = Timestamp.unstarted

    public init(options: NoOptions) {}

    public func process(_ cc: CalculatorContext) throws {
        let main = cc.input("MAIN")
        if !main.isEmpty, lastMain < main.timestamp {
            pending.append(Pending(timestamp: main.timestamp, loopTimestamp: lastNonEmptyMain))
            lastNonEmptyMain = main.timestamp
            lastMain = main.timestamp
        }
        // MAIN's bound moved past timestamps without packets: the latest of them needs a bound.
        let mainSettled = Self.settled(below: cc.inputBound("MAIN"))
        if lastMain < mainSettled {
            pending.append(Pending(timestamp: mainSettled, loopTimestamp: .unset))
            lastMain = mainSettled
        }

        let loopPacket = cc.input("LOOP")
        if !loopPacket.isEmpty, lastLoop < loopPacket.timestamp {
            loop.append(loopPacket)
            lastLoop = loopPacket.timestamp
        }
        let loopSettled = Self.settled(below: cc.inputBound("LOOP"))
        if lastLoop < loopSettled {
            loop.append(Packet(emptyAt: loopSettled))
            lastLoop = loopSettled
        }

        var answered = 0
        var used = 0
        while answered < pending.count {
            let want = pending[answered]
            if want.loopTimestamp == .unset {
                // A bound move of MAIN needs no LOOP data: answer it in turn.
                cc.setNextTimestampBound(want.timestamp >= .max ? .done : want.timestamp.next, tag: "PREV_LOOP")
                answered += 1
                continue
            }
            guard used < loop.count else { break }
            let candidate = loop[used]
            if want.loopTimestamp < candidate.timestamp {
                // LOOP is past the timestamp this one needs: nothing to send, only a bound.
                cc.setNextTimestampBound(want.timestamp.next, tag: "PREV_LOOP")
                answered += 1
            } else if candidate.timestamp < want.loopTimestamp {
                // No MAIN timestamp still pending needs this LOOP packet.
                used += 1
            } else {
                if let payload = candidate.payload {
                    try cc.emit(payload, tag: "PREV_LOOP", at: want.timestamp)
                } else {
                    cc.setNextTimestampBound(want.timestamp.next, tag: "PREV_LOOP")
                }
                answered += 1
                used += 1
            }
            // The last timestamp MAIN can carry is answered: PREV_LOOP is complete.
            if want.timestamp >= .max { cc.setNextTimestampBound(.done, tag: "PREV_LOOP") }
        }
        pending.removeFirst(answered)
        loop.removeFirst(used)
    }

    /// The latest timestamp a stream with bound `bound` can no longer carry (`.max` once it is
    /// done).
    private static func settled(below bound: Timestamp) -> Timestamp {
        if bound >= .postStream { return .max }
        return bound.isRangeValue && bound > .min ? Timestamp(bound.microseconds - 1) : .unstarted
    }
}
