import FrameFlow

/// Draws a camera's events picture for `AnnotationOverlayCalculator`: the settings' zones
/// (polygon outlines, red while an object is in them, else yellow, with the name), its lines
/// (cyan, with `name in N out M` from `LINE_COUNTS`) and each track's box (green while matched,
/// grey while lost) labelled `#id label`.
///
/// Zones, lines and boxes are drawn in pixels with `IMAGE_SIZE` (normalized points scaled to
/// the frame), else as written (normalized points then need relative boxes).
///
/// Inputs:
///   - `TRACKS`: `[TrackedObject]`.
///   - `ZONES`: `[ZonePresence]` (optional), for which zones are occupied.
///   - `LINE_COUNTS`: `[LineCount]` (optional); the latest holds until the next.
///   - `IMAGE_SIZE`: `ImageSize` (optional); the latest holds until the next.
/// Outputs:
///   - `RENDER_DATA`: `RenderData`.
/// Side packets: `EVENT_SETTINGS` (optional, text): replaces the options.
/// Options: `frameflow.EventSettings`: its `zone`s and `line`s.
///
/// Example usage:
/// ```
/// node {
///   calculator: "EventsToRenderDataCalculator"
///   input_stream: "TRACKS:tracks"
///   input_stream: "ZONES:zones"
///   input_stream: "LINE_COUNTS:line_counts"
///   input_stream: "IMAGE_SIZE:size"
///   output_stream: "RENDER_DATA:events_render_data"
///   options { [frameflow.EventSettings.ext] { line { name: "gate" point { x: 0.5 y: 0 } point { x: 0.5 y: 1 } } } }
/// }
/// ```
public final class EventsToRenderDataCalculator: Calculator {
    public typealias Options = EventSettings

    /// The tracks.
    public static let tracks = InputPort<[TrackedObject]>("TRACKS")
    /// Each track's zones.
    public static let zones = InputPort<[ZonePresence]>("ZONES", optional: true)
    /// The lines' totals.
    public static let lineCounts = InputPort<[LineCount]>("LINE_COUNTS", optional: true)
    /// The frame's size.
    public static let imageSize = InputPort<ImageSize>("IMAGE_SIZE", optional: true)
    /// What to draw.
    public static let renderData = OutputPort<RenderData>("RENDER_DATA")
    public static let contract = CalculatorContract(ports: [tracks, zones, lineCounts, imageSize, renderData, EventSettings.sidePacket])

    private var settings: EventSettings
    private var size: ImageSize?
    private var counts: [String: LineCount] = [:]

    public init(options: EventSettings) { settings = options }

    public func open(_ cc: CalculatorContext) throws { settings = try EventSettings.resolve(settings, cc) }

    public func process(_ cc: CalculatorContext) throws {
        if let s = try cc.value(Self.imageSize) { size = s }
        if let c = try cc.value(Self.lineCounts) { for l in c { counts[l.line] = l } }
        guard let tracks = try cc.value(Self.tracks) else { return }
        let occupied = Set((try cc.value(Self.zones) ?? []).flatMap(\.currentZones))
        let (w, h, scale) = EventSettings.scale(size)
        let fontHeight = size.map { Double($0.height) / 40 } ?? 0.025
        var annotations: [RenderAnnotation] = []
        func text(_ s: String, _ x: Double, _ y: Double, _ color: RenderColor) {
            annotations.append(
                RenderAnnotation(.text(s, left: x, baseline: y, fontHeight: fontHeight, normalized: !scale), thickness: 2, color: color))
        }
        for zone in settings.zone {
            let p = Polygon(zone.point, units: zone.units, width: w, height: h, scale: scale).points
            let color = occupied.contains(zone.name) ? RenderColor(r: 255, g: 64, b: 64) : RenderColor(r: 255, g: 220, b: 0)
            for i in p.indices {
                let q = p[(i + 1) % p.count]
                annotations.append(
                    RenderAnnotation(.line(xStart: p[i].x, yStart: p[i].y, xEnd: q.x, yEnd: q.y, normalized: !scale), thickness: 2, color: color))
            }
            text(zone.name, p[0].x, p[0].y, color)
        }
        let cyan = RenderColor(r: 0, g: 220, b: 255)
        for line in settings.line {
            let p = Polygon(line.point + [line.point[0]], units: line.units, width: w, height: h, scale: scale).points
            annotations.append(
                RenderAnnotation(.arrow(xStart: p[0].x, yStart: p[0].y, xEnd: p[1].x, yEnd: p[1].y, normalized: !scale), thickness: 3, color: cyan))
            let c = counts[line.name]
            text("\(line.name) in \(c?.inCount ?? 0) out \(c?.outCount ?? 0)", (p[0].x + p[1].x) / 2, (p[0].y + p[1].y) / 2, cyan)
        }
        for t in tracks {
            let b = t.box
            let color = t.state == .tracked ? RenderColor(r: 64, g: 255, b: 64) : RenderColor(r: 160, g: 160, b: 160)
            annotations.append(
                RenderAnnotation(.rectangle(left: b.x1, top: b.y1, right: b.x2, bottom: b.y2, normalized: !scale), thickness: 2, color: color))
            text("#\(t.id) \(t.label ?? "object")", b.x1, b.y1 - fontHeight / 3, color)
        }
        try cc.emit(RenderData(annotations, sceneClass: "EVENTS"), to: Self.renderData)
    }
}
