import FrameFlow

/// Drops detections a camera should not track (Frigate's object filters and masks): labels
/// not in `track`, boxes outside their label's filter (area in pixels, score, width ÷ height),
/// and detections whose bottom centre lies in a mask. The rest pass in order, unchanged.
///
/// A detection's filter is the one whose `label` is its label, else the one with an empty
/// label, else none. Relative boxes are measured in pixels with `IMAGE_SIZE` (without it, areas
/// are in the box's units and normalized masks apply to relative boxes as they are; pixel boxes
/// with normalized masks need `IMAGE_SIZE`).
///
/// Inputs:
///   - `DETECTIONS`: `[Detection]`.
///   - `IMAGE_SIZE`: `ImageSize` (optional), the frame's size; the latest holds until the next.
/// Outputs:
///   - `DETECTIONS`: `[Detection]`, those that passed.
/// Side packets: `EVENT_SETTINGS` (optional, text): replaces the options.
/// Options: `frameflow.EventSettings` (see `EventSettings`): `filter`, `mask`, `track`; zones and
/// lines are ignored here.
///
/// Example usage:
/// ```
/// node {
///   calculator: "ObjectFilterCalculator"
///   input_stream: "DETECTIONS:detections"
///   input_stream: "IMAGE_SIZE:size"
///   output_stream: "DETECTIONS:filtered"
///   options { [frameflow.EventSettings.ext] {
///     filter { label: "person" min_area: 2000 min_score: 0.3 max_ratio: 1.2 }
///     mask { point { x: 0 y: 0 } point { x: 1 y: 0 } point { x: 1 y: 0.1 } }
///   } }
/// }
/// ```
public final class ObjectFilterCalculator: Calculator {
    public typealias Options = EventSettings

    /// The detections.
    public static let detectionsIn = InputPort<[Detection]>("DETECTIONS")
    /// The frame's size.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// The detections kept.
    public static let detectionsOut = OutputPort<[Detection]>("DETECTIONS")
    public static let contract = CalculatorContract(ports: [detectionsIn, imageSize, detectionsOut, EventSettings.sidePacket])

    private var settings: EventSettings
    private var size: ImageSize?

    public init(options: EventSettings) { settings = options }

    public func open(_ cc: CalculatorContext) throws { settings = try EventSettings.resolve(settings, cc) }

    public func process(_ cc: CalculatorContext) throws {
        if let s = try cc.value(Self.imageSize) { size = s }
        guard let detections = try cc.value(Self.detectionsIn) else { return }
        let stream = cc.inputStreamName(Self.detectionsIn.tag) ?? Self.detectionsIn.tag
        let kept = try detections.filter { try keeps($0, stream: stream) }
        try cc.emit(kept, to: Self.detectionsOut)
    }

    /// Whether `d` passes the label list, its filter and the masks.
    func keeps(_ d: Detection, stream: String?) throws -> Bool {
        let label = d.label ?? ""
        if !settings.track.isEmpty && !settings.track.contains(label) { return false }
        var b = d.box
        if d.isRelative, let size { b = d.box(inImageOfWidth: size.width, height: size.height) }
        let filter = settings.filter.first { $0.label == label } ?? settings.filter.first { $0.label.isEmpty }
        if let f = filter {
            let area = b.width * b.height
            let ratio = b.height > 0 ? b.width / b.height : .infinity
            guard area >= f.minArea, area <= f.maxArea, d.score >= f.minScore, ratio >= f.minRatio, ratio <= f.maxRatio else {
                return false
            }
        }
        if !d.isRelative && size == nil && settings.mask.contains(where: { $0.units == "normalized" }) {
            throw GraphError(.calculatorFailed, "a normalized mask needs IMAGE_SIZE for pixel boxes; connect IMAGE_SIZE", stream: stream)
        }
        let (w, h, scale) = EventSettings.scale(d.isRelative && size == nil ? nil : size)
        let px = b.x + b.width / 2, py = b.y + b.height
        for m in settings.mask where Polygon(m.point, units: m.units, width: w, height: h, scale: scale).contains(x: px, y: py) {
            return false
        }
        return true
    }
}
