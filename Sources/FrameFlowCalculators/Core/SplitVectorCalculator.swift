import FrameFlow

/// `mediapipe.SplitVectorCalculatorOptions`: the ranges to cut out and how to send them.
public struct SplitVectorCalculatorOptions: CalculatorOptions, Equatable {
    public static let typeName: String? = "mediapipe.SplitVectorCalculatorOptions"
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.splitVectorCalculatorOptions }

    /// A half-open range of element indexes, `begin..<end` (`mediapipe.Range`).
    public struct Range: Codable, Sendable, Equatable {
        public var begin = 0
        public var end = 0
        public init(begin: Int, end: Int) {
            self.begin = begin
            self.end = end
        }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            begin = try c.decodeIfPresent(Int.self, forKey: .begin) ?? 0
            end = try c.decodeIfPresent(Int.self, forKey: .end) ?? 0
        }
    }

    /// The ranges, one per output (or all into the one output with `combineOutputs`).
    public var ranges: [Range] = []
    /// Send one-element ranges as the element itself rather than a one-element list.
    public var elementOnly = false
    /// Send the ranges' elements, in range order, as one list on the only output.
    public var combineOutputs = false

    public init() {}
    public init(ranges: [Range], elementOnly: Bool = false, combineOutputs: Bool = false) {
        self.ranges = ranges
        self.elementOnly = elementOnly
        self.combineOutputs = combineOutputs
    }

    public func validate() throws {
        for (i, r) in ranges.enumerated() where r.begin < 0 || r.end <= r.begin {
            throw GraphError(
                .invalidOption,
                "ranges[\(i)] { begin: \(r.begin) end: \(r.end) }: indexes must be ≥ 0 and begin less than end")
        }
        if combineOutputs {
            try checkDisjoint(because: "combine_outputs")
        } else if elementOnly, let i = ranges.firstIndex(where: { $0.end - $0.begin != 1 }) {
            throw GraphError(
                .invalidOption,
                "ranges[\(i)] { begin: \(ranges[i].begin) end: \(ranges[i].end) }: element_only needs ranges of one element")
        }
    }

    /// Throws if two ranges share an index.
    func checkDisjoint(because reason: String) throws {
        for i in ranges.indices {
            for j in ranges.indices where j > i && ranges[i].begin < ranges[j].end && ranges[j].begin < ranges[i].end {
                throw GraphError(.invalidOption, "ranges[\(i)] and ranges[\(j)] overlap, which \(reason) does not allow")
            }
        }
    }
}

/// Cuts a list into the ranges its options name, as MediaPipe's `Split…VectorCalculator`s
/// (over vectors) and `Split…LandmarkListCalculator`s (over a landmark list's landmarks).
///
/// Inputs:
///   - (untagged) the list: `List` (`[Detection]`, `NormalizedLandmarkList`, …).
/// Outputs:
///   - (untagged, one per range, in order) each range as a `List`, or its only element with
///     `element_only`; with `combine_outputs` a single output with every range's elements.
/// Options: `mediapipe.SplitVectorCalculatorOptions` { ranges { begin end } (repeated),
/// element_only (false), combine_outputs (false) }. Ranges must be non-empty (0 ≤ begin < end;
/// indexes are only compared with the list's size), and must not
/// overlap with `combine_outputs`; a list shorter than the largest `end` is an error.
///
/// Example usage:
/// ```
/// node {
///   calculator: "SplitNormalizedLandmarkListCalculator"
///   input_stream: "face_landmarks"
///   output_stream: "left_eye_landmarks"
///   output_stream: "right_eye_landmarks"
///   options { [mediapipe.SplitVectorCalculatorOptions.ext] {
///     ranges: { begin: 33 end: 34 }
///     ranges: { begin: 263 end: 264 }
///   } }
/// }
/// ```
open class SplitVectorCalculator<List: ElementList & Sendable>: Calculator where List.Element: Sendable {
    public typealias Options = SplitVectorCalculatorOptions

