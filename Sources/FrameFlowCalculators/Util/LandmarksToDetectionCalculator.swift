import FrameFlow

/// Turns landmarks into a detection, as MediaPipe's `LandmarksToDetectionCalculator` does:
/// a `RELATIVE_BOUNDING_BOX` detection whose box bounds the landmarks (or the selected ones)
/// and whose relative keypoints are those landmarks' x and y, in order.
///
/// The box is found in single precision with MediaPipe's starting values: the minimum from
/// the largest float, the maximum from the smallest positive normal float
/// (`std::numeric_limits<float>::min()`), so landmarks all left of (or above) 0 give a box
/// that reaches to about 0. The detection has no labels or scores. An empty list is an error.
///
/// Inputs:
///   - `NORM_LANDMARKS`: `NormalizedLandmarkList`.
/// Outputs:
///   - `DETECTION`: `Detection`.
/// Options: `mediapipe.LandmarksToDetectionCalculatorOptions` (extension 260199669)
/// { selected_landmark_indices (repeated; empty: all landmarks) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LandmarksToDetectionCalculator"
///   input_stream: "NORM_LANDMARKS:landmarks"
///   output_stream: "DETECTION:detection"
///   options {
///     [mediapipe.LandmarksToDetectionCalculatorOptions.ext] {
///       selected_landmark_indices: [0, 1, 2, 5]
///     }
///   }
/// }
/// ```
public final class LandmarksToDetectionCalculator: OptionsStoringCalculator {
    /// MediaPipe's `LandmarksToDetectionCalculatorOptions`.
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LandmarksToDetectionCalculatorOptions"
        public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.landmarksToDetectionCalculatorOptions }

        /// The landmarks that make the detection, in this order; empty for all of them.
        public var selectedLandmarkIndices: [Int] = []
        public init() {}
        public init(selectedLandmarkIndices: [Int]) { self.selectedLandmarkIndices = selectedLandmarkIndices }

        /// Checks that no index is negative (too large ones are found per list).
        public func validate() throws {
            if let (i, v) = selectedLandmarkIndices.enumerated().first(where: { $0.element < 0 }) {
                throw GraphError(.invalidOption, "selected_landmark_indices[\(i)] is \(v), not an index")
            }
        }
    }

    /// The landmarks to box.
    public static let landmarks = InputPort<NormalizedLandmarkList>("NORM_LANDMARKS")
    /// The detection around them.
    public static let detection = OutputPort<Detection>("DETECTION")

    public static let contract = CalculatorContract(ports: [landmarks, detection])

    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let list = try cc.value(Self.landmarks) else { return }
        do {
            try cc.emit(try Self.detection(list, selecting: options.selectedLandmarkIndices), to: Self.detection)
        } catch var e as GraphError {
            e.stream = cc.inputStreamName(Self.landmarks.tag)
            throw e
        }
    }

    /// The detection of the landmarks of `list` at `indexes` (all of them when empty).
    /// - Throws: `GraphError(.calculatorFailed)` for an empty list or an index out of range.
    public static func detection(_ list: NormalizedLandmarkList, selecting indexes: [Int] = []) throws -> Detection {
        guard !list.landmark.isEmpty else { throw GraphError(.calculatorFailed, "the landmark list is empty") }
        var points = list.landmark
        if !indexes.isEmpty {
            if let (i, v) = indexes.enumerated().first(where: { !points.indices.contains($0.element) }) {
                throw GraphError(
                    .calculatorFailed, "selected_landmark_indices[\(i)] is \(v), out of range for \(points.count) landmarks")
            }
            points = indexes.map { points[$0] }
        }
        var xmin = Float.greatestFiniteMagnitude, xmax = Float.leastNormalMagnitude
        var ymin = Float.greatestFiniteMagnitude, ymax = Float.leastNormalMagnitude
        var keypoints: [LocationData.RelativeKeypoint] = []
        keypoints.reserveCapacity(points.count)
        for p in points {
            let x = Float(p.x), y = Float(p.y)
            xmin = min(xmin, x)
            xmax = max(xmax, x)
            ymin = min(ymin, y)
            ymax = max(ymax, y)
            keypoints.append(.init(x: Double(x), y: Double(y)))
        }
        let box = LocationData.RelativeBoundingBox(
            xmin: Double(xmin), ymin: Double(ymin), width: Double(xmax - xmin), height: Double(ymax - ymin))
        return Detection(scores: [], locationData: LocationData(format: .relativeBoundingBox, relativeBoundingBox: box, relativeKeypoints: keypoints))
    }
}
