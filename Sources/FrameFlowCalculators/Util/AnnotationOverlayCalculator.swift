import Foundation
import FrameFlow

/// Draws annotations onto video frames, as MediaPipe's `AnnotationOverlayCalculator`:
/// `RenderData` from the `*ToRenderDataCalculator`s (rectangles, rotated too, filled and
/// rounded rectangles, ovals, points, lines, gradient lines, arrows, scribbles, text), plus
/// FrameFlow's own inputs: detections drawn directly (boxes with "label score" in the
/// built-in bitmap font), points, polylines, and a mask alpha-blended in a colour — the
/// "mask over live video" of a face app.
///
/// `RenderData` is drawn as MediaPipe's CPU renderer draws it (see `AnnotationRenderer`
/// for the pixel rules): normalized coordinates scaled by the image size, OpenCV's
/// coverage for lines, rectangles and discs, text in the bitmap font at MediaPipe's
/// placement and size. Order: mask, FrameFlow's lines, points and detections, then the
/// `RenderData` inputs in port order (untagged ones, then `VECTOR` ones).
///
/// Without an `IMAGE` input the annotations go on a `canvas_width_px` × `canvas_height_px`
/// rgb8 canvas of `canvas_color`, as MediaPipe's; both sizes must then be set.
///
/// Options — one type for both names: MediaPipe's `mediapipe.AnnotationOverlayCalculatorOptions`
/// fields (its protobuf schema, extension 250607623, so binary graphs decode) and FrameFlow's
/// earlier `frameflow.AnnotationOverlayCalculatorOptions` fields live in one struct. Graphs
/// may write either name (the graph matches options names by their last component), so the
/// `Graphs/*.pbtxt` written for FrameFlow keep working and MediaPipe graphs load unchanged;
/// one type means one `validate()` and no question of which name wins. FrameFlow's fields
/// have no protobuf numbers: they exist only in text graphs.
///   - MediaPipe: canvas_width_px, canvas_height_px (required without `IMAGE`; MediaPipe's
///     1920 × 1080 defaults apply only to its GPU path), canvas_color { r g b } (black),
///     flip_text_vertically (false), gpu_uses_top_left_origin (true) and gpu_scale_factor (1)
///     (accepted; FrameFlow draws on the CPU, where MediaPipe ignores them too).
///   - FrameFlow: box_color ([0, 255, 0]), thickness (2), draw_labels (true), text_scale
///     (2), text_color ([0, 0, 0]), point_color ([255, 0, 0]), point_radius (3),
///     line_color ([255, 255, 0]), mask_color ([255, 0, 255]), mask_alpha (0.5),
///     keep_last_detections (false: a frame without a DETECTIONS packet gets none; true:
///     the newest detections are drawn again, for detectors that run slower than the
///     video). These style only the `DETECTIONS`/`POINTS`/`LINES`/`MASK` inputs.
///
/// Inputs:
///   - `IMAGE` (optional): `ImageFrame` (rgb8, rgba8, bgra8, gray8); a timestamp without
///     an image produces nothing.
///   - (untagged, any number) `RenderData`.
///   - `VECTOR` (any number): `[RenderData]`.
///   - `DETECTIONS` (optional): `[Detection]`, relative or pixel boxes.
///   - `POINTS` (optional): `[Point]`.
///   - `LINES` (optional): `[[Point]]`, each a polyline.
///   - `MASK` (optional): `ImageFrame` gray8, any size (sampled to the image), 255 = full colour.
/// Outputs:
///   - `IMAGE`: the annotated image (rgb8 when drawn on the canvas).
/// Options: `mediapipe.AnnotationOverlayCalculatorOptions` (and `frameflow.` fields) {
/// canvas_width_px, canvas_height_px (1…32768, within `ResourceLimits.maxImagePixels`),
/// canvas_color, gpu_scale_factor (1, 0.01…100), box_color, text_color, point_color,
/// line_color, mask_color ([r, g, b], 0…255), thickness (2, 1…1000), text_scale (2, 1…100),
/// point_radius (3, 0…1000), mask_alpha (0.5, 0…1), draw_labels, keep_last_detections }.
///
/// Example usage:
/// ```
/// node {
///   calculator: "AnnotationOverlayCalculator"
///   input_stream: "IMAGE:input_video"
///   input_stream: "detections_render_data"
///   input_stream: "VECTOR:landmarks_render_data"
///   output_stream: "IMAGE:output_video"
/// }
/// node {
///   calculator: "AnnotationOverlayCalculator"
///   input_stream: "IMAGE:input_video"
///   input_stream: "DETECTIONS:faces"
///   output_stream: "IMAGE:output_video"
///   options { [frameflow.AnnotationOverlayCalculatorOptions.ext] { box_color: [255, 0, 0] keep_last_detections: true } }
/// }
/// ```
public final class AnnotationOverlayCalculator: OptionsStoringCalculator {
    public struct Options: CalculatorOptions, Equatable {
        public static let typeName: String? = "mediapipe.AnnotationOverlayCalculatorOptions"
        // MediaPipe's fields.
        /// Canvas width when there is no `IMAGE` input.
        public var canvasWidthPx: Int?
        /// Canvas height when there is no `IMAGE` input.
        public var canvasHeightPx: Int?
        /// Canvas colour when there is no `IMAGE` input.
        public var canvasColor = RenderColor()
        /// Draw `RenderData` text upside down (for bottom-left-origin images).
        public var flipTextVertically = false
        /// GPU only in MediaPipe; accepted and unused.
        public var gpuUsesTopLeftOrigin = true
        /// GPU only in MediaPipe; accepted and unused.
        public var gpuScaleFactor = 1.0
        // FrameFlow's fields, for the DETECTIONS/POINTS/LINES/MASK inputs.
        public var boxColor = [0, 255, 0]
        public var thickness = 2
        public var drawLabels = true
        public var textScale = 2
        public var textColor = [0, 0, 0]
        public var pointColor = [255, 0, 0]
        public var pointRadius = 3
        public var lineColor = [255, 255, 0]
        public var maskColor = [255, 0, 255]
        public var maskAlpha = 0.5
        public var keepLastDetections = false
        public init() {}
    }