    /// Any number of untagged outputs: their count is checked against the ranges in `open`.
    public static var contract: CalculatorContract { CalculatorContract(acceptsAnyPorts: true) }

    /// Whether ranges must not overlap even without `combine_outputs` (MediaPipe's rule for
    /// elements it moves rather than copies, such as tensors).
    open class var requiresDisjointRanges: Bool { false }

    public let options: Options
    /// The list has to hold at least this many elements.
    private let needed: Int

    public required init(options: Options) throws {
        if Self.requiresDisjointRanges { try options.checkDisjoint(because: "\(Self.name)") }
        self.options = options
        needed = options.ranges.map(\.end).max() ?? 0
    }

    open func open(_ cc: CalculatorContext) throws {
        guard cc.inputCount == 1 else {
            throw GraphError(.invalidPort, "takes one input stream, got \(cc.inputCount)", node: cc.nodeName)
        }
        let expected = options.combineOutputs ? 1 : options.ranges.count
        guard cc.outputCount == expected else {
            let why = options.combineOutputs ? "combine_outputs sends everything on one" : "one per range"
            throw GraphError(
                .invalidPort, "has \(cc.outputCount) output streams, expected \(expected) (\(why))", node: cc.nodeName)
        }
    }

    open func process(_ cc: CalculatorContext) throws {
        let packet = cc.input(at: 0)
        guard !packet.isEmpty else { return }
        let stream = cc.inputStreamName(atPosition: 0)
        let elements = try packet.get(List.self, stream: stream).elements
        guard elements.count >= needed else {
            throw GraphError(
                .calculatorFailed, "\(elements.count) elements at \(packet.timestamp), the ranges need \(needed)",
                node: cc.nodeName, stream: stream)
        }
        let ranges = options.ranges.map { $0.begin..<$0.end }
        if options.combineOutputs {
            let all = ranges.flatMap { elements[$0] }
            cc.emit(packet: Packet(List(elements: all), at: packet.timestamp), atPosition: 0)
            return
        }
        for (i, r) in ranges.enumerated() {
            let value: any Sendable = options.elementOnly ? elements[r.lowerBound] : List(elements: Array(elements[r]))
            cc.emit(packet: Packet(value, at: packet.timestamp), atPosition: i)
        }
    }
}

/// `SplitVectorCalculator` over `NormalizedLandmarkList` (its landmarks).
public final class SplitNormalizedLandmarkListCalculator: SplitVectorCalculator<NormalizedLandmarkList> {}
/// `SplitVectorCalculator` over `LandmarkList` (its landmarks).
public final class SplitLandmarkListCalculator: SplitVectorCalculator<LandmarkList> {}
/// `SplitVectorCalculator` over `[NormalizedLandmark]`.
public final class SplitLandmarkVectorCalculator: SplitVectorCalculator<[NormalizedLandmark]> {}
/// `SplitVectorCalculator` over `[NormalizedLandmarkList]`.
public final class SplitNormalizedLandmarkListVectorCalculator: SplitVectorCalculator<[NormalizedLandmarkList]> {}
/// `SplitVectorCalculator` over `[NormalizedRect]`.
public final class SplitNormalizedRectVectorCalculator: SplitVectorCalculator<[NormalizedRect]> {}
/// `SplitVectorCalculator` over `[Detection]`.
public final class SplitDetectionVectorCalculator: SplitVectorCalculator<[Detection]> {}
/// `SplitVectorCalculator` over `[ClassificationList]`.
public final class SplitClassificationListVectorCalculator: SplitVectorCalculator<[ClassificationList]> {}
/// `SplitVectorCalculator` over `[Float]`.
public final class SplitFloatVectorCalculator: SplitVectorCalculator<[Float]> {}
/// `SplitVectorCalculator` over `[UInt64]`.
public final class SplitUint64tVectorCalculator: SplitVectorCalculator<[UInt64]> {}
