import FrameFlow

/// Turns detections' boxes between relative and pixel coordinates, as MediaPipe's
/// `DetectionTransformationCalculator`: a relative box becomes a pixel box (each of xmin, ymin,
/// width, height × the image's width or height, truncated toward zero and clamped to
/// [0, size]), a pixel box a relative one (÷ size, clamped to [0, 1]); keypoints stay as they
/// are. Which way each detection goes follows its own format; the outputs' prefix (`PIXEL_`
/// or `RELATIVE_`) only names the result, and all of one node's outputs share it.
///
/// Inputs: `DETECTIONS` ([Detection]) or `DETECTION` (Detection); `IMAGE_SIZE` (ImageSize).
/// Outputs: `PIXEL_DETECTIONS` / `RELATIVE_DETECTIONS` ([Detection]), or `PIXEL_DETECTION` /
///   `RELATIVE_DETECTION` (Detection) for a single input.
/// A list whose detections mix the two formats, or a detection with neither box, is an error
/// naming the node. An empty list gives an empty list.
///
/// Example usage:
/// ```
/// node {
///   calculator: "DetectionTransformationCalculator"
///   input_stream: "DETECTIONS:detections"
///   input_stream: "IMAGE_SIZE:image_size"
///   output_stream: "PIXEL_DETECTIONS:pixel_detections"
/// }
/// ```
public final class DetectionTransformationCalculator: Calculator {
    /// The detections, or (instead) one detection.
    public static let detections = InputPort<[Detection]>("DETECTIONS", optional: true)
    /// One detection.
    public static let detection = InputPort<Detection>("DETECTION", optional: true)
    /// The image the boxes are in.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE")
    /// The detections with pixel boxes.
    public static let pixelDetections = OutputPort<[Detection]>("PIXEL_DETECTIONS", optional: true)
    /// The detection with a pixel box.
    public static let pixelDetection = OutputPort<Detection>("PIXEL_DETECTION", optional: true)
    /// The detections with relative boxes.
    public static let relativeDetections = OutputPort<[Detection]>("RELATIVE_DETECTIONS", optional: true)
    /// The detection with a relative box.
    public static let relativeDetection = OutputPort<Detection>("RELATIVE_DETECTION", optional: true)

    public static let contract = CalculatorContract(ports: [
        detections, detection, imageSize, pixelDetections, pixelDetection, relativeDetections, relativeDetection,
    ])

    public init(options: NoOptions) {}

    public func open(_ cc: CalculatorContext) throws {
        guard cc.isConnected(Self.detections) != cc.isConnected(Self.detection) else {
            throw GraphError(.invalidPort, "connect exactly one of DETECTIONS and DETECTION", node: cc.nodeName)
        }
        let pixel = cc.isConnected(Self.pixelDetections) || cc.isConnected(Self.pixelDetection)
        let relative = cc.isConnected(Self.relativeDetections) || cc.isConnected(Self.relativeDetection)
        guard pixel != relative else {
            throw GraphError(
                .invalidPort, "connect outputs of one kind: PIXEL_DETECTION(S) or RELATIVE_DETECTION(S), not both or none",
                node: cc.nodeName)
        }
        if cc.isConnected(Self.detections), !cc.isConnected(Self.pixelDetections), !cc.isConnected(Self.relativeDetections) {
            throw GraphError(.invalidPort, "DETECTIONS needs a list output (PIXEL_DETECTIONS or RELATIVE_DETECTIONS)", node: cc.nodeName)
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        guard let size = try cc.value(Self.imageSize) else { return }
        if cc.isConnected(Self.detections) {
            guard let list = try cc.value(Self.detections) else { return }
            if let first = list.first, list.contains(where: { $0.locationData.format != first.locationData.format }) {
                throw GraphError(.calculatorFailed, "the detections mix relative and pixel boxes", node: cc.nodeName)
            }
            let out = try list.map { try Self.transform($0, size) }
            if cc.isConnected(Self.pixelDetections) { try cc.emit(out, to: Self.pixelDetections) }
            if cc.isConnected(Self.relativeDetections) { try cc.emit(out, to: Self.relativeDetections) }
        } else {
            guard let one = try cc.value(Self.detection) else { return }
            let out = try Self.transform(one, size)
            for port in [Self.pixelDetection, Self.relativeDetection] where cc.isConnected(port) { try cc.emit(out, to: port) }
        }
    }

    /// `d` with its box in the other coordinates.
    static func transform(_ d: Detection, _ size: ImageSize) throws -> Detection {
        var d = d
        let (w, h) = (size.width, size.height)
        switch d.locationData.format {
        case .relativeBoundingBox:
            guard let r = d.locationData.relativeBoundingBox else { throw missingBox() }
            // Truncated toward zero as C++'s float-to-int conversion does, then clamped.
            func pixels(_ v: Double, _ bound: Int) -> Int {
                let t = (v * Double(bound)).rounded(.towardZero)
                guard t.isFinite else { return t > 0 ? bound : 0 }
                return Swift.max(0, Swift.min(bound, t >= Double(Int32.max) ? bound : Int(t)))
            }
            d.locationData.boundingBox = .init(
                xmin: pixels(r.xmin, w), ymin: pixels(r.ymin, h), width: pixels(r.width, w), height: pixels(r.height, h))
            d.locationData.relativeBoundingBox = nil
            d.locationData.format = .boundingBox
        case .boundingBox:
            guard let b = d.locationData.boundingBox else { throw missingBox() }
            func relative(_ v: Int, _ bound: Int) -> Double { Swift.max(0, Swift.min(1, Double(v) / Double(Swift.max(bound, 1)))) }
            d.locationData.relativeBoundingBox = .init(
                xmin: relative(b.xmin, w), ymin: relative(b.ymin, h), width: relative(b.width, w), height: relative(b.height, h))
            d.locationData.boundingBox = nil
            d.locationData.format = .relativeBoundingBox
        default:
            throw GraphError(.calculatorFailed, "a detection's location must be a BOUNDING_BOX or RELATIVE_BOUNDING_BOX")
        }
        return d
    }

    private static func missingBox() -> GraphError {
        GraphError(.calculatorFailed, "a detection's location data lacks the box its format names")
    }
}
