import FrameFlow

/// Smooths the visibility of landmarks over time, as MediaPipe's
/// `VisibilitySmoothingCalculator`; coordinates and presence pass unchanged.
///
/// With `low_pass_filter { alpha }` each landmark's visibility goes through its own
/// `LowPassFilter` (a landmark without visibility counts as 0, and every output landmark has
/// one). A timestamp without landmarks resets the filters and gives nothing; a list whose length
/// differs from the one the filters were made for is an error.
///
/// Inputs (exactly one):
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList`, or `LANDMARKS`: `LandmarkList`.
/// Outputs:
///   - `NORM_FILTERED_LANDMARKS` (with `NORM_LANDMARKS`) or `FILTERED_LANDMARKS` (with
///     `LANDMARKS`): the same type as the input.
/// Options: `mediapipe.VisibilitySmoothingCalculatorOptions` (extension 360207350) { exactly
/// one of `no_filter {}`, `low_pass_filter { alpha (0.1) }` }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "VisibilitySmoothingCalculator"
///   input_stream: "NORM_LANDMARKS:landmarks"
///   output_stream: "NORM_FILTERED_LANDMARKS:filtered_landmarks"
///   options {
///     [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } }
///   }
/// }
/// ```
public final class VisibilitySmoothingCalculator: Calculator {
    /// MediaPipe's `VisibilitySmoothingCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.VisibilitySmoothingCalculatorOptions"

        /// `NoFilter`: an empty message.
        public struct NoFilter: Codable, Sendable, Equatable {
            public init() {}
        }

        /// `LowPassFilter`: the weight of a new visibility.
        public struct LowPass: Codable, Sendable, Equatable {
            public var alpha: Float = 0.1
            public init(alpha: Float = 0.1) { self.alpha = alpha }
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                alpha = try c.decodeIfPresent(Float.self, forKey: .alpha) ?? 0.1
            }
            enum CodingKeys: String, CodingKey { case alpha }
        }

        public var noFilter: NoFilter?
        public var lowPassFilter: LowPass?
        public init() {}

        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.visibilitySmoothingCalculatorOptions }

        /// Exactly one filter; alpha in [0, 1].
        public func validate() throws {
            guard (noFilter != nil) != (lowPassFilter != nil) else {
                throw GraphError(.invalidOption, "exactly one of no_filter and low_pass_filter is needed")
            }
            if let a = lowPassFilter?.alpha, !(0...1).contains(a) {
                throw GraphError(.invalidOption, "low_pass_filter.alpha must be in [0, 1], not \(a)")
            }
        }
    }

    /// Normalized landmarks to smooth (or `LANDMARKS`).
    public static let normLandmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS", optional: true)
    /// Landmarks to smooth (or `NORM_LANDMARKS`).
    public static let landmarks = InputPort<LandmarkList>("LANDMARKS", optional: true)
    /// The smoothed normalized landmarks.
    public static let normFiltered = OutputPort<NormalizedLandmarkList>("NORM_FILTERED_LANDMARKS", optional: true)
    /// The smoothed landmarks.
    public static let filtered = OutputPort<LandmarkList>("FILTERED_LANDMARKS", optional: true)

    public static let contract = CalculatorContract(ports: [normLandmarks, landmarks, normFiltered, filtered])

    private let options: Options
    private var filters: [LowPassFilter] = []
    private var normalized = true

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let norm = cc.isConnected(Self.normLandmarks)
        guard norm != cc.isConnected(Self.landmarks) else {
            throw GraphError(.invalidPort, "exactly one of NORM_LANDMARKS and LANDMARKS is needed", node: cc.nodeName)
        }
        normalized = norm
        let output = norm ? Self.normFiltered.tag : Self.filtered.tag
        guard cc.hasOutputPort(output) else {
            throw GraphError(.invalidPort, "\(norm ? "NORM_LANDMARKS" : "LANDMARKS") needs the output \(output)", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        if normalized {
            guard var list = try cc.value(Self.normLandmarks) else {
                filters = []
                return
            }
            try smooth(&list.landmark, cc)
            try cc.emit(list, to: Self.normFiltered)
        } else {
            guard var list = try cc.value(Self.landmarks) else {
                filters = []
                return
            }
            try smooth(&list.landmark, cc)
            try cc.emit(list, to: Self.filtered)
        }
    }

    private func smooth<Space>(_ landmarks: inout [LandmarkPoint<Space>], _ cc: CalculatorContext) throws {
        guard let lowPass = options.lowPassFilter else { return }
        if filters.isEmpty {
            filters = Array(repeating: LowPassFilter(alpha: lowPass.alpha), count: landmarks.count)
        } else if filters.count != landmarks.count {
            throw GraphError(
                .calculatorFailed, "\(landmarks.count) landmarks where the filters were made for \(filters.count)", node: cc.nodeName,
                stream: cc.inputStreamName(normalized ? Self.normLandmarks.tag : Self.landmarks.tag))
        }
        for i in landmarks.indices {
            landmarks[i].visibility = Double(filters[i].apply(Float(landmarks[i].visibility ?? 0)))
        }
    }
}
