import FrameFlow

/// Smooths landmarks over time, as MediaPipe's `LandmarksSmoothingCalculator`: every axis of
/// every landmark goes through its own filter.
///
/// Normalized landmarks are first taken to pixels (x·width, y·height, z·width), filtered, and
/// brought back. The filters see the packet timestamps (in nanoseconds) and a value scale of
/// 1 / object scale, the object scale being the mean of the width and height (in pixels) of
/// `OBJECT_SCALE_ROI` when it has a packet, else of the landmarks' bounding box; under
/// `min_allowed_object_scale` the landmarks pass unfiltered. Visibility and presence are kept.
/// A timestamp without landmarks resets the filters and gives nothing; a list whose length
/// differs from the one the filters were made for is an error.
///
/// Filters (exactly one, as MediaPipe's `filter_options` oneof):
///   - `no_filter {}`: landmarks pass unchanged;
///   - `velocity_filter { window_size (5, 0…1000: a window per landmark and axis),
///     velocity_scale (10, 0…1e6), min_allowed_object_scale (1e-6, 1e-9…1e9: its inverse
///     scales the values), disable_value_scaling (false) }`: `RelativeVelocityFilter`;
///   - `one_euro_filter { frequency (30), min_cutoff (1), derivate_cutoff (1) (each 1e-6…1e6),
///     beta (0, 0…1e6), min_allowed_object_scale (1e-6, 1e-9…1e9), disable_value_scaling
///     (false) }`: `OneEuroFilter`.
///
/// Inputs (exactly one of the landmark streams):
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList`, with `IMAGE_SIZE`: `ImageSize`.
///   - `LANDMARKS`: `LandmarkList` (no `IMAGE_SIZE`).
///   - `OBJECT_SCALE_ROI` (optional): `NormalizedRect` with `NORM_LANDMARKS`, `RotatedRect`
///     (pixels) with `LANDMARKS`.
/// Outputs:
///   - `NORM_FILTERED_LANDMARKS`: `NormalizedLandmarkList` (with `NORM_LANDMARKS`), or
///   - `FILTERED_LANDMARKS`: `LandmarkList` (with `LANDMARKS`).
/// Options: `mediapipe.LandmarksSmoothingCalculatorOptions` (extension 325671429), above.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarksSmoothingCalculator"
///   input_stream: "NORM_LANDMARKS:landmarks"
///   input_stream: "IMAGE_SIZE:image_size"
///   input_stream: "OBJECT_SCALE_ROI:roi"
///   output_stream: "NORM_FILTERED_LANDMARKS:filtered_landmarks"
///   options {
///     [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
///       one_euro_filter { min_cutoff: 0.05 beta: 80.0 derivate_cutoff: 1.0 }
///     }
///   }
/// }
/// ```
public final class LandmarksSmoothingCalculator: Calculator {
    /// MediaPipe's `LandmarksSmoothingCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LandmarksSmoothingCalculatorOptions"

        /// `NoFilter`: an empty message.
        public struct NoFilter: Codable, Sendable, Equatable {
            public init() {}
        }

