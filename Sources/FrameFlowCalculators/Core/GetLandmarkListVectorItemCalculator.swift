import FrameFlow

/// Picks one element of a `[LandmarkList]`, as MediaPipe's `GetLandmarkListVectorItemCalculator` (a
/// `GetVectorItemCalculator<LandmarkList>`): the element at the `INDEX` packet's value, or at the
/// `item_index` option when no `INDEX` packet came at the timestamp (nothing without either).
/// A negative index is an error; an index past the end is an error too, unless
/// `output_empty_on_oob`, which then sends nothing.
///
/// Self-contained (no shared base), so each `Get…VectorItemCalculator` lives in its own file.
///
/// Inputs: `VECTOR` ([LandmarkList]); `INDEX` (Int, optional; a UInt64 packet is taken too).
/// Outputs: `ITEM` (LandmarkList).
/// Options: `mediapipe.GetVectorItemCalculatorOptions` { item_index (unset), output_empty_on_oob
///   (false) }; without an `INDEX` input, `item_index` must be set.
///
/// Example usage:
/// ```
/// node {
///   calculator: "GetLandmarkListVectorItemCalculator"
///   input_stream: "VECTOR:multi_world_landmarks"
///   input_stream: "INDEX:hand_index"
///   output_stream: "ITEM:one_world_landmarks"
/// }
/// ```
public final class GetLandmarkListVectorItemCalculator: Calculator {
    /// MediaPipe's `GetVectorItemCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.GetVectorItemCalculatorOptions"
        /// mediapipe/calculators/core/get_vector_item_calculator.proto, for binary graphs.
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.getVectorItemCalculatorOptions }
        /// The index to take when no `INDEX` packet comes; unset: none.
        public var itemIndex: Int?
        /// Send nothing, rather than fail, for an index past the end.
        public var outputEmptyOnOob = false
        public init() {}
        /// Options taking element `itemIndex`.
        public init(itemIndex: Int?, outputEmptyOnOob: Bool = false) {
            self.itemIndex = itemIndex
            self.outputEmptyOnOob = outputEmptyOnOob
        }

        public func validate() throws {
            if let i = itemIndex { try OptionCheck.range(i, 0...Int(Int32.max), "item_index") }
        }
    }

    /// The vector.
    public static let vector = InputPort<[LandmarkList]>("VECTOR")
    /// The element.
    public static let item = OutputPort<LandmarkList>("ITEM")

    public static let contract = CalculatorContract(
        inputs: [vector.spec, PortSpec("INDEX", optional: true)], outputs: [item.spec])

    private let options: Options

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        guard cc.hasInputPort("INDEX") || options.itemIndex != nil else {
            throw GraphError(.invalidOption, "connect INDEX or set item_index", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let items = try cc.value(Self.vector) else { return }
        let index: Int
        if cc.hasInputPort("INDEX"), cc.hasInput("INDEX") {
            let packet = cc.input("INDEX")
            if let i = try? packet.get(Int.self) {
                index = i
            } else if let u = try? packet.get(UInt64.self) {
                index = u > UInt64(Int.max) ? Int.max : Int(u)
            } else {
                throw GraphError(.calculatorFailed, "INDEX must carry an Int or a UInt64", node: cc.nodeName)
            }
        } else if let i = options.itemIndex {
            index = i
        } else {
            return
        }
        guard index >= 0 else { throw GraphError(.calculatorFailed, "index \(index) is negative", node: cc.nodeName) }
        guard index < items.count else {
            if options.outputEmptyOnOob { return }
            throw GraphError(.calculatorFailed, "index \(index) is past the end of \(items.count) items", node: cc.nodeName)
        }
        try cc.emit(items[index], to: Self.item)
    }
}
