import Foundation
import FrameFlow

/// Writes class labels as text `RenderData`, as MediaPipe's `LabelsToRenderDataCalculator`:
/// the first `max_num_labels` labels, one line each, from the top-left (or bottom-left)
/// corner of the frame.
///
/// Line `i`'s baseline is `vertical_offset_px + (i + 1) · line` pixels from the top, a line
/// being ⌈1.25 · font_height_px⌉; with `BOTTOM_LEFT` the last line's baseline sits at the
/// video's height (from `VIDEO_PRESTREAM`) plus the offset. (MediaPipe's own check rejects
/// `BOTTOM_LEFT` on every frame packet, so it never draws there; FrameFlow draws what the
/// option describes, and requires `VIDEO_PRESTREAM` for it when the graph starts.) Text starts at
/// `horizontal_offset_px`. Colours cycle through `color` (red when none); with `SCORES`, or
/// `display_classification_score` for classifications, the text is `label:score`.
///
/// Inputs:
///   - `CLASSIFICATIONS`: `ClassificationList`; or
///   - `LABELS`: `[String]`, with optional `SCORES`: `[Float]` (as many).
///   - `VIDEO_PRESTREAM` (optional): `VideoHeader` at `Timestamp.preStream`, for the frame
///     height `BOTTOM_LEFT` needs.
/// Outputs:
///   - `RENDER_DATA`: `RenderData`.
/// Options: `mediapipe.LabelsToRenderDataCalculatorOptions` { color (repeated { r g b }),
/// thickness (2, 0…1000), outline_color (repeated), outline_thickness (0, 0…1000),
/// font_height_px (50, 0…1000), horizontal_offset_px (0), vertical_offset_px (0) (each
/// −100000…100000), max_num_labels (1, 0…1000000), font_face (0),
/// location (TOP_LEFT | BOTTOM_LEFT), use_display_name (false),
/// display_classification_score (false) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "LabelsToRenderDataCalculator"
///   input_stream: "CLASSIFICATIONS:classifications"
///   output_stream: "RENDER_DATA:label_render_data"
///   options {
///     [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {
///       color { r: 255 g: 0 b: 0 }
///       font_height_px: 20
///       max_num_labels: 3
///     }
///   }
/// }
/// ```
public final class LabelsToRenderDataCalculator: Calculator {
    /// Where the labels go.
    public enum Location: String, Codable, Sendable {
        case topLeft = "TOP_LEFT"
        case bottomLeft = "BOTTOM_LEFT"
    }

    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.LabelsToRenderDataCalculatorOptions"
        /// Colours of the labels, cycled; red when empty.
        public var color: [RenderColor] = []
        public var thickness = 2.0
        /// Outline colours, cycled; black when empty.
        public var outlineColor: [RenderColor] = []
        /// Outline width; 0 draws none.
        public var outlineThickness = 0.0
        public var fontHeightPx = 50
        public var horizontalOffsetPx = 0
        public var verticalOffsetPx = 0
        public var maxNumLabels = 1
        public var fontFace = 0
        public var location = Location.topLeft
        /// Write classifications' `display_name` instead of their `label`.
        public var useDisplayName = false
        /// Append `:score` to classifications.
        public var displayClassificationScore = false
        public init() {}
    }

    /// The classifications to show (or `LABELS`).
    public static let classifications = InputPort<ClassificationList>("CLASSIFICATIONS", optional: true)
    /// The labels to show (or `CLASSIFICATIONS`).
    public static let labels = InputPort<[String]>("LABELS", optional: true)
    /// The scores of `LABELS`, one per label.
    public static let scores = InputPort<[Float]>("SCORES", optional: true)
    /// The video header, at pre-stream, for the frame height.
    public static let videoHeader = InputPort<VideoHeader>("VIDEO_PRESTREAM", optional: true)
    /// The text annotations.
    public static let renderData = OutputPort<RenderData>("RENDER_DATA")

    public static let contract = CalculatorContract(ports: [classifications, labels, scores, videoHeader, renderData])

    private var options: Options
    private var videoHeight = 0

    public init(options: Options) throws {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        guard cc.isConnected(Self.classifications) || cc.isConnected(Self.labels) else {
            throw GraphError(.invalidPort, "LabelsToRenderDataCalculator needs a CLASSIFICATIONS or LABELS input")
        }
        if options.location == .bottomLeft && !cc.isConnected(Self.videoHeader) {
            throw GraphError(.invalidOption, "location: BOTTOM_LEFT needs the VIDEO_PRESTREAM input for the frame height")
        }
    }

    public func process(_ cc: CalculatorContext) throws {
        if cc.has(Self.videoHeader) && cc.inputTimestamp == .preStream {
            videoHeight = try cc.get(Self.videoHeader).height
            return
        }
        var labels: [String] = []
        var scores: [Float] = []
        var withScores = false
        if cc.isConnected(Self.classifications) {
            guard let list = try cc.value(Self.classifications)?.classification else { return }
            labels = list.map { (options.useDisplayName ? $0.displayName : $0.label) ?? "" }
            scores = list.map { Float($0.score) }
            withScores = options.displayClassificationScore
        } else {
            guard let given = try cc.value(Self.labels) else { return }
            labels = given
            if cc.isConnected(Self.scores) {
                scores = try cc.value(Self.scores) ?? []
                guard scores.count == labels.count else {
                    throw GraphError(.calculatorFailed, "\(labels.count) LABELS but \(scores.count) SCORES")
                }
                withScores = true
            }
        }
        try cc.emit(renderData(labels: labels, scores: withScores ? scores : nil), to: Self.renderData)
    }

    /// The text annotations for `labels` (with `scores` appended when given).
    public func renderData(labels: [String], scores: [Float]?) -> RenderData {
        let lineHeight = Int(saturating: (Float(options.fontHeightPx) * 1.25).rounded(.up))
        let count = min(labels.count, options.maxNumLabels)
        var baseline = options.verticalOffsetPx
        switch options.location {
        case .topLeft: baseline += lineHeight
        case .bottomLeft: baseline += videoHeight - lineHeight * (count - 1)
        }
        var data = RenderData()
        for i in 0..<max(0, count) {
            var text = labels[i]
            if let scores { text += ":" + String(format: "%g", Double(scores[i])) }
            var style = RenderAnnotation.TextStyle(fontFace: options.fontFace)
            if options.outlineThickness > 0 {
                style.outlineThickness = options.outlineThickness
                style.outlineColor = options.outlineColor.isEmpty ? RenderColor() : options.outlineColor[i % options.outlineColor.count]
            }
            let color = options.color.isEmpty ? RenderColor(r: 255, g: 0, b: 0) : options.color[i % options.color.count]
            let shape = RenderAnnotation.Shape.text(
                text, left: Double(options.horizontalOffsetPx), baseline: Double(baseline + i * lineHeight),
                fontHeight: Double(options.fontHeightPx), normalized: false, style: style)
            data.renderAnnotations.append(RenderAnnotation(shape, thickness: options.thickness, color: color))
        }
        return data
    }
}

extension LabelsToRenderDataCalculator.Options {
    /// Checks the values (called by the graph before `init`).
    public func validate() throws {
        guard color.allSatisfy(\.isValid) else { throw GraphError(.invalidOption, "color: r, g and b must be 0…255") }
        guard outlineColor.allSatisfy(\.isValid) else { throw GraphError(.invalidOption, "outline_color: r, g and b must be 0…255") }
        try OptionCheck.range(thickness, 0...1000, "thickness")
        try OptionCheck.range(outlineThickness, 0...1000, "outline_thickness")
        try OptionCheck.range(fontHeightPx, 0...1000, "font_height_px")
        try OptionCheck.range(horizontalOffsetPx, -100_000...100_000, "horizontal_offset_px")
        try OptionCheck.range(verticalOffsetPx, -100_000...100_000, "vertical_offset_px")
        try OptionCheck.range(maxNumLabels, 0...1_000_000, "max_num_labels")
    }

    /// mediapipe/calculators/util/labels_to_render_data_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.labelsToRenderDataCalculatorOptions }
}
