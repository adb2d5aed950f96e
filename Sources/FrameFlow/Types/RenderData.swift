/// MediaPipe's `RenderData`: annotations for an overlay to draw (rectangles, rounded
/// rectangles, ovals, points, lines, gradient lines, arrows, scribbles, text), each with its
/// colour and thickness. Coordinates are pixels, or fractions of the image when `normalized`.
///
/// Produced by the `*ToRenderDataCalculator`s, drawn by `AnnotationOverlayCalculator`. JSON
/// uses the field names of mediapipe/util/render_data.proto.
public struct RenderData: Sendable, Hashable, Codable {
    /// The annotations, drawn in order.
    public var renderAnnotations: [RenderAnnotation]
    /// Names this set of annotations (`DetectionsToRenderDataCalculator` writes "DETECTION").
    public var sceneClass: String?

    /// Render data with `annotations`.
    public init(_ annotations: [RenderAnnotation] = [], sceneClass: String? = nil) {
        self.renderAnnotations = annotations
        self.sceneClass = sceneClass
    }

    enum CodingKeys: String, CodingKey { case renderAnnotations = "render_annotations", sceneClass = "scene_class" }
}

/// An RGB colour, 0…255 a channel: MediaPipe's `Color` message. Channels left out of JSON or
/// of a graph file's `color { r: … }` are 0, as in the proto.
public struct RenderColor: Sendable, Hashable, Codable {
    /// Red, 0…255.
    public var r: Int
    /// Green, 0…255.
    public var g: Int
    /// Blue, 0…255.
    public var b: Int

    /// The colour (`r`, `g`, `b`).
    public init(r: Int, g: Int, b: Int) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// Black, the proto's default.
    public init() { self.init(r: 0, g: 0, b: 0) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        r = try c.decodeIfPresent(Int.self, forKey: .r) ?? 0
        g = try c.decodeIfPresent(Int.self, forKey: .g) ?? 0
        b = try c.decodeIfPresent(Int.self, forKey: .b) ?? 0
    }

    enum CodingKeys: String, CodingKey { case r, g, b }

    /// Whether each channel is in 0…255.
    public var isValid: Bool { [r, g, b].allSatisfy { (0...255).contains($0) } }

    /// mediapipe/util/color.proto's `Color`, for options schemas that nest it.
    public static let protoSchema = MediaPipeOptionSchemas.color
}

/// One thing to draw.
public struct RenderAnnotation: Sendable, Hashable, Codable {
    /// How text is placed and outlined (the rest of MediaPipe's `RenderAnnotation.Text`).
    public struct TextStyle: Sendable, Hashable {
        /// OpenCV's Hershey font number (0 = SIMPLEX); decides the size-to-scale ratio.
        public var fontFace: Int
        /// `left` is the text's horizontal centre.
        public var centerHorizontally: Bool
        /// `baseline` is the text's vertical centre.
        public var centerVertically: Bool
        /// Width of an outline drawn under the text, 0 for none.
        public var outlineThickness: Double
        /// The outline's colour (black when unset).
        public var outlineColor: RenderColor?

        /// A text style; the defaults: font 0, not centred, no outline.
        public init(
            fontFace: Int = 0, centerHorizontally: Bool = false, centerVertically: Bool = false, outlineThickness: Double = 0,
            outlineColor: RenderColor? = nil
        ) {
            self.fontFace = fontFace
            self.centerHorizontally = centerHorizontally
            self.centerVertically = centerVertically
            self.outlineThickness = outlineThickness
            self.outlineColor = outlineColor
        }
    }

