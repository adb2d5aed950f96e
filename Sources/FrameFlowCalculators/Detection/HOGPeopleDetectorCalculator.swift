import Foundation
import FrameFlow

/// Detects people with OpenCV's HOG people detector (`HOGDescriptor.detectMultiScale`
/// semantics; see `HOGDescriptor`), read from the file OpenCV's `HOGDescriptor::save` writes
/// (`scripts/setup.sh` writes OpenCV's default detector to `.build/fixtures/hog/hog_people_default.xml`).
/// Colour images are scanned in colour (the channel with the largest gradient, as OpenCV on
/// BGR); NV12 and I420 are converted to RGB (BT.601) first.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8, nv12, i420).
/// Outputs:
///   - `DETECTIONS`: `[Detection]` in input-image pixels, score = the SVM score of the group's
///     best window (OpenCV's found weight), label = `label`.
/// Options: `frameflow.HOGPeopleDetectorCalculatorOptions` { model_path
/// ("hog_people_default.xml", under the resource roots), hit_threshold (0, −100…100), scale
/// (1.05, 1…100), win_stride ([0, 0] = the block stride; 0…512), padding ([0, 0], 0…512),
/// group_threshold (2, 0…100000), min_size ([0, 0]), max_size ([0, 0] = no limit) (each
/// 0…32768), upscale (1, 1…8: the image is first scaled by it — bit-exact bilinear, as
/// `cv2.resize` INTER_LINEAR_EXACT — so that people smaller than the 64×128 window are found;
/// boxes come out in the input image's pixels), label ("person") }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "HOGPeopleDetectorCalculator"
///   input_stream: "IMAGE:throttled_video"
///   output_stream: "DETECTIONS:detections"
///   options { [frameflow.HOGPeopleDetectorCalculatorOptions.ext] {
///     model_path: ".build/fixtures/hog/hog_people_default.xml" scale: 1.05 group_threshold: 2 } }
/// }
/// ```
public final class HOGPeopleDetectorCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.HOGPeopleDetectorCalculatorOptions"
        public var modelPath = "hog_people_default.xml"
        public var hitThreshold = 0.0
        public var scale = 1.05
        public var winStride = [0, 0]
        public var padding = [0, 0]
        public var groupThreshold = 2
        public var minSize = [0, 0]
        public var maxSize = [0, 0]
        public var upscale = 1.0
        public var label = "person"
        public init() {}
    }

    /// The image to scan.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The people found, as pixel boxes.
    public static let detections = OutputPort<[Detection]>("DETECTIONS")

    public static let contract = CalculatorContract(ports: [image, detections])

    private var options: Options
    private var descriptor: HOGDescriptor?
    private var environment = GraphEnvironment()

    public init(options: Options) throws {
        self.options = options
    }

    public func update(options: Options) throws {
        if options.modelPath != self.options.modelPath { descriptor = try Self.load(options.modelPath, environment) }
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        environment = cc.environment
        descriptor = try Self.load(options.modelPath, environment)
    }

    /// The descriptor at `path`, found under the environment's resource roots.
    private static func load(_ path: String, _ environment: GraphEnvironment) throws -> HOGDescriptor {
        let resolved = environment.resolve(path)
        guard FileManager.default.fileExists(atPath: resolved) else {
            throw GraphError(
                .invalidOption,
                "model_path '\(path)' not found\(environment.placesSearched(for: path)); scripts/setup.sh writes OpenCV's "
                    + "default people detector to .build/fixtures/hog/hog_people_default.xml")
        }
        return try HOGDescriptor(contentsOfFile: resolved, limits: environment.limits)
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let descriptor else { return }
        var image = try cc.get(Self.image)
        if image.format.yuvRange != nil {
            image = try ColorConvertCalculator.convert(image, to: .rgb8, matrix: .bt601, pool: cc.pool)
        }
        let p = HOGDescriptor.Parameters(
            hitThreshold: options.hitThreshold, windowStride: .init(options.winStride[0], options.winStride[1]),
            padding: .init(options.padding[0], options.padding[1]), scale: options.scale, groupThreshold: options.groupThreshold,
            minSize: .init(options.minSize[0], options.minSize[1]), maxSize: .init(options.maxSize[0], options.maxSize[1]),
            upscale: options.upscale)
        let hits = try descriptor.detectMultiScale(image, parameters: p) { n, body in cc.parallelFor(n, grain: 1, body) }
        let label = options.label.isEmpty ? nil : options.label
        try cc.emit(
            hits.map { Detection(pixelBox: .init(xmin: $0.x, ymin: $0.y, width: $0.width, height: $0.height), score: $0.weight, label: label) },
            to: Self.detections)
    }
}

extension HOGPeopleDetectorCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard !modelPath.isEmpty else { throw GraphError(.invalidOption, "model_path is empty") }
        try OptionCheck.range(hitThreshold, -100...100, "hit_threshold")
        try OptionCheck.range(scale, 1...100, "scale")
        try OptionCheck.range(upscale, 1...8, "upscale")
        try OptionCheck.range(groupThreshold, 0...100_000, "group_threshold")
        for (name, v) in [("win_stride", winStride), ("padding", padding), ("min_size", minSize), ("max_size", maxSize)] {
            guard v.count == 2 else { throw GraphError(.invalidOption, "\(name) is [width, height], not \(v.count) values") }
        }
        try OptionCheck.range(winStride, 0...512, "win_stride")
        guard (winStride[0] == 0) == (winStride[1] == 0) else {
            throw GraphError(.invalidOption, "win_stride must be both positive, or [0, 0] for the block stride, not \(winStride)")
        }
        try OptionCheck.range(padding, 0...512, "padding")
        try OptionCheck.range(minSize, 0...32768, "min_size")
        try OptionCheck.range(maxSize, 0...32768, "max_size")
    }
}
