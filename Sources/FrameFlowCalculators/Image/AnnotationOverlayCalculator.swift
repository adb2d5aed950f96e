import Foundation
import FrameFlow

/// Draws detections (boxes with "label score" in the built-in bitmap font), points and
/// polylines onto the image, and alpha-blends a mask in a colour — the "mask over live
/// video" of a face app.
///
/// Inputs:
///   - `IMAGE`: `ImageFrame` (rgb8, rgba8, bgra8, gray8).
///   - `DETECTIONS` (optional): `[Detection]`, relative or pixel boxes.
///   - `POINTS` (optional): `[Point]`.
///   - `LINES` (optional): `[[Point]]`, each a polyline.
///   - `MASK` (optional): `ImageFrame` gray8, any size (sampled to the image), 255 = full colour.
/// Outputs:
///   - `IMAGE`: the annotated image.
/// Options: `frameflow.AnnotationOverlayCalculatorOptions` { box_color ([0, 255, 0]),
/// thickness (2), draw_labels (true), text_scale (2), text_color ([0, 0, 0]),
/// point_color ([255, 0, 0]), point_radius (3), line_color ([255, 255, 0]),
/// mask_color ([255, 0, 255]), mask_alpha (0.5), keep_last_detections (false: a frame
/// without a DETECTIONS packet gets none; true: the newest detections are drawn again, for
/// detectors that run slower than the video) }.
///
/// Example usage:
/// ```
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
        public static let typeName: String? = "frameflow.AnnotationOverlayCalculatorOptions"
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

    public static let contract = CalculatorContract(
        inputs: [
            PortSpec("IMAGE", ImageFrame.self), PortSpec("DETECTIONS", [Detection].self, optional: true),
            PortSpec("POINTS", [Point].self, optional: true), PortSpec("LINES", [[Point]].self, optional: true),
            PortSpec("MASK", ImageFrame.self, optional: true),
        ],
        outputs: [PortSpec("IMAGE", ImageFrame.self)])

    public var options: Options
    private var lastDetections: [Detection] = []

    public init(options: Options) throws {
        self.options = options
    }

    public func process(_ cc: CalculatorContext) throws {
        // Detections may arrive without an image (a slower detector under the immediate
        // policy): remember them for the next frame.
        var detections: [Detection] = []
        if cc.hasInput("DETECTIONS") {
            detections = try cc.input("DETECTIONS", as: [Detection].self)
            lastDetections = detections
        } else if options.keepLastDetections {
            detections = lastDetections
        }
        guard cc.hasInput("IMAGE") else { return }
        let input = try cc.input("IMAGE", as: ImageFrame.self)
        let points = cc.hasInput("POINTS") ? try cc.input("POINTS", as: [Point].self) : []
        let lines = cc.hasInput("LINES") ? try cc.input("LINES", as: [[Point]].self) : []
        let mask = cc.hasInput("MASK") ? try cc.input("MASK", as: ImageFrame.self) : nil
        try cc.emit(try Self.draw(on: input, detections: detections, points: points, lines: lines, mask: mask, options: options, pool: cc.pool), tag: "IMAGE")
    }

    /// A copy of `image` with everything drawn.
    public static func draw(
        on image: ImageFrame, detections: [Detection] = [], points: [Point] = [], lines: [[Point]] = [], mask: ImageFrame? = nil,
        options: Options = Options(), pool: ImagePool = .shared
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
            let x0 = Int(box.x.rounded()), y0 = Int(box.y.rounded())
            let x1 = Int(box.maxX.rounded()) - 1, y1 = Int(box.maxY.rounded()) - 1
            let t = options.thickness
            canvas.fill(x0, y0, x1, y0 + t - 1, options.boxColor)
            canvas.fill(x0, y1 - t + 1, x1, y1, options.boxColor)
            canvas.fill(x0, y0, x0 + t - 1, y1, options.boxColor)
            canvas.fill(x1 - t + 1, y0, x1, y1, options.boxColor)
            for k in d.keypoints(inImageOfWidth: image.width, height: image.height) { canvas.disc(k, options.pointRadius, options.pointColor) }
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
        return canvas.image.freeze()
    }

    /// Drawing primitives on a mutable image, clipped to it.
    struct Canvas {
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
                    row[p] = UInt8((0.299 * Double(c[0]) + 0.587 * Double(c[1]) + 0.114 * Double(c[2])).rounded())
                } else {
                    row[p + l.r] = UInt8(c[0]); row[p + l.g] = UInt8(c[1]); row[p + l.b] = UInt8(c[2])
                }
            }
        }

        mutating func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: [Int]) {
            let xa = max(0, x0), xb = min(x1, image.width - 1), ya = max(0, y0), yb = min(y1, image.height - 1)
            guard xa <= xb, ya <= yb else { return }  // clipped away
            for y in ya...yb { for x in xa...xb { put(x, y, c) } }
        }

        mutating func disc(_ p: Point, _ r: Int, _ c: [Int]) {
            let cx = Int(p.x.rounded()), cy = Int(p.y.rounded())
            for dy in -r...r { for dx in -r...r where dx * dx + dy * dy <= r * r { put(cx + dx, cy + dy, c) } }
        }

        mutating func line(_ a: Point, _ b: Point, _ c: [Int], _ t: Int) {
            var x0 = Int(a.x.rounded()), y0 = Int(a.y.rounded())
            let x1 = Int(b.x.rounded()), y1 = Int(b.y.rounded())
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
            let a = Int32((alpha * 256).rounded())
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
                        let chans = l.bpp == 1 ? [(0, Int32((0.299 * Double(color[0]) + 0.587 * Double(color[1]) + 0.114 * Double(color[2])).rounded()))]
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
    /// Checks the values (called by the graph before `init` and `update(options:)`).
    public func validate() throws {
        for c in [boxColor, textColor, pointColor, lineColor, maskColor] {
            guard c.count == 3, c.allSatisfy({ (0...255).contains($0) }) else { throw GraphError(.invalidOption, "colours are [r, g, b] with values 0…255") }
        }
        guard thickness >= 1, textScale >= 1, pointRadius >= 0, (0...1).contains(maskAlpha) else {
            throw GraphError(.invalidOption, "thickness and text_scale ≥ 1, point_radius ≥ 0, mask_alpha in 0…1")
        }
    }
}
