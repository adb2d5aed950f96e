/// MediaPipe's `RenderData`: annotations for an overlay to draw (rectangles, ovals, points,
/// lines, text), each with its colour and thickness. Coordinates are pixels, or fractions of
/// the image when `normalized`.
public struct RenderData: Sendable, Hashable, Codable {
    public var renderAnnotations: [RenderAnnotation]
    public var sceneClass: String?

    public init(_ annotations: [RenderAnnotation] = [], sceneClass: String? = nil) {
        self.renderAnnotations = annotations
        self.sceneClass = sceneClass
    }

    enum CodingKeys: String, CodingKey { case renderAnnotations = "render_annotations", sceneClass = "scene_class" }
}

/// An RGB colour, 0…255 a channel.
public struct RenderColor: Sendable, Hashable, Codable {
    public var r: Int
    public var g: Int
    public var b: Int
    public init(r: Int, g: Int, b: Int) {
        self.r = r
        self.g = g
        self.b = b
    }
}

/// One thing to draw.
public struct RenderAnnotation: Sendable, Hashable, Codable {
    /// The shape and where it is.
    public enum Shape: Sendable, Hashable {
        case rectangle(left: Double, top: Double, right: Double, bottom: Double, normalized: Bool, rotation: Double, filled: Bool)
        case oval(left: Double, top: Double, right: Double, bottom: Double, normalized: Bool, filled: Bool)
        case point(x: Double, y: Double, normalized: Bool)
        case line(xStart: Double, yStart: Double, xEnd: Double, yEnd: Double, normalized: Bool)
        case text(String, left: Double, baseline: Double, fontHeight: Double, normalized: Bool)
    }

    public var shape: Shape
    public var thickness: Double
    public var color: RenderColor

    public init(_ shape: Shape, thickness: Double = 1, color: RenderColor = RenderColor(r: 255, g: 255, b: 255)) {
        self.shape = shape
        self.thickness = thickness
        self.color = color
    }

    // JSON as MediaPipe's RenderAnnotation: the shape under its field name.
    enum CodingKeys: String, CodingKey {
        case thickness, color, rectangle, filledRectangle = "filled_rectangle", oval, filledOval = "filled_oval", point, line, text
    }

    private struct Box: Codable {
        var left: Double, top: Double, right: Double, bottom: Double
        var normalized: Bool
        var rotation: Double?
    }
    private struct PointBody: Codable { var x: Double, y: Double, normalized: Bool }
    private struct LineBody: Codable {
        var xStart: Double, yStart: Double, xEnd: Double, yEnd: Double, normalized: Bool
        enum CodingKeys: String, CodingKey { case xStart = "x_start", yStart = "y_start", xEnd = "x_end", yEnd = "y_end", normalized }
    }
    private struct TextBody: Codable {
        var displayText: String, left: Double, baseline: Double, fontHeight: Double, normalized: Bool
        enum CodingKeys: String, CodingKey { case displayText = "display_text", left, baseline, fontHeight = "font_height", normalized }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(thickness, forKey: .thickness)
        try c.encode(color, forKey: .color)
        switch shape {
        case .rectangle(let l, let t, let r, let b, let n, let rot, let filled):
            try c.encode(Box(left: l, top: t, right: r, bottom: b, normalized: n, rotation: rot), forKey: filled ? .filledRectangle : .rectangle)
        case .oval(let l, let t, let r, let b, let n, let filled):
            try c.encode(Box(left: l, top: t, right: r, bottom: b, normalized: n, rotation: nil), forKey: filled ? .filledOval : .oval)
        case .point(let x, let y, let n): try c.encode(PointBody(x: x, y: y, normalized: n), forKey: .point)
        case .line(let xs, let ys, let xe, let ye, let n): try c.encode(LineBody(xStart: xs, yStart: ys, xEnd: xe, yEnd: ye, normalized: n), forKey: .line)
        case .text(let s, let l, let b, let h, let n):
            try c.encode(TextBody(displayText: s, left: l, baseline: b, fontHeight: h, normalized: n), forKey: .text)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        thickness = try c.decodeIfPresent(Double.self, forKey: .thickness) ?? 1
        color = try c.decodeIfPresent(RenderColor.self, forKey: .color) ?? RenderColor(r: 255, g: 255, b: 255)
        if let b = try c.decodeIfPresent(Box.self, forKey: .rectangle) ?? c.decodeIfPresent(Box.self, forKey: .filledRectangle) {
            shape = .rectangle(left: b.left, top: b.top, right: b.right, bottom: b.bottom, normalized: b.normalized, rotation: b.rotation ?? 0, filled: c.contains(.filledRectangle))
        } else if let b = try c.decodeIfPresent(Box.self, forKey: .oval) ?? c.decodeIfPresent(Box.self, forKey: .filledOval) {
            shape = .oval(left: b.left, top: b.top, right: b.right, bottom: b.bottom, normalized: b.normalized, filled: c.contains(.filledOval))
        } else if let p = try c.decodeIfPresent(PointBody.self, forKey: .point) {
            shape = .point(x: p.x, y: p.y, normalized: p.normalized)
        } else if let l = try c.decodeIfPresent(LineBody.self, forKey: .line) {
            shape = .line(xStart: l.xStart, yStart: l.yStart, xEnd: l.xEnd, yEnd: l.yEnd, normalized: l.normalized)
        } else if let t = try c.decodeIfPresent(TextBody.self, forKey: .text) {
            shape = .text(t.displayText, left: t.left, baseline: t.baseline, fontHeight: t.fontHeight, normalized: t.normalized)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a render annotation needs a shape"))
        }
    }
}
