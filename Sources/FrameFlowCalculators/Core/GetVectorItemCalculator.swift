import FrameFlow

/// `mediapipe.GetVectorItemCalculatorOptions`.
public struct GetVectorItemCalculatorOptions: CalculatorOptions, Equatable {
    public static let typeName: String? = "mediapipe.GetVectorItemCalculatorOptions"
    /// mediapipe/calculators/core/get_vector_item_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.getVectorItemCalculatorOptions }
    /// The index of the item, unless an `INDEX` packet gives one (nil: unset).
    public var itemIndex: Int?
    /// An index past the end sends nothing instead of failing.
    public var outputEmptyOnOob = false
    public init() {}
    /// Options taking item `itemIndex`.
    public init(itemIndex: Int?, outputEmptyOnOob: Bool = false) {
        self.itemIndex = itemIndex
        self.outputEmptyOnOob = outputEmptyOnOob
    }
    public func validate() throws {
        if let itemIndex, itemIndex < 0 { throw GraphError(.invalidOption, "item_index must be ≥ 0, got \(itemIndex)") }
    }
}

/// Takes one item of a vector, as MediaPipe's `Get…VectorItemCalculator`s (the Tasks graphs
/// take the one tracked face or pose out of the loop's vector to smooth it).
///
/// The index is the `INDEX` packet's at the timestamp, else the `item_index` option; with
/// neither at a timestamp nothing is sent. A negative index, or one past the end without
/// `output_empty_on_oob`, is an error naming the node; with it, nothing is sent.
///
/// Inputs:
///   - `VECTOR` (`[Element]`).
///   - `INDEX` (Int, Int32 or UInt64, optional).
/// Outputs:
///   - `ITEM` (`Element`), at the input timestamp.
/// Options: `mediapipe.GetVectorItemCalculatorOptions` { item_index (unset, ≥ 0),
///   output_empty_on_oob (false) }; without `INDEX`, `item_index` is required.
///
/// Example usage:
/// ```
/// node {
///   calculator: "GetNormalizedLandmarkListVectorItemCalculator"
///   input_stream: "VECTOR:multi_face_landmarks"
///   output_stream: "ITEM:face_landmarks"
///   options { [mediapipe.GetVectorItemCalculatorOptions.ext] { item_index: 0 } }
/// }
/// ```
open class GetVectorItemCalculator<Element: Sendable>: Calculator {
    public typealias Options = GetVectorItemCalculatorOptions

    public static var contract: CalculatorContract {
        CalculatorContract(
            inputs: [.init("VECTOR", [Element].self), .init("INDEX", optional: true)], outputs: [.init("ITEM", Element.self)])
    }

    public let options: Options

    public required init(options: Options) {
        self.options = options
    }

    open func open(_ cc: CalculatorContext) throws {
        guard cc.hasInputPort("INDEX") || options.itemIndex != nil else {
            throw GraphError(.invalidOption, "give item_index or connect an INDEX input", node: cc.nodeName)
        }
    }

    open func process(_ cc: CalculatorContext) throws {
        guard cc.hasInput("VECTOR") else { return }
        let vector = try cc.input("VECTOR", as: [Element].self)
        let index: Int
        if cc.hasInputPort("INDEX"), cc.hasInput("INDEX") {
            let stream = cc.inputStreamName("INDEX") ?? "INDEX"
            switch cc.input("INDEX").payload {
            case let i as Int: index = i
            case let i as Int32: index = Int(i)
            case let i as UInt64 where i <= UInt64(Int.max): index = Int(i)
            case let other:
                throw GraphError(
                    .typeMismatch, "INDEX must hold an Int, Int32 or UInt64 up to Int.max, got \(other.map { "\($0)" } ?? "nothing")",
                    node: cc.nodeName, stream: stream)
            }
        } else if let i = options.itemIndex {
            index = i
        } else {
            return
        }
        guard index >= 0 else {
            throw GraphError(.calculatorFailed, "index \(index) at \(cc.inputTimestamp) is negative", node: cc.nodeName)
        }
        guard index < vector.count else {
            if options.outputEmptyOnOob { return }
            throw GraphError(
                .calculatorFailed,
                "index \(index) at \(cc.inputTimestamp) is past the end of a vector of \(vector.count) (set output_empty_on_oob to send nothing instead)",
                node: cc.nodeName)
        }
        try cc.emit(vector[index], tag: "ITEM")
    }
}

/// `GetVectorItemCalculator` of `NormalizedLandmarkList`.
public final class GetNormalizedLandmarkListVectorItemCalculator: GetVectorItemCalculator<NormalizedLandmarkList> {}
/// `GetVectorItemCalculator` of `LandmarkList`.
public final class GetLandmarkListVectorItemCalculator: GetVectorItemCalculator<LandmarkList> {}
/// `GetVectorItemCalculator` of `ClassificationList`.
public final class GetClassificationListVectorItemCalculator: GetVectorItemCalculator<ClassificationList> {}
/// `GetVectorItemCalculator` of `NormalizedRect`.
public final class GetNormalizedRectVectorItemCalculator: GetVectorItemCalculator<NormalizedRect> {}
