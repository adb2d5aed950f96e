import FrameFlow

/// Opens a loop over a vector, as MediaPipe's `BeginLoop…Calculator`s: each element of the
/// `ITERABLE` packet goes out on `ITEM` at its own loop timestamp, so the nodes inside the
/// loop see one element per timestamp; `BATCH_END` then tells the matching `EndLoop…Calculator`
/// that the batch is complete and which input timestamp it belongs to.
///
/// Loop timestamps are the calculator's own counter (0, 1, 2, … over the whole run), not the
/// input's timestamps: the loop body runs in a time of its own and `EndLoop` puts the result
/// back at the batch's timestamp.
///
/// Inputs:
///   - `ITERABLE`: `[Item]`, the elements to loop over.
///   - `CLONE:i` (optional, repeated): any packet to hand to each iteration (e.g. the frame the
///     elements belong to).
///   - `TICK` (optional): any stream whose timestamps also start (empty) batches.
/// Outputs:
///   - `ITEM`: each element, at consecutive loop timestamps.
///   - `CLONE:i` (as many as the inputs): the `CLONE:i` input packet, again at each element's
///     loop timestamp.
///   - `BATCH_END`: the input timestamp (a `Timestamp`), at the loop timestamp of the last
///     element.
/// A batch without elements (an empty vector, or a timestamp whose `ITERABLE` packet is
/// missing) still takes one loop timestamp: `ITEM` and `CLONE` only advance their bounds and
/// `BATCH_END` goes out there, so `EndLoop` advances its output past the batch. After every
/// batch `ITEM`'s and each `CLONE`'s bound move to the next loop timestamp (beyond MediaPipe,
/// which leaves a `CLONE` without a packet where it was), so loop nodes never wait on a clone
/// the batch did not have.
///
/// Example usage:
/// ```
/// node {
///   calculator: "BeginLoopNormalizedRectCalculator"
///   input_stream: "ITERABLE:hand_rects"
///   input_stream: "CLONE:image"
///   output_stream: "ITEM:hand_rect"
///   output_stream: "CLONE:loop_image"
///   output_stream: "BATCH_END:hand_rects_timestamp"
/// }
/// ```
open class BeginLoopCalculator<Item: Sendable>: Calculator {
    public typealias Options = NoOptions

    public static var contract: CalculatorContract {
        CalculatorContract(
            inputs: [
                .init("ITERABLE", [Item].self), .init("CLONE", optional: true, repeated: true),
                .init("TICK", optional: true),
            ],
            outputs: [
                .init("ITEM", Item.self), .init("CLONE", optional: true, repeated: true),
                .init("BATCH_END", Timestamp.self),
            ],
            timestampOffset: nil, processesTimestampBounds: true)
    }

    /// The next loop timestamp.
    private var loopTimestamp = Timestamp(0)
    /// The `CLONE` indexes, each both an input and an output.
    private var clones: [Int] = []

    public required init(options: NoOptions) {}

    open func open(_ cc: CalculatorContext) throws {
        clones = cc.inputIndexes(tag: "CLONE")
        let outputs = (0..<cc.outputCount).filter { cc.outputPorts[$0].tag == "CLONE" }.map { cc.outputPorts[$0].index }
        guard outputs.sorted() == clones else {
            throw GraphError(
                .invalidPort,
                "CLONE inputs \(clones) and CLONE outputs \(outputs.sorted()) must match one to one", node: cc.nodeName)
        }
    }

    open func process(_ cc: CalculatorContext) throws {
        let start = loopTimestamp
        let iterable = cc.input("ITERABLE")
        if !iterable.isEmpty {
            let items = try iterable.get([Item].self, stream: cc.inputStreamName("ITERABLE") ?? "ITERABLE")
            for item in items {
                try cc.emit(item, tag: "ITEM", at: loopTimestamp)
                for i in clones {
                    let clone = cc.input("CLONE", i)
                    if let payload = clone.payload { try cc.emit(payload, tag: "CLONE", index: i, at: loopTimestamp) }
                }
                loopTimestamp = loopTimestamp.next
            }
        }
        // No element: the batch still takes a loop timestamp, on which nothing else comes.
        if loopTimestamp == start { loopTimestamp = loopTimestamp.next }
        // Nothing comes below the next loop timestamp any more: loop nodes waiting on an item,
        // or on a clone this batch's input lacked, go on at once.
        cc.setNextTimestampBound(loopTimestamp, tag: "ITEM")
        for i in clones { cc.setNextTimestampBound(loopTimestamp, tag: "CLONE", index: i) }
        try cc.emit(cc.inputTimestamp, tag: "BATCH_END", at: Timestamp(loopTimestamp.microseconds - 1))
    }
}

/// `BeginLoopCalculator` over `[NormalizedRect]`.
public final class BeginLoopNormalizedRectCalculator: BeginLoopCalculator<NormalizedRect> {}
/// `BeginLoopCalculator` over `[Detection]`.
public final class BeginLoopDetectionCalculator: BeginLoopCalculator<Detection> {}
/// `BeginLoopCalculator` over `[NormalizedLandmarkList]`.
public final class BeginLoopNormalizedLandmarkListVectorCalculator: BeginLoopCalculator<NormalizedLandmarkList> {}
/// `BeginLoopCalculator` over `[Int]`.
public final class BeginLoopIntCalculator: BeginLoopCalculator<Int> {}
/// `BeginLoopCalculator` over `[Float]`.
public final class BeginLoopFloatCalculator: BeginLoopCalculator<Float> {}
/// `BeginLoopCalculator` over `[String]`.
public final class BeginLoopStringCalculator: BeginLoopCalculator<String> {}
/// `BeginLoopCalculator` over `[ImageFrame]`.
public final class BeginLoopImageFrameCalculator: BeginLoopCalculator<ImageFrame> {}
