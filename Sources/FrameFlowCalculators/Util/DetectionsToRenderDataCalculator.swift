import Foundation
import FrameFlow

/// Turns detections into `RenderData` for `AnnotationOverlayCalculator`, as MediaPipe's
/// `DetectionsToRenderDataCalculator`: per detection, its label text, a (here always empty)
/// feature-tag text, its box, and a point per keypoint.
///
/// Per detection, in this order:
///   - one text annotation per line of labels (scene tag "LABEL"): `label,score,` for each
///     label (the label id when there are no names; scores rounded to two decimals), all
///     labels on one line unless `one_label_per_line`, after an `Id: n` line when
///     `render_detection_id`. A relative box puts the text in fractions of the image,
///     starting at the box's left edge, line `i` with its baseline `i + 1` line heights
///     below the box's top, a line height being the box height × min(0.1, 1 / (labels + 1))
///     and the font 0.9 of that; a pixel box uses `text.font_height` pixels as line height.
///   - a text for MediaPipe's `feature_tag` (scene tag "FEATURE"): FrameFlow's `Detection`
///     has none, so its text is empty, as MediaPipe's is for a detection without a tag; it is
///     kept so annotation indexes match MediaPipe's.
///   - the box as a rectangle (scene tag "LOCATION"): normalized and clamped to the image
///     for relative boxes, in pixels otherwise; a relative box entirely outside the image
///     leaves the rectangle at its defaults (all 0), as MediaPipe's does.
///   - for relative boxes, one normalized point per keypoint (scene tag "KEYPOINT").
/// Every annotation gets the options' `color` and `thickness`.
///
/// Inputs (at least one):
///   - `DETECTION`: `Detection`.
///   - `DETECTIONS`: `[Detection]`.
/// Outputs:
///   - `RENDER_DATA`: `RenderData` with `scene_class`; none for a timestamp without
///     detections when `produce_empty_packet` is false.
/// Options: `mediapipe.DetectionsToRenderDataCalculatorOptions` { produce_empty_packet (true),
/// text_delimiter (","), one_label_per_line (false), text { font_height (8, 0…1000) font_face
/// center_horizontally center_vertically outline_thickness (0…1000) outline_color }, thickness
/// (1, 0…1000, as `AnnotationOverlayCalculator`'s),
/// color { r g b } (black), scene_class ("DETECTION"), render_detection_id (false) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "DetectionsToRenderDataCalculator"
///   input_stream: "DETECTIONS:detections"
///   output_stream: "RENDER_DATA:render_data"
///   options {
///     [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
///       thickness: 4.0
///       color { r: 255 g: 0 b: 0 }
///     }
///   }
/// }
/// ```
public final class DetectionsToRenderDataCalculator: OptionsStoringCalculator {
    /// The label settings: MediaPipe's `RenderAnnotation.Text` as options (positions and the
    /// text itself are the calculator's to set).
    public struct LabelText: Codable, Sendable, Equatable {
        public var displayText = ""
        public var left = 0.0
        public var baseline = 0.0
        /// Line height in pixels for pixel boxes (relative boxes derive it from the box).
        public var fontHeight = 8.0
        public var normalized = false
        public var fontFace = 0
        public var centerHorizontally = false
        public var centerVertically = false
        public var outlineThickness = 0.0
        public var outlineColor: RenderColor?
        public init() {}

