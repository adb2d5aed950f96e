import FrameFlow

/// Closes a loop that a `BeginLoop…Calculator` opened, as MediaPipe's `EndLoop…Calculator`s:
/// gathers the `ITEM`s the loop body produced, in loop-timestamp order, and when `BATCH_END`
/// arrives sends them as one vector at the batch's input timestamp.
///
/// Items the loop body dropped are simply missing from the vector. A batch that produced no
/// item sends nothing: the output's bound moves past the batch's timestamp instead, so
/// downstream nodes waiting on it go on (MediaPipe does the same).
///
/// Inputs:
///   - `ITEM`: one `Item` per loop timestamp.
///   - `BATCH_END`: the batch's input timestamp (a `Timestamp`), from `BeginLoop`'s
///     `BATCH_END`.
/// Outputs:
///   - `ITERABLE`: `[Item]`, at the batch's input timestamp.
///
/// Example usage:
/// ```
/// node {
///   calculator: "EndLoopNormalizedLandmarkListVectorCalculator"
///   input_stream: "ITEM:single_hand_landmarks"
///   input_stream: "BATCH_END:hand_rects_timestamp"
///   output_stream: "ITERABLE:multi_hand_landmarks"
/// }
/// ```
open class EndLoopCalculator<Item: Sendable>: Calculator {
    public typealias Options = NoOptions

    /// Other names for a subclass (overridable, so a subclass's names reach the registry).
    open class var aliases: [String] { [] }

    public static var contract: CalculatorContract {
        CalculatorContract(
            inputs: [.init("ITEM", Item.self), .init("BATCH_END", Timestamp.self)],
            outputs: [.init("ITERABLE", [Item].self)], timestampOffset: nil)
    }

    /// The items of the batch in progress (nil: none yet).
    private var collected: [Item]?

    public required init(options: NoOptions) {}

    open func process(_ cc: CalculatorContext) throws {
        let item = cc.input("ITEM")
        if !item.isEmpty {
            let value = try item.get(Item.self, stream: cc.inputStreamName("ITEM") ?? "ITEM")
            collected = collected ?? []
            collected?.append(value)
        }
        let batchEnd = cc.input("BATCH_END")
        guard !batchEnd.isEmpty else { return }
        let batch = try batchEnd.get(Timestamp.self, stream: cc.inputStreamName("BATCH_END") ?? "BATCH_END")
        if let items = collected {
            try cc.emit(items, tag: "ITERABLE", at: batch)
            collected = nil
        } else {
            cc.setNextTimestampBound(batch.next, tag: "ITERABLE")
        }
    }
}

/// `EndLoopCalculator` gathering `[NormalizedRect]`.
public final class EndLoopNormalizedRectCalculator: EndLoopCalculator<NormalizedRect> {}
/// `EndLoopCalculator` gathering `[Detection]`.
public final class EndLoopDetectionCalculator: EndLoopCalculator<Detection> {}
/// `EndLoopCalculator` gathering `[NormalizedLandmarkList]`.
public final class EndLoopNormalizedLandmarkListVectorCalculator: EndLoopCalculator<NormalizedLandmarkList> {}
/// `EndLoopCalculator` gathering `[LandmarkList]`.
public final class EndLoopLandmarkListVectorCalculator: EndLoopCalculator<LandmarkList> {}
/// `EndLoopCalculator` gathering `[ClassificationList]`.
public final class EndLoopClassificationListCalculator: EndLoopCalculator<ClassificationList> {}
/// `EndLoopCalculator` gathering `[RenderData]`.
public final class EndLoopRenderDataCalculator: EndLoopCalculator<RenderData> {}
/// `EndLoopCalculator` gathering `[Bool]`.
public final class EndLoopBooleanCalculator: EndLoopCalculator<Bool> {}
/// `EndLoopCalculator` gathering `[Float]`.
public final class EndLoopFloatCalculator: EndLoopCalculator<Float> {}
/// `EndLoopCalculator` gathering `[ImageFrame]`; also MediaPipe's `EndLoopImageCalculator`
/// (FrameFlow's CPU images are `ImageFrame`s).
public final class EndLoopImageFrameCalculator: EndLoopCalculator<ImageFrame> {
    override public class var aliases: [String] { ["EndLoopImageCalculator"] }
}