        /// `VelocityFilter`, with MediaPipe's defaults.
        public struct VelocityFilter: Codable, Sendable, Equatable {
            public var windowSize = 5
            public var velocityScale: Float = 10
            public var minAllowedObjectScale: Float = 1e-6
            public var disableValueScaling = false
            public init() {}
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                windowSize = try c.decodeIfPresent(Int.self, forKey: .windowSize) ?? 5
                velocityScale = try c.decodeIfPresent(Float.self, forKey: .velocityScale) ?? 10
                minAllowedObjectScale = try c.decodeIfPresent(Float.self, forKey: .minAllowedObjectScale) ?? 1e-6
                disableValueScaling = try c.decodeIfPresent(Bool.self, forKey: .disableValueScaling) ?? false
            }
            enum CodingKeys: String, CodingKey { case windowSize, velocityScale, minAllowedObjectScale, disableValueScaling }
        }

        /// `OneEuroFilter`, with MediaPipe's defaults.
        public struct OneEuroFilter: Codable, Sendable, Equatable {
            public var frequency: Float = 30
            public var minCutoff: Float = 1
            public var beta: Float = 0
            public var derivateCutoff: Float = 1
            public var minAllowedObjectScale: Float = 1e-6
            public var disableValueScaling = false
            public init() {}
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                frequency = try c.decodeIfPresent(Float.self, forKey: .frequency) ?? 30
                minCutoff = try c.decodeIfPresent(Float.self, forKey: .minCutoff) ?? 1
                beta = try c.decodeIfPresent(Float.self, forKey: .beta) ?? 0
                derivateCutoff = try c.decodeIfPresent(Float.self, forKey: .derivateCutoff) ?? 1
                minAllowedObjectScale = try c.decodeIfPresent(Float.self, forKey: .minAllowedObjectScale) ?? 1e-6
                disableValueScaling = try c.decodeIfPresent(Bool.self, forKey: .disableValueScaling) ?? false
            }
            enum CodingKeys: String, CodingKey {
                case frequency, minCutoff, beta, derivateCutoff, minAllowedObjectScale, disableValueScaling
            }
        }

        public var noFilter: NoFilter?
        public var velocityFilter: VelocityFilter?
        public var oneEuroFilter: OneEuroFilter?
        public init() {}

        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.landmarksSmoothingCalculatorOptions }

        /// Exactly one filter, its values in the ranges above.
        public func validate() throws {
            let set = [noFilter != nil, velocityFilter != nil, oneEuroFilter != nil].filter { $0 }.count
            guard set == 1 else {
                throw GraphError(
                    .invalidOption, "exactly one of no_filter, velocity_filter and one_euro_filter is needed, not \(set)")
            }
            if let v = velocityFilter {
                try OptionCheck.range(v.windowSize, 0...1000, "velocity_filter.window_size")
                try OptionCheck.range(v.velocityScale, 0...1e6, "velocity_filter.velocity_scale")
                try OptionCheck.range(v.minAllowedObjectScale, 1e-9...1e9, "velocity_filter.min_allowed_object_scale")
            }
            if let e = oneEuroFilter {
                try OptionCheck.range(e.frequency, 1e-6...1e6, "one_euro_filter.frequency")
                try OptionCheck.range(e.minCutoff, 1e-6...1e6, "one_euro_filter.min_cutoff")
                try OptionCheck.range(e.beta, 0...1e6, "one_euro_filter.beta")
                try OptionCheck.range(e.derivateCutoff, 1e-6...1e6, "one_euro_filter.derivate_cutoff")
                try OptionCheck.range(e.minAllowedObjectScale, 1e-9...1e9, "one_euro_filter.min_allowed_object_scale")
            }
        }
    }

    public static let contract = CalculatorContract(
        inputs: [
            PortSpec("NORM_LANDMARKS", NormalizedLandmarkList.self, optional: true),
            PortSpec("LANDMARKS", LandmarkList.self, optional: true),
            PortSpec("IMAGE_SIZE", ImageSize.self, optional: true),
            PortSpec("OBJECT_SCALE_ROI", .any, optional: true),
        ],
        outputs: [
            PortSpec("NORM_FILTERED_LANDMARKS", NormalizedLandmarkList.self, optional: true),
            PortSpec("FILTERED_LANDMARKS", LandmarkList.self, optional: true),
        ])

    /// One filter per landmark and axis; empty until the first list (and after a reset).
    private enum Filters {
        case velocity([RelativeVelocityFilter])
        case oneEuro([OneEuroFilter])
        var count: Int {
            switch self {
            case .velocity(let f): return f.count / 3
            case .oneEuro(let f): return f.count / 3
            }
        }
    }

    private let options: Options
    private var filters: Filters?
    private var normalized = true

    public init(options: Options) {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        let norm = cc.hasInputPort("NORM_LANDMARKS"), abs = cc.hasInputPort("LANDMARKS")
        guard norm != abs else {
            throw GraphError(.invalidPort, "exactly one of NORM_LANDMARKS and LANDMARKS is needed", node: cc.nodeName)
        }
        normalized = norm
        let (output, other) = norm ? ("NORM_FILTERED_LANDMARKS", "FILTERED_LANDMARKS") : ("FILTERED_LANDMARKS", "NORM_FILTERED_LANDMARKS")
        guard cc.hasOutputPort(output), !cc.hasOutputPort(other) else {
            throw GraphError(.invalidPort, "\(norm ? "NORM_LANDMARKS" : "LANDMARKS") gives \(output) only", node: cc.nodeName)
        }
        guard cc.hasInputPort("IMAGE_SIZE") == norm else {
            throw GraphError(
                .invalidPort, norm ? "NORM_LANDMARKS needs IMAGE_SIZE" : "IMAGE_SIZE goes only with NORM_LANDMARKS", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        let tag = normalized ? "NORM_LANDMARKS" : "LANDMARKS"
        guard cc.hasInput(tag) else {
            filters = nil
            return
        }
        let nanoseconds = cc.inputTimestamp.microseconds &* 1000
        if normalized {
            guard cc.hasInput("IMAGE_SIZE") else {
                throw GraphError(
                    .calculatorFailed, "landmarks at \(cc.inputTimestamp) came without an IMAGE_SIZE packet", node: cc.nodeName,
                    stream: cc.inputStreamName("IMAGE_SIZE"))
            }
            let size = try cc.input("IMAGE_SIZE", as: ImageSize.self)
            var scale: Float?
            if cc.hasInput("OBJECT_SCALE_ROI") {
                let roi = try roiInput(cc, as: NormalizedRect.self)
                scale = (Float(roi.width) * Float(size.width) + Float(roi.height) * Float(size.height)) / 2
            }
            let list = try cc.input("NORM_LANDMARKS", as: NormalizedLandmarkList.self)
            let w = Float(size.width), h = Float(size.height)
            let pixels = list.landmark.map { p in
                [Float(p.x) * w, Float(p.y) * h, Float(p.z) * w]
            }
            let filtered = try filter(pixels, nanoseconds: nanoseconds, objectScale: scale, cc)
            var out = list
            for i in out.landmark.indices {
                out.landmark[i].x = Double(filtered[i][0] / w)
                out.landmark[i].y = Double(filtered[i][1] / h)
                out.landmark[i].z = Double(filtered[i][2] / w)
            }
            try cc.emit(out, tag: "NORM_FILTERED_LANDMARKS")
        } else {
            var scale: Float?
            if cc.hasInput("OBJECT_SCALE_ROI") {
                let roi = try roiInput(cc, as: RotatedRect.self)
                scale = Float(roi.width + roi.height) / 2
            }
            let list = try cc.input("LANDMARKS", as: LandmarkList.self)
            let values = list.landmark.map { [Float($0.x), Float($0.y), Float($0.z)] }
            let filtered = try filter(values, nanoseconds: nanoseconds, objectScale: scale, cc)
            var out = list
            for i in out.landmark.indices {
                out.landmark[i].x = Double(filtered[i][0])
                out.landmark[i].y = Double(filtered[i][1])
                out.landmark[i].z = Double(filtered[i][2])
            }
            try cc.emit(out, tag: "FILTERED_LANDMARKS")
        }
    }

    private func roiInput<T>(_ cc: CalculatorContext, as type: T.Type) throws -> T {
        guard let roi = cc.input("OBJECT_SCALE_ROI").payload as? T else {
            throw GraphError(
                .typeMismatch, "OBJECT_SCALE_ROI must carry \(T.self) with \(normalized ? "NORM_LANDMARKS" : "LANDMARKS")",
                node: cc.nodeName, stream: cc.inputStreamName("OBJECT_SCALE_ROI"))
        }
        return roi
    }

    /// Filters the (x, y, z) `points` as MediaPipe's landmarks filters do.
    private func filter(_ points: [[Float]], nanoseconds: Int64, objectScale: Float?, _ cc: CalculatorContext) throws -> [[Float]] {
        var valueScale: Float = 1
        let scaling: (min: Float, disabled: Bool)?
        if let v = options.velocityFilter {
            scaling = (v.minAllowedObjectScale, v.disableValueScaling)
        } else if let e = options.oneEuroFilter {
            scaling = (e.minAllowedObjectScale, e.disableValueScaling)
        } else {
            scaling = nil
        }
        guard let scaling else { return points }
        // The one-euro filters are made (and their count checked) before the scale is known,
        // the velocity filters only once the scale lets the landmarks through: MediaPipe's order.
        if options.oneEuroFilter != nil { try makeFilters(points.count, cc) }
        if !scaling.disabled {
            let scale: Float
            if let objectScale {
                scale = objectScale
            } else {
                guard !points.isEmpty else {
                    throw GraphError(
                        .calculatorFailed, "an empty landmark list has no object scale (give OBJECT_SCALE_ROI)", node: cc.nodeName,
                        stream: cc.inputStreamName(normalized ? "NORM_LANDMARKS" : "LANDMARKS"))
                }
                scale = Self.objectScale(points)
            }
            if scale < scaling.min { return points }
            valueScale = 1 / scale
        }
        if options.velocityFilter != nil { try makeFilters(points.count, cc) }
        var out = points
        switch filters {
        case .velocity(var f):
            filters = nil
            for i in points.indices {
                for a in 0..<3 {
                    out[i][a] = f[3 * i + a].apply(nanoseconds: nanoseconds, valueScale: valueScale, value: points[i][a])
                }
            }
            filters = .velocity(f)
        case .oneEuro(var f):
            filters = nil
            for i in points.indices {
                for a in 0..<3 {
                    out[i][a] = Float(
                        f[3 * i + a].apply(nanoseconds: nanoseconds, valueScale: Double(valueScale), value: Double(points[i][a])))
                }
            }
            filters = .oneEuro(f)
        case nil:
            break
        }
        return out
    }

    /// Makes the filters for `count` landmarks, or checks that the ones there are for as many.
    private func makeFilters(_ count: Int, _ cc: CalculatorContext) throws {
        // Filters made for an empty list count as none, as in MediaPipe.
        if let filters, filters.count != 0 {
            guard filters.count == count else {
                throw GraphError(
                    .calculatorFailed, "\(count) landmarks where the filters were made for \(filters.count)", node: cc.nodeName,
                    stream: cc.inputStreamName(normalized ? "NORM_LANDMARKS" : "LANDMARKS"))
            }
            return
        }
        if let v = options.velocityFilter {
            filters = .velocity(
                Array(repeating: RelativeVelocityFilter(windowSize: v.windowSize, velocityScale: v.velocityScale), count: 3 * count))
        } else if let e = options.oneEuroFilter {
            let filter = OneEuroFilter(
                frequency: Double(e.frequency), minCutoff: Double(e.minCutoff), beta: Double(e.beta),
                derivateCutoff: Double(e.derivateCutoff))
            filters = .oneEuro(Array(repeating: filter, count: 3 * count))
        }
    }

    /// MediaPipe's object scale of landmarks: the mean of their bounding box's width and height.
    public static func objectScale(_ points: [[Float]]) -> Float {
        guard let first = points.first else { return 0 }
        var (x0, x1, y0, y1) = (first[0], first[0], first[1], first[1])
        for p in points {
            x0 = min(x0, p[0])
            x1 = max(x1, p[0])
            y0 = min(y0, p[1])
            y1 = max(y1, p[1])
        }
        return ((x1 - x0) + (y1 - y0)) / 2
    }
}
