import FrameFlow

/// `mediapipe.GetVectorItemCalculatorOptions`.
public struct GetVectorItemCalculatorOptions: CalculatorOptions, Equatable {
    public static let typeName: String? = "mediapipe.GetVectorItemCalculatorOptions"
    /// mediapipe/calculators/core/get_vector_item_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.getVectorItemCalculatorOptions }
    /// The item to take when no `INDEX` packet says (nil: only `INDEX`).
    public var itemIndex: Int?
    /// Whether an index past the end gives no output rather than an error.
    public var outputEmptyOnOob = false
    public init() {}
    public func validate() throws {
        if let itemIndex, itemIndex < 0 { throw GraphError(.invalidOption, "item_index must not be negative, got \(itemIndex)") }
    }
}

/// One item of a vector, as MediaPipe's `Get…VectorItemCalculator`s (the generic part; each
/// element type is a subclass in its own file, named as MediaPipe names it).
///
/// Inputs: `VECTOR` ([Element]); `INDEX` (Int or UInt64, optional): the item, else the
///   `item_index` option.
/// Outputs: `ITEM` (Element), at the vector's timestamp.
/// Options: `mediapipe.GetVectorItemCalculatorOptions` { item_index (≥ 0), output_empty_on_oob
///   (false) }.
/// Neither `INDEX` nor `item_index` is an error when the graph is built; a negative index, or
/// one past the end without `output_empty_on_oob` (which then gives no packet), is an error
/// naming the node.
open class VectorItemCalculator<Element: Sendable>: Calculator {
    public typealias Options = GetVectorItemCalculatorOptions

    public static var contract: CalculatorContract {
        CalculatorContract(
            inputs: [.init("VECTOR", [Element].self), .init("INDEX", .any, optional: true)],
            outputs: [.init("ITEM", Element.self)])
    }

    public let options: Options

    public required init(options: Options) {
        self.options = options
    }

    open func open(_ cc: CalculatorContext) throws {
        guard cc.hasInputPort("INDEX") || options.itemIndex != nil else {
            throw GraphError(.invalidOption, "give the item by an INDEX stream or the item_index option", node: cc.nodeName)
        }
    }

    open func process(_ cc: CalculatorContext) throws {
        guard cc.hasInput("VECTOR") else { return }
        let items = try cc.input("VECTOR", as: [Element].self)
        var index: Int
        if cc.hasInputPort("INDEX"), cc.hasInput("INDEX") {
            let p = cc.input("INDEX")
            switch p.payload {
            case let i as Int: index = i
            case let i as Int32: index = Int(i)
            case let i as Int64: index = Int(i)
            case let u as UInt64: index = u > UInt64(Int.max) ? Int.max : Int(u)
            default:
                throw GraphError(.calculatorFailed, "INDEX must be an integer, not \(p)", node: cc.nodeName, stream: cc.inputStreamName("INDEX"))
            }
        } else if let i = options.itemIndex {
            index = i
        } else {
            return
        }
        guard index >= 0 else { throw GraphError(.calculatorFailed, "index \(index) is negative", node: cc.nodeName) }
        if index < items.count {
            try cc.emit(items[index], tag: "ITEM")
        } else if !options.outputEmptyOnOob {
            throw GraphError(
                .calculatorFailed, "index \(index) is past the end of a vector of \(items.count) (set output_empty_on_oob to allow it)",
                node: cc.nodeName)
        }
    }
}
