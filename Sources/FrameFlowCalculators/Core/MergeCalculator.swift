import FrameFlow

/// Merges several streams into one, as MediaPipe's `MergeCalculator`: at each timestamp
/// where any input has a packet, the output gets the packet of the first input (in the
/// order the node lists them) that has one; the others at that timestamp are dropped. The
/// inputs may carry different types.
///
/// Inputs: untagged, one or more, any types (synchronized by timestamp, default policy).
/// Outputs: untagged, one.
///
/// Example usage:
/// ```
/// node {
///   calculator: "MergeCalculator"
///   input_stream: "face_rect_from_detection"
///   input_stream: "face_rect_from_tracking"
///   output_stream: "face_rect"
/// }
/// ```
public final class MergeCalculator: Calculator {
    public static let contract = CalculatorContract(
        inputs: [.init("", repeated: true)], outputs: [.init("")], acceptsAnyPorts: true)

    private var inputs: [Int] = []

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        inputs = cc.inputPorts.indices.filter { cc.inputPorts[$0].tag.isEmpty }
        guard !inputs.isEmpty, inputs.count == cc.inputCount else {
            throw GraphError(.invalidPort, "MergeCalculator needs one or more untagged inputs, and only those", node: cc.nodeName)
        }
        guard cc.outputCount == 1, cc.outputPorts[0].tag.isEmpty else {
            throw GraphError(.invalidPort, "MergeCalculator needs exactly one untagged output", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        for i in inputs {
            let p = cc.input(at: i)
            if !p.isEmpty { return cc.emit(packet: p, atPosition: 0) }
        }
    }
}
