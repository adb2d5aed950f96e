import FrameFlow

/// Builds one landmark list from several, as MediaPipe's `LandmarksRefinementCalculator`
/// does; the Face Mesh with attention merges its mesh, lips, eyes and irises into 478
/// landmarks with it.
///
/// The output has as many landmarks as the refinements' `indexes_mapping`s name together
/// (they must cover 0…n−1 without gaps), all starting at (0, 0, 0) without visibility or
/// presence. Input `i` is then applied with refinement `i`, in order: its landmark `j` sets the
/// x and y of output landmark `indexes_mapping[j]`, and z as its `z_refinement` says:
///   - `none {}`: the output keeps the z it has;
///   - `copy {}`: the input's z;
///   - `assign_average { indexes_for_average }`: the mean z of those output landmarks as they
///     are before this input's z is set (summed in double, stored as a float), for every
///     landmark this input maps.
/// Visibility and presence are not carried over. A timestamp where any input has no packet
/// gives nothing; an input whose length differs from its mapping's is an error.
///
/// Inputs:
///   - `LANDMARKS` (indexed, one per refinement): `NormalizedLandmarkList`.
/// Outputs:
///   - `REFINED_LANDMARKS`: `NormalizedLandmarkList`.
/// Options: `mediapipe.LandmarksRefinementCalculatorOptions` (extension 381914658)
/// { refinement (repeated) { indexes_mapping (repeated) z_refinement { exactly one of none {},
/// copy {}, assign_average { indexes_for_average (repeated) } } } }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarksRefinementCalculator"
///   input_stream: "LANDMARKS:0:mesh_landmarks"
///   input_stream: "LANDMARKS:1:iris_landmarks"
///   output_stream: "REFINED_LANDMARKS:refined_landmarks"
///   options {
///     [mediapipe.LandmarksRefinementCalculatorOptions.ext] {
///       refinement { indexes_mapping: [0, 1, 2] z_refinement { copy {} } }
///       refinement { indexes_mapping: [3, 1] z_refinement { assign_average { indexes_for_average: [0, 2] } } }
///     }
///   }
/// }
/// ```
public final class LandmarksRefinementCalculator: Calculator {
    /// An empty message: `ZRefinementNone` and `ZRefinementCopy`.
    public struct Empty: Codable, Sendable, Equatable {
        public init() {}
    }