    /// The shape and where it is. Boxes are left/top/right/bottom; `rotation` is clockwise
    /// radians about the box's centre.
    public enum Shape: Sendable, Hashable {
        /// A rectangle's outline, or (`filled`) the whole rectangle. `topLeftThickness` adds a
        /// filled dot of that radius at the top-left corner; `fillColor` is carried as
        /// MediaPipe's `FilledRectangle.fill_color` (its renderer fills with `color`).
        case rectangle(
            left: Double, top: Double, right: Double, bottom: Double, normalized: Bool, rotation: Double = 0,
            filled: Bool = false, topLeftThickness: Double? = nil, fillColor: RenderColor? = nil)
        /// The ellipse inside a box; `filled` fills it.
        case oval(
            left: Double, top: Double, right: Double, bottom: Double, normalized: Bool, filled: Bool = false, rotation: Double = 0,
            fillColor: RenderColor? = nil)
        /// A filled disc whose radius is the annotation's thickness.
        case point(x: Double, y: Double, normalized: Bool)
        /// A straight line from (`xStart`, `yStart`) to (`xEnd`, `yEnd`).
        case line(xStart: Double, yStart: Double, xEnd: Double, yEnd: Double, normalized: Bool)
        /// A line whose colour goes from `color1` at the start to `color2` at the end.
        case gradientLine(
            xStart: Double, yStart: Double, xEnd: Double, yEnd: Double, normalized: Bool, color1: RenderColor, color2: RenderColor)
        /// Text whose baseline starts at (`left`, `baseline`); `fontHeight` is the height of
        /// capitals, a fraction of the image height when `normalized`.
        case text(String, left: Double, baseline: Double, fontHeight: Double, normalized: Bool, style: TextStyle = TextStyle())
        /// A line with an arrow head at the end (two strokes a fifth of the line long).
        case arrow(xStart: Double, yStart: Double, xEnd: Double, yEnd: Double, normalized: Bool)
        /// Points drawn as discs of the annotation's thickness, each normalized or not.
        case scribble([ScribblePoint])
        /// A rectangle with quarter-circle corners of `cornerRadius` pixels; `lineType` is
        /// OpenCV's (4: 4-connected, 8: 8-connected, 16: antialiased — drawn 8-connected).
        /// `filled` fills it (MediaPipe's `FilledRoundedRectangle`).
        case roundedRectangle(
            left: Double, top: Double, right: Double, bottom: Double, normalized: Bool, cornerRadius: Int, lineType: Int = 4,
            filled: Bool = false, fillColor: RenderColor? = nil)
    }

    /// One point of a scribble (MediaPipe's `RenderAnnotation.Point`).
    public struct ScribblePoint: Sendable, Hashable {
        /// Horizontal position.
        public var x: Double
        /// Vertical position.
        public var y: Double
        /// Whether `x` and `y` are fractions of the image.
        public var normalized: Bool
        /// The point (`x`, `y`).
        public init(x: Double, y: Double, normalized: Bool) {
            self.x = x
            self.y = y
            self.normalized = normalized
        }
    }

    /// What to draw, and where.
    public var shape: Shape
    /// Line width (or point radius) in pixels.
    public var thickness: Double
    /// The colour to draw with.
    public var color: RenderColor
    /// What the annotation is for (MediaPipe's `scene_tag`: "LABEL", "KEYPOINT", …).
    public var sceneTag: String?

    /// An annotation drawing `shape` in `color`.
    public init(
        _ shape: Shape, thickness: Double = 1, color: RenderColor = RenderColor(r: 255, g: 255, b: 255), sceneTag: String? = nil
    ) {
        self.shape = shape
        self.thickness = thickness
        self.color = color
        self.sceneTag = sceneTag
    }

    // JSON as MediaPipe's RenderAnnotation: the shape under its oneof field name, filled
    // shapes nested as the proto nests them.
    enum CodingKeys: String, CodingKey {
        case thickness, color, sceneTag = "scene_tag", rectangle, filledRectangle = "filled_rectangle", oval, filledOval = "filled_oval"
        case point, line, gradientLine = "gradient_line", text, arrow, scribble
        case roundedRectangle = "rounded_rectangle", filledRoundedRectangle = "filled_rounded_rectangle"
    }