    /// The image to draw on (else a blank canvas from the options).
    public static let image = InputPort<ImageFrame>("IMAGE", optional: true)
    /// Annotations to draw (untagged, any number of indexes).
    public static let renderData = InputPort<RenderData>("", optional: true, repeated: true)
    /// Lists of annotations to draw.
    public static let renderDataVector = InputPort<[RenderData]>("VECTOR", optional: true, repeated: true)
    /// Detections to draw as boxes.
    public static let detections = InputPort<[Detection]>("DETECTIONS", optional: true)
    /// Points to draw.
    public static let points = InputPort<[Point]>("POINTS", optional: true)
    /// Polylines to draw.
    public static let lines = InputPort<[[Point]]>("LINES", optional: true)
    /// A mask blended in as a colour.
    public static let mask = InputPort<ImageFrame>("MASK", optional: true)
    /// The annotated image.
    public static let annotated = OutputPort<ImageFrame>("IMAGE")

    public static let contract = CalculatorContract(
        ports: [image, renderData, renderDataVector, detections, points, lines, mask, annotated])

    public var options: Options
    private var lastDetections: [Detection] = []

    public init(options: Options) throws {
        self.options = options
    }

    public func open(_ cc: CalculatorContext) throws {
        if !cc.isConnected(Self.image) && (options.canvasWidthPx == nil || options.canvasHeightPx == nil) {
            throw GraphError(.invalidOption, "canvas_width_px and canvas_height_px are needed when there is no IMAGE input")
        }
        if let w = options.canvasWidthPx, let h = options.canvasHeightPx { try Options.checkCanvas(w, h, cc.environment.limits) }
    }

