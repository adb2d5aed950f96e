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

    public static let contract = CalculatorContract(
        inputs: [
            PortSpec("NORM_LANDMARKS", NormalizedLandmarkList.self, optional: true),
            PortSpec("LANDMARKS", LandmarkList.self, optional: true),
        ],
        outputs: [
            PortSpec("NORM_FILTERED_LANDMARKS", NormalizedLandmarkList.self, optional: true),
            PortSpec("FILTERED_LANDMARKS", LandmarkList.self, optional: true),
        ])

    private let options: Options
    private var filters: [LowPassFilter] = []
    private var normalized = true

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let norm = cc.hasInputPort("NORM_LANDMARKS")
        guard norm != cc.hasInputPort("LANDMARKS") else {
            throw GraphError(.invalidPort, "exactly one of NORM_LANDMARKS and LANDMARKS is needed", node: cc.nodeName)
        }
        normalized = norm
        let output = norm ? "NORM_FILTERED_LANDMARKS" : "FILTERED_LANDMARKS"
        guard cc.hasOutputPort(output) else {
            throw GraphError(.invalidPort, "\(norm ? "NORM_LANDMARKS" : "LANDMARKS") needs the output \(output)", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        if normalized {
            guard cc.hasInput("NORM_LANDMARKS") else {
                filters = []
                return
            }
            var list = try cc.input("NORM_LANDMARKS", as: NormalizedLandmarkList.self)
            try smooth(&list.landmark, cc)
            try cc.emit(list, tag: "NORM_FILTERED_LANDMARKS")
        } else {
            guard cc.hasInput("LANDMARKS") else {
                filters = []
                return
            }
            var list = try cc.input("LANDMARKS", as: LandmarkList.self)
            try smooth(&list.landmark, cc)
            try cc.emit(list, tag: "FILTERED_LANDMARKS")
        }
    }

    private func smooth<Space>(_ landmarks: inout [LandmarkPoint<Space>], _ cc: CalculatorContext) throws {
        guard let lowPass = options.lowPassFilter else { return }
        if filters.isEmpty {
            filters = Array(repeating: LowPassFilter(alpha: lowPass.alpha), count: landmarks.count)
        } else if filters.count != landmarks.count {
            throw GraphError(
                .calculatorFailed, "\(landmarks.count) landmarks where the filters were made for \(filters.count)", node: cc.nodeName,
                stream: cc.inputStreamName(normalized ? "NORM_LANDMARKS" : "LANDMARKS"))
        }
        for i in landmarks.indices {
            landmarks[i].visibility = Double(filters[i].apply(Float(landmarks[i].visibility ?? 0)))
        }
    }
}