    private struct Box: Codable {
        var left: Double, top: Double, right: Double, bottom: Double
        var normalized: Bool
        var rotation: Double?
        var topLeftThickness: Double?
        enum CodingKeys: String, CodingKey { case left, top, right, bottom, normalized, rotation, topLeftThickness = "top_left_thickness" }
        init(left: Double, top: Double, right: Double, bottom: Double, normalized: Bool, rotation: Double?, topLeftThickness: Double? = nil) {
            (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
            (self.normalized, self.rotation, self.topLeftThickness) = (normalized, rotation, topLeftThickness)
        }
        // Proto fields are optional: missing coordinates are 0.
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            left = try c.decodeIfPresent(Double.self, forKey: .left) ?? 0
            top = try c.decodeIfPresent(Double.self, forKey: .top) ?? 0
            right = try c.decodeIfPresent(Double.self, forKey: .right) ?? 0
            bottom = try c.decodeIfPresent(Double.self, forKey: .bottom) ?? 0
            normalized = try c.decodeIfPresent(Bool.self, forKey: .normalized) ?? false
            rotation = try c.decodeIfPresent(Double.self, forKey: .rotation)
            topLeftThickness = try c.decodeIfPresent(Double.self, forKey: .topLeftThickness)
        }
    }
    private struct FilledBox: Codable {
        var rectangle: Box
        var fillColor: RenderColor?
        enum CodingKeys: String, CodingKey { case rectangle, fillColor = "fill_color" }
    }
    private struct OvalBody: Codable { var rectangle: Box }
    private struct FilledOvalBody: Codable {
        var oval: OvalBody
        var fillColor: RenderColor?
        enum CodingKeys: String, CodingKey { case oval, fillColor = "fill_color" }
    }
    // Bodies as the proto's optional fields: whatever JSON leaves out takes the proto's
    // default (0, false, a font height of 8).
    private struct PointBody: Codable { var x: Double?, y: Double?, normalized: Bool? }
    private struct ScribbleBody: Codable { var point: [PointBody]? }
    private struct RoundedBody: Codable {
        var rectangle: Box
        var cornerRadius: Int?
        var lineType: Int?
        enum CodingKeys: String, CodingKey { case rectangle, cornerRadius = "corner_radius", lineType = "line_type" }
    }
    private struct FilledRoundedBody: Codable {
        var roundedRectangle: RoundedBody
        var fillColor: RenderColor?
        enum CodingKeys: String, CodingKey { case roundedRectangle = "rounded_rectangle", fillColor = "fill_color" }
    }
    private struct LineBody: Codable {
        var xStart: Double?, yStart: Double?, xEnd: Double?, yEnd: Double?, normalized: Bool?
        var color1: RenderColor?, color2: RenderColor?
        enum CodingKeys: String, CodingKey {
            case xStart = "x_start", yStart = "y_start", xEnd = "x_end", yEnd = "y_end", normalized, color1, color2
        }
    }
    private struct TextBody: Codable {
        var displayText: String?, left: Double?, baseline: Double?, fontHeight: Double?, normalized: Bool?
        var fontFace: Int?, centerHorizontally: Bool?, centerVertically: Bool?, outlineThickness: Double?, outlineColor: RenderColor?
        enum CodingKeys: String, CodingKey {
            case displayText = "display_text", left, baseline, fontHeight = "font_height", normalized, fontFace = "font_face"
            case centerHorizontally = "center_horizontally", centerVertically = "center_vertically"
            case outlineThickness = "outline_thickness", outlineColor = "outline_color"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(thickness, forKey: .thickness)
        try c.encode(color, forKey: .color)
        try c.encodeIfPresent(sceneTag, forKey: .sceneTag)
        switch shape {
        case .rectangle(let l, let t, let r, let b, let n, let rot, let filled, let tl, let fill):
            let box = Box(left: l, top: t, right: r, bottom: b, normalized: n, rotation: rot, topLeftThickness: tl)
            if filled {
                try c.encode(FilledBox(rectangle: box, fillColor: fill), forKey: .filledRectangle)
            } else {
                try c.encode(box, forKey: .rectangle)
            }
        case .oval(let l, let t, let r, let b, let n, let filled, let rot, let fill):
            let oval = OvalBody(rectangle: Box(left: l, top: t, right: r, bottom: b, normalized: n, rotation: rot))
            if filled {
                try c.encode(FilledOvalBody(oval: oval, fillColor: fill), forKey: .filledOval)
            } else {
                try c.encode(oval, forKey: .oval)
            }
        case .point(let x, let y, let n): try c.encode(PointBody(x: x, y: y, normalized: n), forKey: .point)
        case .line(let xs, let ys, let xe, let ye, let n):
            try c.encode(LineBody(xStart: xs, yStart: ys, xEnd: xe, yEnd: ye, normalized: n), forKey: .line)
        case .gradientLine(let xs, let ys, let xe, let ye, let n, let c1, let c2):
            try c.encode(LineBody(xStart: xs, yStart: ys, xEnd: xe, yEnd: ye, normalized: n, color1: c1, color2: c2), forKey: .gradientLine)
        case .text(let s, let l, let b, let h, let n, let st):
            try c.encode(
                TextBody(
                    displayText: s, left: l, baseline: b, fontHeight: h, normalized: n, fontFace: st.fontFace,
                    centerHorizontally: st.centerHorizontally, centerVertically: st.centerVertically,
                    outlineThickness: st.outlineThickness, outlineColor: st.outlineColor), forKey: .text)
        case .arrow(let xs, let ys, let xe, let ye, let n):
            try c.encode(LineBody(xStart: xs, yStart: ys, xEnd: xe, yEnd: ye, normalized: n), forKey: .arrow)
        case .scribble(let points):
            try c.encode(ScribbleBody(point: points.map { PointBody(x: $0.x, y: $0.y, normalized: $0.normalized) }), forKey: .scribble)
        case .roundedRectangle(let l, let t, let r, let b, let n, let radius, let lineType, let filled, let fill):
            let body = RoundedBody(
                rectangle: Box(left: l, top: t, right: r, bottom: b, normalized: n, rotation: nil), cornerRadius: radius, lineType: lineType
            )
            if filled {
                try c.encode(FilledRoundedBody(roundedRectangle: body, fillColor: fill), forKey: .filledRoundedRectangle)
            } else {
                try c.encode(body, forKey: .roundedRectangle)
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        thickness = try c.decodeIfPresent(Double.self, forKey: .thickness) ?? 1
        color = try c.decodeIfPresent(RenderColor.self, forKey: .color) ?? RenderColor(r: 255, g: 255, b: 255)
        sceneTag = try c.decodeIfPresent(String.self, forKey: .sceneTag)
        if let b = try c.decodeIfPresent(Box.self, forKey: .rectangle) {
            shape = .rectangle(
                left: b.left, top: b.top, right: b.right, bottom: b.bottom, normalized: b.normalized, rotation: b.rotation ?? 0,
                topLeftThickness: b.topLeftThickness)
        } else if let f = try c.decodeIfPresent(FilledBox.self, forKey: .filledRectangle) {
            let b = f.rectangle
            shape = .rectangle(
                left: b.left, top: b.top, right: b.right, bottom: b.bottom, normalized: b.normalized, rotation: b.rotation ?? 0,
                filled: true, fillColor: f.fillColor)
        } else if let o = try c.decodeIfPresent(OvalBody.self, forKey: .oval) {
            let b = o.rectangle
            shape = .oval(left: b.left, top: b.top, right: b.right, bottom: b.bottom, normalized: b.normalized, rotation: b.rotation ?? 0)
        } else if let f = try c.decodeIfPresent(FilledOvalBody.self, forKey: .filledOval) {
            let b = f.oval.rectangle
            shape = .oval(
                left: b.left, top: b.top, right: b.right, bottom: b.bottom, normalized: b.normalized, filled: true,
                rotation: b.rotation ?? 0, fillColor: f.fillColor)
        } else if let p = try c.decodeIfPresent(PointBody.self, forKey: .point) {
            shape = .point(x: p.x ?? 0, y: p.y ?? 0, normalized: p.normalized ?? false)
        } else if let l = try c.decodeIfPresent(LineBody.self, forKey: .line) {
            shape = .line(
                xStart: l.xStart ?? 0, yStart: l.yStart ?? 0, xEnd: l.xEnd ?? 0, yEnd: l.yEnd ?? 0, normalized: l.normalized ?? false)
        } else if let l = try c.decodeIfPresent(LineBody.self, forKey: .gradientLine) {
            shape = .gradientLine(
                xStart: l.xStart ?? 0, yStart: l.yStart ?? 0, xEnd: l.xEnd ?? 0, yEnd: l.yEnd ?? 0, normalized: l.normalized ?? false,
                color1: l.color1 ?? RenderColor(), color2: l.color2 ?? RenderColor())
        } else if let l = try c.decodeIfPresent(LineBody.self, forKey: .arrow) {
            shape = .arrow(
                xStart: l.xStart ?? 0, yStart: l.yStart ?? 0, xEnd: l.xEnd ?? 0, yEnd: l.yEnd ?? 0, normalized: l.normalized ?? false)
        } else if let b = try c.decodeIfPresent(ScribbleBody.self, forKey: .scribble) {
            shape = .scribble((b.point ?? []).map { ScribblePoint(x: $0.x ?? 0, y: $0.y ?? 0, normalized: $0.normalized ?? false) })
        } else if let r = try c.decodeIfPresent(RoundedBody.self, forKey: .roundedRectangle) {
            let b = r.rectangle
            shape = .roundedRectangle(
                left: b.left, top: b.top, right: b.right, bottom: b.bottom, normalized: b.normalized, cornerRadius: r.cornerRadius ?? 0,
                lineType: r.lineType ?? 4)
        } else if let f = try c.decodeIfPresent(FilledRoundedBody.self, forKey: .filledRoundedRectangle) {
            let r = f.roundedRectangle, b = r.rectangle
            shape = .roundedRectangle(
                left: b.left, top: b.top, right: b.right, bottom: b.bottom, normalized: b.normalized, cornerRadius: r.cornerRadius ?? 0,
                lineType: r.lineType ?? 4, filled: true, fillColor: f.fillColor)
        } else if let t = try c.decodeIfPresent(TextBody.self, forKey: .text) {
            let style = TextStyle(
                fontFace: t.fontFace ?? 0, centerHorizontally: t.centerHorizontally ?? false, centerVertically: t.centerVertically ?? false,
                outlineThickness: t.outlineThickness ?? 0, outlineColor: t.outlineColor)
            shape = .text(
                t.displayText ?? "", left: t.left ?? 0, baseline: t.baseline ?? 0, fontHeight: t.fontHeight ?? 8,
                normalized: t.normalized ?? false, style: style)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a render annotation needs a shape"))
        }
    }

    /// mediapipe/util/render_data.proto's `RenderAnnotation.Text`, for options that nest
    /// label settings (`DetectionsToRenderDataCalculatorOptions.text`).
    public static let textProtoSchema = MediaPipeOptionSchemas.renderAnnotationText
}