    /// `ZRefinementAssignAverage`: the output landmarks whose mean z is assigned.
    public struct AssignAverage: Codable, Sendable, Equatable {
        public var indexesForAverage: [Int]
        public init(indexesForAverage: [Int] = []) { self.indexesForAverage = indexesForAverage }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            indexesForAverage = try c.decodeIndexes(forKey: .indexesForAverage)
        }
        enum CodingKeys: String, CodingKey { case indexesForAverage }
    }

    /// `ZRefinement`: MediaPipe's oneof, one of the three fields set.
    public struct ZRefinement: Codable, Sendable, Equatable {
        public var none: Empty?
        public var copy: Empty?
        public var assignAverage: AssignAverage?
        public init(none: Empty? = nil, copy: Empty? = nil, assignAverage: AssignAverage? = nil) {
            self.none = none
            self.copy = copy
            self.assignAverage = assignAverage
        }
        /// Keep the output's z.
        public static let keep = ZRefinement(none: Empty())
        /// Take the input's z.
        public static let copyZ = ZRefinement(copy: Empty())
        /// Assign the mean z of output landmarks `indexes`.
        public static func average(of indexes: [Int]) -> ZRefinement { ZRefinement(assignAverage: AssignAverage(indexesForAverage: indexes)) }
    }

    /// `Refinement`: where one input's landmarks go, and how their z is set.
    public struct Refinement: Codable, Sendable, Equatable {
        public var indexesMapping: [Int]
        public var zRefinement: ZRefinement?
        public init(indexesMapping: [Int], zRefinement: ZRefinement?) {
            self.indexesMapping = indexesMapping
            self.zRefinement = zRefinement
        }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            indexesMapping = try c.decodeIndexes(forKey: .indexesMapping)
            zRefinement = try c.decodeIfPresent(ZRefinement.self, forKey: .zRefinement)
        }
        enum CodingKeys: String, CodingKey { case indexesMapping, zRefinement }
    }

    /// MediaPipe's `LandmarksRefinementCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LandmarksRefinementCalculatorOptions"
        /// One per `LANDMARKS` input, applied in order.
        public var refinement: [Refinement] = []
        public init() {}
        public init(refinement: [Refinement]) { self.refinement = refinement }
    }

    /// The lists to merge, one per refinement.
    public static let landmarks = InputPort<NormalizedLandmarkList>("LANDMARKS", repeated: true)
    /// The refined list.
    public static let refined = OutputPort<NormalizedLandmarkList>("REFINED_LANDMARKS")

    public static let contract = CalculatorContract(ports: [landmarks, refined])

    private let options: Options
    private let count: Int
    private var indexes: [Int] = []

    public init(options: Options) throws {
        self.options = options
        count = try options.refinedCount()
    }

    public func open(_ cc: CalculatorContext) throws {
        indexes = cc.indexes(Self.landmarks)
        guard indexes.count == options.refinement.count else {
            throw GraphError(
                .invalidPort, "there are \(options.refinement.count) refinements but \(indexes.count) LANDMARKS inputs",
                node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard indexes.allSatisfy({ cc.has(Self.landmarks, $0) }) else { return }
        var lists: [NormalizedLandmarkList] = []
        for (k, i) in indexes.enumerated() {
            let list = try cc.get(Self.landmarks, i)
            let mapped = options.refinement[k].indexesMapping.count
            guard list.landmark.count == mapped else {
                throw GraphError(
                    .calculatorFailed, "\(list.landmark.count) landmarks but refinement[\(k)].indexes_mapping has \(mapped)",
                    node: cc.nodeName, stream: cc.inputStreamName(Self.landmarks.tag, i))
            }
            lists.append(list)
        }
        try cc.emit(try Self.refine(lists, with: options.refinement, count: count), to: Self.refined)
    }

    /// The refined list of `count` landmarks made from `lists`, input `i` applied with
    /// `refinements[i]` (options already validated).
    public static func refine(_ lists: [NormalizedLandmarkList], with refinements: [Refinement], count: Int) throws
        -> NormalizedLandmarkList
    {
        var out = [NormalizedLandmark](repeating: NormalizedLandmark(x: 0, y: 0, z: 0), count: count)
        for (k, (list, r)) in zip(lists, refinements).enumerated() {
            guard list.landmark.count == r.indexesMapping.count else {
                throw GraphError(
                    .calculatorFailed,
                    "LANDMARKS input \(k) has \(list.landmark.count) landmarks but its indexes_mapping has \(r.indexesMapping.count)")
            }
            for (p, j) in zip(list.landmark, r.indexesMapping) {
                out[j].x = Double(Float(p.x))
                out[j].y = Double(Float(p.y))
            }
            guard let z = r.zRefinement else { continue }
            if z.copy != nil {
                for (p, j) in zip(list.landmark, r.indexesMapping) { out[j].z = Double(Float(p.z)) }
            } else if let average = z.assignAverage {
                // MediaPipe sums the floats in double and stores the mean as a float.
                let sum = average.indexesForAverage.reduce(0.0) { $0 + Double(Float(out[$1].z)) }
                let mean = Double(Float(sum / Double(average.indexesForAverage.count)))
                for j in r.indexesMapping { out[j].z = mean }
            }
        }
        return NormalizedLandmarkList(out)
    }
}

extension KeyedDecodingContainer {
    /// A repeated int32 field: a list, or one number (a graph file's nested repeated field
    /// written once reads as a single value), or nothing.
    fileprivate func decodeIndexes(forKey key: Key) throws -> [Int] {
        if let one = try? decodeIfPresent(Int.self, forKey: key) { return [one] }
        return try decodeIfPresent([Int].self, forKey: key) ?? []
    }
}

extension LandmarksRefinementCalculator.Options {
    /// Checks every refinement (a mapping, exactly one z refinement, indexes for an average)
    /// and that the mappings together cover 0…n−1.
    public func validate() throws {
        _ = try refinedCount()
    }

    /// The largest landmark index a mapping may name (MediaPipe's meshes have 478).
    static let maxIndex = 1_000_000

    /// The number of landmarks the refinements make together.
    /// - Throws: `GraphError(.invalidOption)` naming the refinement and field at fault.
    func refinedCount() throws -> Int {
        var used = Set<Int>()
        for (i, r) in refinement.enumerated() {
            guard !r.indexesMapping.isEmpty else { throw GraphError(.invalidOption, "refinement[\(i)].indexes_mapping is empty") }
            if let v = r.indexesMapping.first(where: { !(0...Self.maxIndex).contains($0) }) {
                throw GraphError(.invalidOption, "refinement[\(i)].indexes_mapping has \(v), not an index from 0 to \(Self.maxIndex)")
            }
            guard let z = r.zRefinement else { throw GraphError(.invalidOption, "refinement[\(i)] has no z_refinement") }
            let set = [z.none != nil, z.copy != nil, z.assignAverage != nil].filter { $0 }.count
            guard set == 1 else {
                throw GraphError(
                    .invalidOption, "refinement[\(i)].z_refinement needs exactly one of none, copy and assign_average (\(set) given)")
            }
            if let a = z.assignAverage, a.indexesForAverage.isEmpty {
                throw GraphError(.invalidOption, "refinement[\(i)].z_refinement.assign_average.indexes_for_average is empty")
            }
            used.formUnion(r.indexesMapping)
        }
        guard let top = used.max() else { throw GraphError(.invalidOption, "refinement: at least one landmark must be mapped") }
        guard used.min() == 0, top == used.count - 1 else {
            throw GraphError(
                .invalidOption,
                "refinement: indexes_mapping must cover 0…\(top) without gaps (\(top + 1 - used.count) missing, lowest \(used.min() ?? 0))")
        }
        for (i, r) in refinement.enumerated() {
            if let v = r.zRefinement?.assignAverage?.indexesForAverage.first(where: { !(0..<used.count).contains($0) }) {
                throw GraphError(
                    .invalidOption, "refinement[\(i)].z_refinement.assign_average.indexes_for_average has \(v), not in 0…\(top)")
            }
        }
        return used.count
    }

    /// mediapipe/calculators/util/landmarks_refinement_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.landmarksRefinementCalculatorOptions }
}