    public func process(_ cc: CalculatorContext) throws {
        // Detections may arrive without an image (a slower detector under the immediate
        // policy): remember them for the next frame.
        var detections: [Detection] = []
        if let given = try cc.value(Self.detections) {
            detections = given
            lastDetections = detections
        } else if options.keepLastDetections {
            detections = lastDetections
        }
        let input: ImageFrame
        if cc.isConnected(Self.image) {
            guard let image = try cc.value(Self.image) else { return }
            input = image
        } else {
            input = try Self.canvas(options: options, pool: cc.pool)
        }
        let points = try cc.value(Self.points) ?? []
        let lines = try cc.value(Self.lines) ?? []
        let mask = try cc.value(Self.mask)
        var renderData: [RenderData] = []
        for port in cc.inputPorts where port.tag == Self.renderData.tag {
            if let data = try cc.value(Self.renderData, port.index) { renderData.append(data) }
        }
        for port in cc.inputPorts where port.tag == Self.renderDataVector.tag {
            if let list = try cc.value(Self.renderDataVector, port.index) { renderData += list }
        }
        try cc.emit(
            try Self.draw(
                on: input, renderData: renderData, detections: detections, points: points, lines: lines, mask: mask, options: options,
                pool: cc.pool), to: Self.annotated)
    }

    /// MediaPipe's blank canvas: `canvas_width_px` × `canvas_height_px` rgb8 in `canvas_color`.
    public static func canvas(options: Options, pool: ImagePool = .shared) throws -> ImageFrame {
        guard let w = options.canvasWidthPx, let h = options.canvasHeightPx else {
            throw GraphError(.invalidOption, "canvas_width_px and canvas_height_px are needed when there is no IMAGE input")
        }
        var image = try pool.makeImage(width: w, height: h, format: .rgb8)
        let c = options.canvasColor
        for y in 0..<h {
            image.withMutableRow(y) { row in
                for x in 0..<w {
                    row[3 * x] = UInt8(c.r)
                    row[3 * x + 1] = UInt8(c.g)
                    row[3 * x + 2] = UInt8(c.b)
                }
            }
        }
        return image.freeze()
    }

    /// A copy of `image` with everything drawn.
    public static func draw(
        on image: ImageFrame, renderData: [RenderData] = [], detections: [Detection] = [], points: [Point] = [], lines: [[Point]] = [],
        mask: ImageFrame? = nil, options: Options = Options(), pool: ImagePool = .shared
    ) throws -> ImageFrame {
        var canvas = Canvas(try image.mutableCopy(pool: pool))
        guard canvas.layout != nil else { throw ImageError.unsupportedFormat(image.format, "AnnotationOverlayCalculator") }
        if let mask { canvas.blend(mask: mask, color: options.maskColor, alpha: options.maskAlpha) }
        for line in lines {
            for (a, b) in zip(line, line.dropFirst()) { canvas.line(a, b, options.lineColor, options.thickness) }
        }
        for p in points { canvas.disc(p, options.pointRadius, options.pointColor) }
        for d in detections {
            let box = d.box(inImageOfWidth: image.width, height: image.height)
            let x0 = Canvas.pixel(box.x), y0 = Canvas.pixel(box.y)
            let x1 = Canvas.pixel(box.maxX) - 1, y1 = Canvas.pixel(box.maxY) - 1
            let t = options.thickness
            canvas.fill(x0, y0, x1, y0 + t - 1, options.boxColor)
            canvas.fill(x0, y1 - t + 1, x1, y1, options.boxColor)
            canvas.fill(x0, y0, x0 + t - 1, y1, options.boxColor)
            canvas.fill(x1 - t + 1, y0, x1, y1, options.boxColor)
            for k in d.keypoints(inImageOfWidth: image.width, height: image.height) {
                canvas.disc(k, options.pointRadius, options.pointColor)
            }
            if options.drawLabels {
                // Integral scores (e.g. a cascade's neighbour count) print without decimals.
                let score = d.score == d.score.rounded() ? String(format: "%.0f", d.score) : String(format: "%.2f", d.score)
                let text = [d.label, score].compactMap { $0 }.joined(separator: " ")
                let s = options.textScale
                let tw = BitmapFont.textWidth(text, scale: s) + 2 * s, th = (BitmapFont.height + 2) * s
                let ty = y0 - th >= 0 ? y0 - th : y0  // above the box, or inside when at the top
                canvas.fill(x0, ty, x0 + tw - 1, ty + th - 1, options.boxColor)
                canvas.text(text, x: x0 + s, y: ty + s, scale: s, color: options.textColor)
            }
        }
        var renderer = AnnotationRenderer(canvas: canvas, flipTextVertically: options.flipTextVertically)
        for data in renderData { renderer.render(data) }
        return renderer.canvas.image.freeze()
    }

