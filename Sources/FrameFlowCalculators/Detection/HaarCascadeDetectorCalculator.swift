import Foundation
import FrameFlow

/// Detects objects with an OpenCV Haar or LBP cascade (`detectMultiScale` semantics; see
/// `HaarCascadeDetector`). Colour images are converted to grey with BT.601 weights first.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8, nv12, i420).
/// Outputs:
///   - `DETECTIONS`: `[Detection]` in input-image pixels, score = the number of raw hits
///     grouped into the box (OpenCV's "neighbours"), label = `label`.
/// Options: `frameflow.HaarCascadeDetectorCalculatorOptions` { cascade_path, scale_factor (1.1,
/// 1.01…100: closer to 1 the pyramid keeps up to 1000 near-full-size levels in memory),
/// min_neighbors (3, 0…100000), min_size ([0, 0]), max_size ([0, 0] = image) (each 0…32768),
/// label ("face") }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "HaarCascadeDetectorCalculator"
///   input_stream: "IMAGE:throttled_video"
///   output_stream: "DETECTIONS:detections"
///   options { [frameflow.HaarCascadeDetectorCalculatorOptions.ext] {
///     cascade_path: "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt.xml"
///     scale_factor: 1.1 min_neighbors: 2 min_size: [30, 30] } }
/// }
/// ```
public final class HaarCascadeDetectorCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.HaarCascadeDetectorCalculatorOptions"
        public var cascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt.xml"
        public var scaleFactor = 1.1
        public var minNeighbors = 3
        public var minSize = [0, 0]
        public var maxSize = [0, 0]
        public var label = "face"
        public init() {}
    }

    /// The image to scan.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The objects found, as pixel boxes.
    public static let detections = OutputPort<[Detection]>("DETECTIONS")

    public static let contract = CalculatorContract(ports: [image, detections])

    private var options: Options
    private var detector: HaarCascadeDetector?
    private var environment = GraphEnvironment()

    public init(options: Options) throws {
        self.options = options
    }

    public func update(options: Options) throws {
        if options.cascadePath != self.options.cascadePath {
            detector = HaarCascadeDetector(cascade: try Self.load(options.cascadePath, environment))
        }
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        environment = cc.environment
        detector = HaarCascadeDetector(cascade: try Self.load(options.cascadePath, environment))
    }

    /// The cascade at `path`, found under the environment's resource roots.
    private static func load(_ path: String, _ environment: GraphEnvironment) throws -> CascadeClassifier {
        try CascadeClassifier(contentsOfFile: environment.resolve(path), limits: environment.limits)
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let detector else { return }
        let image = try cc.get(Self.image)
        let gray = try ColorConvertCalculator.convert(image, to: .gray8, matrix: .bt601, pool: cc.pool)
        let p = HaarCascadeDetector.Parameters(
            scaleFactor: options.scaleFactor, minNeighbors: options.minNeighbors,
            minSize: (options.minSize[0], options.minSize[1]), maxSize: (options.maxSize[0], options.maxSize[1]))
        let hits = try detector.detect(gray, parameters: p) { n, body in cc.parallelFor(n, grain: 1, body) }
        let label = options.label.isEmpty ? nil : options.label
        try cc.emit(
            hits.map {
                Detection(pixelBox: .init(xmin: $0.x, ymin: $0.y, width: $0.width, height: $0.height), score: Double($0.neighbors), label: label)
            }, to: Self.detections)
    }
}

extension HaarCascadeDetectorCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        try OptionCheck.range(scaleFactor, 1.01...100, "scale_factor")
        try OptionCheck.range(minNeighbors, 0...100_000, "min_neighbors")
        guard minSize.count == 2, maxSize.count == 2 else {
            throw GraphError(.invalidOption, "min_size and max_size are [width, height]")
        }
        try OptionCheck.range(minSize, 0...32768, "min_size")
        try OptionCheck.range(maxSize, 0...32768, "max_size")
    }
}
