import Foundation
import FrameFlow

/// Finds moving regions with `MotionDetector` (Frigate's cheap motion detection: small grey
/// working frame, blur, running-average background, threshold, dilation, 8-connected
/// components; lighting changes are not motion), so that a detector runs only when and where
/// something moves (`MotionGateCalculator`).
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (gray8, rgb8, rgba8, bgra8, nv12, i420; colour is made grey with
///     BT.601 weights, as OpenCV's `COLOR_BGR2GRAY`).
/// Outputs:
///   - `MOTION`: `[Detection]`, the motion boxes in frame pixels, labelled `label`, score =
///     the fraction of the box's working pixels that moved; empty on the first frame and on a
///     lighting change.
///   - `FLAG`: `Bool` (optional), whether there is any motion box.
/// Options: `frameflow.MotionDetectorCalculatorOptions` { frame_height (100 working rows,
/// 8…4096), blur_kernel_size (3; 1, 3 or 5), frame_alpha (0.02, 0.0001…1), threshold (30,
/// 1…254), dilation (2, 0…10), min_area (10 working pixels, 1…16777216), lightning_threshold
/// (0.8 of the working frame, 0.01…1), mask (repeated "x1,y1,x2,y2,x3,y3,…": a polygon in
/// normalised coordinates, at least 3 points, each 0…1, as Frigate's mask strings), label
/// ("motion") }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "MotionDetectorCalculator"
///   input_stream: "IMAGE:input_video"
///   output_stream: "MOTION:motion"
///   output_stream: "FLAG:has_motion"
///   options { [frameflow.MotionDetectorCalculatorOptions.ext] {
///     frame_height: 100 threshold: 30 mask: "0,0,0.3,0,0.3,0.1,0,0.1" } }
/// }
/// ```
public final class MotionDetectorCalculator: Calculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "frameflow.MotionDetectorCalculatorOptions"
        /// Rows of the working frame.
        public var frameHeight = 100
        /// Gaussian blur size: 1 (none), 3 or 5.
        public var blurKernelSize = 3
        /// Weight of each new frame in the background average.
        public var frameAlpha = 0.02
        /// Grey-level difference above which a working pixel moved.
        public var threshold = 30
        /// 3 × 3 dilations of the moving pixels.
        public var dilation = 2
        /// Smallest moving component, in working pixels.
        public var minArea = 10
        /// Changed fraction of the working frame above which it is a lighting change.
        public var lightningThreshold = 0.8
        /// Mask polygons, each "x1,y1,x2,y2,…" in normalised coordinates.
        public var mask: [String] = []
        /// The boxes' label.
        public var label = "motion"
        public init() {}

        /// The detector's parameters (the mask strings parsed).
        public func parameters() throws -> MotionDetector.Parameters {
            var p = MotionDetector.Parameters()
            p.frameHeight = frameHeight
            p.blurKernelSize = blurKernelSize
            p.frameAlpha = frameAlpha
            p.threshold = threshold
            p.dilation = dilation
            p.minArea = minArea
            p.lightningThreshold = lightningThreshold
            p.mask = try mask.enumerated().map { i, text in
                let numbers = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard numbers.count % 2 == 0, numbers.allSatisfy({ $0 != nil }) else {
                    throw GraphError(.invalidOption, "mask \(i) must be \"x1,y1,x2,y2,…\" (pairs of numbers), not \"\(text)\"")
                }
                return stride(from: 0, to: numbers.count, by: 2).map { Point(x: numbers[$0]!, y: numbers[$0 + 1]!) }
            }
            try p.validate()
            return p
        }

        /// Checks every value (called by the graph before `init` and `update(options:)`).
        public func validate() throws { _ = try parameters() }
    }

    /// The frames.
    public static let image = InputPort<ImageFrame>("IMAGE")
    /// The motion boxes, frame pixels.
    public static let motion = OutputPort<[Detection]>("MOTION")
    /// Whether any motion box was found.
    public static let flag = OutputPort<Bool>("FLAG", optional: true)

    public static let contract = CalculatorContract(ports: [image, motion, flag])

    private var options: Options
    private var detector: MotionDetector

    public init(options: Options) throws {
        self.options = options
        detector = try MotionDetector(options.parameters())
    }

    /// New settings start a new background.
    public func update(options: Options) throws {
        guard options != self.options else { return }
        detector = try MotionDetector(options.parameters())
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        let image = try cc.get(Self.image)
        let gray = try ColorConvertCalculator.convert(image, to: .gray8, matrix: .bt601, pool: cc.pool, context: cc)
        let result = try detector.detect(gray)
        let label = options.label.isEmpty ? nil : options.label
        // Whole pixels covering the scaled box.
        let boxes = zip(result.workingBoxes, result.boxes).map { box, r in
            let x0 = Int(saturating: r.x.rounded(.down)), y0 = Int(saturating: r.y.rounded(.down))
            let x1 = Int(saturating: (r.x + r.width).rounded(.up)), y1 = Int(saturating: (r.y + r.height).rounded(.up))
            return Detection(
                pixelBox: .init(xmin: x0, ymin: y0, width: x1 - x0, height: y1 - y0),
                score: Double(box.area) / Double(box.width * box.height), label: label)
        }
        try cc.emit(boxes, to: Self.motion)
        if cc.isConnected(Self.flag) { try cc.emit(!boxes.isEmpty, to: Self.flag) }
    }
}