    /// Drawing primitives on a mutable image, clipped to it.
    struct Canvas {
        /// A coordinate from a packet as a pixel index, rounded, NaN as 0, clamped to ±2²⁰
        /// (far off any image) so that sums and Bresenham steps stay small.
        static func pixel(_ v: Double) -> Int { Int(saturating: min(max(v.rounded(), -0x10_0000), 0x10_0000)) }

        var image: MutableImageFrame
        let layout: (r: Int, g: Int, b: Int, a: Int, bpp: Int)?

        init(_ image: MutableImageFrame) {
            self.image = image
            layout = Kernels.layout(image.format)
        }

        mutating func put(_ x: Int, _ y: Int, _ c: [Int]) {
            guard let l = layout, x >= 0, y >= 0, x < image.width, y < image.height else { return }
            image.withMutableRow(y) { row in
                let p = x * l.bpp
                if l.bpp == 1 {
                    row[p] = UInt8(saturating: (0.299 * Double(c[0]) + 0.587 * Double(c[1]) + 0.114 * Double(c[2])).rounded())
                } else {
                    row[p + l.r] = UInt8(c[0]); row[p + l.g] = UInt8(c[1]); row[p + l.b] = UInt8(c[2])
                }
            }
        }

        mutating func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: [Int]) {
            let xa = max(0, x0), xb = min(x1, image.width - 1), ya = max(0, y0), yb = min(y1, image.height - 1)
            guard xa <= xb, ya <= yb else { return }  // clipped away
            guard let l = layout else { return }
            // One row access per row, the colour's bytes worked out once.
            let luma = UInt8(saturating: (0.299 * Double(c[0]) + 0.587 * Double(c[1]) + 0.114 * Double(c[2])).rounded())
            let r = UInt8(c[0]), g = UInt8(c[1]), b = UInt8(c[2])
            for y in ya...yb {
                image.withMutableRow(y) { row in
                    for x in xa...xb {
                        let p = x * l.bpp
                        if l.bpp == 1 {
                            row[p] = luma
                        } else {
                            row[p + l.r] = r
                            row[p + l.g] = g
                            row[p + l.b] = b
                        }
                    }
                }
            }
        }

        mutating func disc(_ p: Point, _ r: Int, _ c: [Int]) {
            let cx = Self.pixel(p.x), cy = Self.pixel(p.y)
            for dy in -r...r { for dx in -r...r where dx * dx + dy * dy <= r * r { put(cx + dx, cy + dy, c) } }
        }

        mutating func line(_ a: Point, _ b: Point, _ c: [Int], _ t: Int) {
            var x0 = Self.pixel(a.x), y0 = Self.pixel(a.y)
            let x1 = Self.pixel(b.x), y1 = Self.pixel(b.y)
            let dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1
            var err = dx + dy
            let h = (t - 1) / 2
            var steps = 0
            while steps <= dx - dy + 1 {  // Bresenham, bounded
                fill(x0 - h, y0 - h, x0 - h + t - 1, y0 - h + t - 1, c)
                if x0 == x1 && y0 == y1 { break }
                let e2 = 2 * err
                if e2 >= dy { err += dy; x0 += sx }
                if e2 <= dx { err += dx; y0 += sy }
                steps += 1
            }
        }

