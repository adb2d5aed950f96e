import FrameFlow

/// Turns rectangles into `RenderData`, as MediaPipe's `RectToRenderDataCalculator`: one
/// rectangle (or oval) annotation per input rectangle, rotation kept, so the overlay draws
/// rotated rects as lines between their rotated corners.
///
/// Each rect by its centre becomes left/top/right/bottom (`x_center - width / 2`, …, in
/// single precision as MediaPipe computes it), normalized for `NORM_RECT(S)`. An unrotated
/// rect wholly before the image (or, normalized, wholly after it) leaves the annotation's
/// box at its defaults (all 0), as MediaPipe's does.
///
/// Inputs (exactly one):
///   - `NORM_RECT`: `NormalizedRect`.
///   - `RECT`: `RotatedRect` (MediaPipe's `Rect`, pixels).
///   - `NORM_RECTS`: `[NormalizedRect]`.
///   - `RECTS`: `[RotatedRect]`.
/// Outputs:
///   - `RENDER_DATA`: `RenderData`, one packet per input timestamp (empty when the input is).
/// Options: `mediapipe.RectToRenderDataCalculatorOptions` { filled (false), color { r g b }
/// (black), thickness (1, 0…1000), oval (false), top_left_thickness (unset: a dot of that
/// radius on the top-left corner, 0…1000; only for unfilled rectangles) }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "RectToRenderDataCalculator"
///   input_stream: "NORM_RECT:face_rect"
///   output_stream: "RENDER_DATA:rect_render_data"
///   options {
///     [mediapipe.RectToRenderDataCalculatorOptions.ext] {
///       filled: false
///       color { r: 255 g: 0 b: 0 }
///       thickness: 4.0
///     }
///   }
/// }
/// ```
public final class RectToRenderDataCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.RectToRenderDataCalculatorOptions"
        /// Fill the shape instead of outlining it.
        public var filled = false
        public var color = RenderColor()
        public var thickness = 1.0
        /// Draw the ellipse inside the rect instead of the rect.
        public var oval = false
        /// Radius of a dot on the top-left corner; only for unfilled rectangles.
        public var topLeftThickness: Double?
        public init() {}
    }

    static let tags = ["NORM_RECT", "RECT", "NORM_RECTS", "RECTS"]

    /// A normalized rect to draw.
    public static let normRect = InputPort<NormalizedRect>("NORM_RECT", optional: true)
    /// A pixel rect to draw.
    public static let rect = InputPort<RotatedRect>("RECT", optional: true)
    /// Normalized rects to draw.
    public static let normRects = InputPort<[NormalizedRect]>("NORM_RECTS", optional: true)
    /// Pixel rects to draw.
    public static let rects = InputPort<[RotatedRect]>("RECTS", optional: true)
    /// The annotations.
    public static let renderData = OutputPort<RenderData>("RENDER_DATA")

    public static let contract = CalculatorContract(ports: [normRect, rect, normRects, rects, renderData])

    public var options: Options

    public init(options: Options) throws {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        _ = try cc.connectedInputTag(oneOf: Self.tags)
    }

    public func process(_ cc: CalculatorContext) throws {
        var data = RenderData()
        if let r = try cc.value(Self.normRect) { data.renderAnnotations.append(annotation(r)) }
        if let r = try cc.value(Self.rect) { data.renderAnnotations.append(annotation(r)) }
        if let rs = try cc.value(Self.normRects) { data.renderAnnotations += rs.map(annotation) }
        if let rs = try cc.value(Self.rects) { data.renderAnnotations += rs.map(annotation) }
        try cc.emit(data, to: Self.renderData)
    }

    /// The annotation of a normalized rect.
    public func annotation(_ r: NormalizedRect) -> RenderAnnotation {
        annotation(
            normalized: true, xCenter: Float(r.xCenter), yCenter: Float(r.yCenter), width: Float(r.width), height: Float(r.height),
            rotation: Double(Float(r.rotation)))
    }

    /// The annotation of a pixel rect.
    public func annotation(_ r: RotatedRect) -> RenderAnnotation {
        annotation(
            normalized: false, xCenter: Float(r.xCenter), yCenter: Float(r.yCenter), width: Float(r.width), height: Float(r.height),
            rotation: Double(Float(r.rotation)))
    }

    private func annotation(normalized: Bool, xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Double)
        -> RenderAnnotation
    {
        // MediaPipe's rects are float protos: the corner is a float, the sums doubles.
        let xmin = Double(xCenter - width / 2), ymin = Double(yCenter - height / 2)
        let w = Double(width), h = Double(height)
        var box = (left: xmin, top: ymin, right: xmin + w, bottom: ymin + h, normalized: normalized, rotation: rotation)
        if rotation == 0 {
            let outside = xmin + w < 0 || ymin + h < 0 || (normalized && (xmin > 1 || ymin > 1))
            if outside { box = (0, 0, 0, 0, false, 0) }
        }
        let shape: RenderAnnotation.Shape
        if options.oval {
            shape = .oval(
                left: box.left, top: box.top, right: box.right, bottom: box.bottom, normalized: box.normalized, filled: options.filled,
                rotation: box.rotation)
        } else {
            shape = .rectangle(
                left: box.left, top: box.top, right: box.right, bottom: box.bottom, normalized: box.normalized, rotation: box.rotation,
                filled: options.filled, topLeftThickness: options.filled ? nil : options.topLeftThickness)
        }
        return RenderAnnotation(shape, thickness: options.thickness, color: options.color)
    }
}

extension RectToRenderDataCalculator.Options {
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        guard color.isValid else { throw GraphError(.invalidOption, "color: r, g and b must be 0…255") }
        try OptionCheck.range(thickness, 0...1000, "thickness")
        if let topLeftThickness { try OptionCheck.range(topLeftThickness, 0...1000, "top_left_thickness") }
        if topLeftThickness != nil, filled || oval {
            throw GraphError(.invalidOption, "top_left_thickness is only for unfilled rectangles (filled and oval must be false)")
        }
    }

    /// mediapipe/calculators/util/rect_to_render_data_calculator.proto, for binary graphs.
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.rectToRenderDataCalculatorOptions }
}