        /// The text's style part.
        var style: RenderAnnotation.TextStyle {
            RenderAnnotation.TextStyle(
                fontFace: fontFace, centerHorizontally: centerHorizontally, centerVertically: centerVertically,
                outlineThickness: outlineThickness, outlineColor: outlineColor)
        }
    }

    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.DetectionsToRenderDataCalculatorOptions"
        /// Emit a `RenderData` without annotations when there are no detections.
        public var produceEmptyPacket = true
        /// Written after each label and after each score.
        public var textDelimiter = ","
        /// One text annotation per label instead of one for all.
        public var oneLabelPerLine = false
        public var text = LabelText()
        public var thickness = 1.0
        public var color = RenderColor()
        public var sceneClass = "DETECTION"
        /// Adds an `Id: n` line before the labels.
        public var renderDetectionId = false
        public init() {}
    }

    /// One detection to draw.
    public static let detection = InputPort<Detection>("DETECTION", optional: true)
    /// Detections to draw.
    public static let detections = InputPort<[Detection]>("DETECTIONS", optional: true)
    /// The annotations.
    public static let renderData = OutputPort<RenderData>("RENDER_DATA")

    public static let contract = CalculatorContract(ports: [detection, detections, renderData])

    public var options: Options

    public init(options: Options) throws {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        guard cc.isConnected(Self.detection) || cc.isConnected(Self.detections) else {
            throw GraphError(.invalidPort, "DetectionsToRenderDataCalculator needs a DETECTION or DETECTIONS input")
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        var detections = try cc.value(Self.detections) ?? []
        if let detection = try cc.value(Self.detection) { detections.append(detection) }
        if detections.isEmpty && !options.produceEmptyPacket { return }
        var data = RenderData(sceneClass: options.sceneClass)
        for d in detections { data.renderAnnotations += try Self.annotations(for: d, options: options) }
        try cc.emit(data, to: Self.renderData)
    }

    /// The annotations of one detection, in MediaPipe's order (labels, feature tag, box,
    /// keypoints).
    public static func annotations(for d: Detection, options: Options) throws -> [RenderAnnotation] {
        let location = d.locationData
        guard location.format == .boundingBox || location.format == .relativeBoundingBox else {
            throw GraphError(
                .calculatorFailed,
                "DetectionsToRenderDataCalculator takes BOUNDING_BOX or RELATIVE_BOUNDING_BOX detections, not \(location.format)")
        }
        guard d.labels.isEmpty || d.labelIDs.isEmpty || d.labels.count == d.labelIDs.count else {
            throw GraphError(.calculatorFailed, "a detection has \(d.labels.count) labels but \(d.labelIDs.count) label ids")
        }
        let labelCount = max(d.labels.count, d.labelIDs.count)
        guard d.scores.count == labelCount else {
            throw GraphError(.calculatorFailed, "a detection has \(d.scores.count) scores for \(labelCount) labels")
        }
        let relative = location.format == .relativeBoundingBox
        // The box in its own units; MediaPipe keeps pixel boxes as integers.
        let (xmin, ymin, width, height): (Double, Double, Double, Double)
        if relative {
            let b = location.relativeBoundingBox ?? .init(xmin: 0, ymin: 0, width: 0, height: 0)
            (xmin, ymin, width, height) = (b.xmin, b.ymin, b.width, b.height)
        } else {
            let b = location.boundingBox ?? .init(xmin: 0, ymin: 0, width: 0, height: 0)
            (xmin, ymin, width, height) = (Double(b.xmin), Double(b.ymin), Double(b.width), Double(b.height))
        }
        // MediaPipe hands the line height on as a float: keep its rounding.
        let lineHeight =
            relative ? Float(height * min(0.1, 1 / Double(labelCount + 1))) : Float(options.text.fontHeight)

        func annotation(_ shape: RenderAnnotation.Shape, tag: String) -> RenderAnnotation {
            RenderAnnotation(shape, thickness: options.thickness, color: options.color, sceneTag: tag)
        }
        // Normalized text stays inside the image on the left and bottom.
        func text(_ s: String, baseline: Double, style: RenderAnnotation.TextStyle, fontHeight: Double) -> RenderAnnotation {
            let shape = RenderAnnotation.Shape.text(
                s, left: relative ? max(xmin, 0) : xmin, baseline: relative ? min(baseline, 1) : baseline,
                fontHeight: relative ? Double(lineHeight) * 0.9 : fontHeight, normalized: relative, style: style)
            return annotation(shape, tag: "LABEL")
        }

        var out: [RenderAnnotation] = []
        let delimiter = options.textDelimiter
        let pieces = (0..<labelCount).map { i in
            let name = d.labels.isEmpty ? String(d.labelIDs[i]) : d.labels[i]
            return name + delimiter + Self.formatScore(d.scores[i]) + delimiter
        }
        var lines: [String] = []
        if options.renderDetectionId { lines.append("Id: \(d.detectionID ?? 0)") }
        if options.oneLabelPerLine { lines += pieces } else { lines.append(pieces.joined()) }
        for (i, line) in lines.enumerated() {
            // As MediaPipe's arithmetic: float steps, added to a double relative top or (as
            // a float) to an integer pixel top.
            let step = Float(i + 1) * lineHeight
            let baseline = relative ? ymin + Double(step) : Double(Float(ymin) + step)
            out.append(text(line, baseline: baseline, style: options.text.style, fontHeight: options.text.fontHeight))
        }
        // The feature tag: a plain text (not the label style) at the box's bottom.
        var feature = text("", baseline: ymin + height, style: .init(), fontHeight: 8)
        feature.sceneTag = "FEATURE"
        out.append(feature)

        out.append(annotation(Self.rectangle(relative: relative, xmin: xmin, ymin: ymin, width: width, height: height), tag: "LOCATION"))
        if relative {
            for k in location.relativeKeypoints {
                out.append(annotation(.point(x: k.x, y: k.y, normalized: true), tag: "KEYPOINT"))
            }
        }
        return out
    }

    /// The box's rectangle: clamped to the image when normalized; left at the proto's
    /// defaults (all 0, not normalized) when the box lies wholly before the image, or for a
    /// normalized box, wholly after it.
    static func rectangle(relative: Bool, xmin: Double, ymin: Double, width: Double, height: Double) -> RenderAnnotation.Shape {
        let outside = xmin + width < 0 || ymin + height < 0 || (relative && (xmin > 1 || ymin > 1))
        if outside { return .rectangle(left: 0, top: 0, right: 0, bottom: 0, normalized: false) }
        if !relative { return .rectangle(left: xmin, top: ymin, right: xmin + width, bottom: ymin + height, normalized: false) }
        return .rectangle(
            left: max(xmin, 0), top: max(ymin, 0), right: min(xmin + width, 1), bottom: min(ymin + height, 1), normalized: true)
    }

    /// A score as MediaPipe prints it: rounded to hundredths as a float, then written with
    /// up to six significant digits and no trailing zeros ("0.3", "0.87", "1").
    public static func formatScore(_ score: Double) -> String {
        let rounded = (Float(score) * 100).rounded() / 100
        return String(format: "%g", Double(rounded))
    }
}

extension DetectionsToRenderDataCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard color.isValid else { throw GraphError(.invalidOption, "color: r, g and b must be 0…255") }
        try OptionCheck.range(thickness, 0...1000, "thickness")
        try OptionCheck.range(text.fontHeight, 0...1000, "text.font_height")
        try OptionCheck.range(text.outlineThickness, 0...1000, "text.outline_thickness")
        if let c = text.outlineColor, !c.isValid { throw GraphError(.invalidOption, "text.outline_color: r, g and b must be 0…255") }
    }

    /// mediapipe/calculators/util/detections_to_render_data_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.detectionsToRenderDataCalculatorOptions }
}