        mutating func text(_ s: String, x: Int, y: Int, scale: Int, color: [Int]) {
            var cx = x
            for ch in s {
                let g = BitmapFont.glyph(ch)
                for (row, bits) in g.enumerated() {
                    for col in 0..<BitmapFont.width where bits & (0x10 >> UInt8(col)) != 0 {
                        fill(cx + col * scale, y + row * scale, cx + (col + 1) * scale - 1, y + (row + 1) * scale - 1, color)
                    }
                }
                cx += (BitmapFont.width + 1) * scale
            }
        }

        mutating func blend(mask: ImageFrame, color: [Int], alpha: Double) {
            guard let l = layout else { return }
            let w = image.width, h = image.height
            let a = Int32(saturating: (alpha * 256).rounded())
            for y in 0..<h {
                let my = min(mask.height - 1, y * mask.height / h)
                let mrow = mask.row(my)
                let mbpp = mask.format.bytesPerPixel()
                image.withMutableRow(y) { row in
                    for x in 0..<w {
                        let mx = min(mask.width - 1, x * mask.width / w)
                        let m = Int32(mrow[mx * mbpp]) * a / 255  // 0…256
                        guard m > 0 else { continue }
                        let p = x * l.bpp
                        let chans =
                            l.bpp == 1
                            ? [(0, Int32(saturating: (0.299 * Double(color[0]) + 0.587 * Double(color[1]) + 0.114 * Double(color[2])).rounded()))]
                            : [(l.r, Int32(color[0])), (l.g, Int32(color[1])), (l.b, Int32(color[2]))]
                        for (off, cv) in chans {
                            let v = Int32(row[p + off])
                            row[p + off] = UInt8(truncatingIfNeeded: (v * (256 - m) + cv * m + 128) >> 8)
                        }
                    }
                }
            }
        }
    }
}

extension AnnotationOverlayCalculator.Options {
    /// A canvas of `w` × `h` fits `limits.maxImagePixels`.
    static func checkCanvas(_ w: Int, _ h: Int, _ limits: ResourceLimits) throws {
        guard limits.allowsImage(width: w, height: h) else {
            throw GraphError(.invalidOption, "canvas_width_px × canvas_height_px must be at most \(limits.maxImagePixels) pixels")
        }
    }

    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        for c in [boxColor, textColor, pointColor, lineColor, maskColor] {
            guard c.count == 3, c.allSatisfy({ (0...255).contains($0) }) else {
                throw GraphError(.invalidOption, "colours are [r, g, b] with values 0…255")
            }
        }
        try OptionCheck.range(thickness, 1...1000, "thickness")
        try OptionCheck.range(textScale, 1...100, "text_scale")
        try OptionCheck.range(pointRadius, 0...1000, "point_radius")
        try OptionCheck.range(maskAlpha, 0...1, "mask_alpha")
        guard canvasColor.isValid else { throw GraphError(.invalidOption, "canvas_color: r, g and b must be 0…255") }
        if let w = canvasWidthPx { try OptionCheck.range(w, 1...32768, "canvas_width_px") }
        if let h = canvasHeightPx { try OptionCheck.range(h, 1...32768, "canvas_height_px") }
        if let w = canvasWidthPx, let h = canvasHeightPx { try Self.checkCanvas(w, h, ResourceLimits()) }
        try OptionCheck.range(gpuScaleFactor, 0.01...100, "gpu_scale_factor")
    }

    /// mediapipe/calculators/util/annotation_overlay_calculator.proto, for binary graphs
    /// (FrameFlow's own fields have no numbers: text graphs only).
    public static var protoSchema: ProtoSchema? { MediaPipeOptionSchemas.annotationOverlayCalculatorOptions }
}
