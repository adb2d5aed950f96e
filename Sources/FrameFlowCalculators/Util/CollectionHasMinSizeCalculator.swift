import FrameFlow

/// `mediapipe.CollectionHasMinSizeCalculatorOptions`.
public struct CollectionHasMinSizeCalculatorOptions: CalculatorOptions, Equatable {
    public static let typeName: String? = "mediapipe.CollectionHasMinSizeCalculatorOptions"
    /// mediapipe/calculators/util/collection_has_min_size_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.collectionHasMinSizeCalculatorOptions }
    /// The fewest elements for which the output is `true` (at least 0).
    public var minSize = 0
    public init() {}
    public init(minSize: Int) { self.minSize = minSize }
    public func validate() throws {
        if minSize < 0 { throw GraphError(.invalidOption, "min_size must be at least 0, got \(minSize)") }
    }
}

/// Tells whether a vector has at least `min_size` elements, as MediaPipe's
/// `…VectorHasMinSizeCalculator`s (e.g. "were enough hands found to skip palm detection?").
///
/// Inputs:
///   - `ITERABLE`: `[Element]`.
/// Outputs:
///   - (untagged) `Bool`: `count >= min_size`, at the input timestamp.
/// Side packets:
///   - (untagged, optional) `Int`: the minimum, instead of the option's.
/// Options: `mediapipe.CollectionHasMinSizeCalculatorOptions` { min_size (0, ≥ 0; only compared) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "NormalizedRectVectorHasMinSizeCalculator"
///   input_stream: "ITERABLE:prev_hand_rects_from_landmarks"
///   input_side_packet: "num_hands"
///   output_stream: "prev_has_enough_hands"
/// }
/// ```
open class CollectionHasMinSizeCalculator<Element: Sendable>: Calculator {
    public typealias Options = CollectionHasMinSizeCalculatorOptions

    public static var contract: CalculatorContract {
        CalculatorContract(
            inputs: [.init("ITERABLE", [Element].self)], outputs: [.init("", Bool.self)],
            inputSidePackets: [.init("", Int.self, optional: true)])
    }

    public let options: Options
    /// The minimum in force: the side packet's, else the option's.
    private var minSize: Int

    public required init(options: Options) {
        self.options = options
        minSize = options.minSize
    }

    open func open(_ cc: CalculatorContext) throws {
        if let side = cc.sidePacket(), !side.isEmpty { minSize = try cc.sidePacket(as: Int.self) }
    }

    open func process(_ cc: CalculatorContext) throws {
        guard cc.hasInput("ITERABLE") else { return }
        try cc.emit(cc.input("ITERABLE", as: [Element].self).count >= minSize)
    }
}

/// `CollectionHasMinSizeCalculator` of `[NormalizedRect]`.
public final class NormalizedRectVectorHasMinSizeCalculator: CollectionHasMinSizeCalculator<NormalizedRect> {}
/// `CollectionHasMinSizeCalculator` of `[NormalizedLandmarkList]`.
public final class NormalizedLandmarkListVectorHasMinSizeCalculator: CollectionHasMinSizeCalculator<NormalizedLandmarkList> {}
/// `CollectionHasMinSizeCalculator` of `[ClassificationList]`.
public final class ClassificationListVectorHasMinSizeCalculator: CollectionHasMinSizeCalculator<ClassificationList> {}
