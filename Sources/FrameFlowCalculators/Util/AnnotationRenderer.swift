import Foundation
import FrameFlow

/// Draws `RenderData` onto an image as MediaPipe's CPU annotation renderer does
/// (mediapipe/util/annotation_renderer.cc on OpenCV): used by `AnnotationOverlayCalculator`.
///
/// Coordinates: normalized values are scaled by the image size and rounded (half away from
/// zero); pixel values are truncated toward zero. Thicknesses are rounded and clamped to
/// 1…32767. Shapes use OpenCV's pixel coverage:
///   - thin lines (thickness 1): OpenCV's 8-connected line, clipped to the image as OpenCV
///     clips it and walked left to right — exact;
///   - thick lines: OpenCV's half width ⌊(t + 1) / 2⌋ with round end discs of that radius
///     (exact), the sides taken as pixel centres within half width + ½ of the segment —
///     OpenCV fills a fixed-point polygon there, so up to a few boundary pixels per line
///     differ (under 8 % of the line's pixels in the reference tests); axis-aligned lines,
///     hence unrotated rectangles, come out exact;
///   - rectangles: the outline from (left, top) to (right − 1, bottom − 1) as four lines,
///     nothing for an empty box; filled: left…right − 1 × top…bottom − 1;
///   - gradient lines: OpenCV's 4-connected walk from start to end (matched against
///     OpenCV), a thickness-sized square per step in the blended colour;
///   - points (and each point of a scribble): a filled disc of radius = thickness by
///     OpenCV's integer circle — exact;
///   - arrows: the line and two head strokes from the points a fifth of its length back
///     and to each side of the tip (rounded), as MediaPipe computes them;
///   - rotated rectangles: lines between the rotated corners (rounded half to even, as
///     OpenCV converts them); filled ones as a convex polygon with its edges;
///   - ovals: OpenCV's ellipse polygon (a vertex every 90°/30°/18°/5° by size, turned by
///     whole degrees) outlined with thin lines as OpenCV does (matching it in the reference
///     test); filled ovals fill that polygon, where OpenCV fills its sub-pixel version, so a
///     few edge pixels differ (under 4 % in the reference test);
///   - rounded rectangles: MediaPipe's four shortened sides (4- or 8-connected as
///     `line_type` asks; antialiasing is drawn 8-connected) and four quarter arcs drawn
///     8-connected, closest to OpenCV's thin arcs: exact for 8-connected lines at most
///     radii tried, while OpenCV's 4-connected arcs differ in some pixels next to the arc
///     (6 % of the shape at radius 8, up to a fifth at radius 12). Filled ones are
///     FrameFlow's own (MediaPipe hands OpenCV a negative line thickness, which OpenCV
///     rejects): bands and corner discs;
///   - text: FrameFlow's 5×7 bitmap font instead of OpenCV's Hershey fonts. Placement and
///     size follow MediaPipe: (left, baseline) is the glyphs' bottom-left, capitals are
///     about `font_height` pixels high (the Hershey scale MediaPipe computes, at 7 rows per
///     capital), centring uses the drawn text's size, an outline is drawn under the text,
///     and `flip_text_vertically` draws it upside down below the baseline. Stroke width is
///     the font's (the annotation's thickness does not widen glyphs).
struct AnnotationRenderer {
    var canvas: AnnotationOverlayCalculator.Canvas
    /// Draw text upside down (for images whose origin is the bottom-left corner).
    var flipTextVertically = false

    var width: Int { canvas.image.width }
    var height: Int { canvas.image.height }

    /// Draws every annotation of `data`, in order.
    mutating func render(_ data: RenderData) {
        for a in data.renderAnnotations { render(a) }
    }

    mutating func render(_ a: RenderAnnotation) {
        let color = Self.rgb(a.color)
        let thickness = Self.clampThickness(a.thickness.rounded())
        switch a.shape {
        case .rectangle(let l, let t, let r, let b, let n, let rotation, let filled, let topLeft, _):
            let (x0, y0) = pixel(l, t, n), (x1, y1) = pixel(r, b, n)
            if rotation != 0 {
                let corners = Self.rotatedCorners(x0, y0, x1, y1, rotation)
                if filled {
                    canvas.fillConvexPolygon(corners, color)
                } else {
                    for i in 0..<4 { canvas.line(corners[i], corners[(i + 1) % 4], thickness, color) }
                }
            } else if filled {
                if x1 > x0 && y1 > y0 { canvas.fill(x0, y0, x1 - 1, y1 - 1, color) }
            } else if x1 > x0 && y1 > y0 {
                canvas.rectangle(x0, y0, x1 - 1, y1 - 1, thickness, color)
            }
            if let topLeft, !filled {
                // A dot on the (rotated) top-left corner.
                let corner = Self.rotatedCorners(x0, y0, x1, y1, rotation)[1]
                canvas.disc(corner.x, corner.y, Self.clampThickness(topLeft.rounded()), color)
            }
        case .oval(let l, let t, let r, let b, let n, let filled, let rotation, _):
            let (x0, y0) = pixel(l, t, n), (x1, y1) = pixel(r, b, n)
            // Integer halves, truncated toward zero as C++ divides.
            let centre = (x: (x0 + x1) / 2, y: (y0 + y1) / 2)
            let axes = filled ? (max(0, (x1 - x0) / 2), max(0, (y1 - y0) / 2)) : ((x1 - x0) / 2, (y1 - y0) / 2)
            let poly = Self.ellipsePolygon(centre: centre, axes: axes, degrees: rotation / Double.pi * 180)
            if filled {
                canvas.fillConvexPolygon(poly, color)
            } else {
                for i in poly.indices { canvas.line(poly[i], poly[(i + 1) % poly.count], thickness, color) }
            }
        case .point(let x, let y, let n):
            let p = pixel(x, y, n)
            canvas.disc(p.0, p.1, thickness, color)
        case .line(let xs, let ys, let xe, let ye, let n):
            let a = pixel(xs, ys, n), b = pixel(xe, ye, n)
            canvas.line((a.0, a.1), (b.0, b.1), thickness, color)
        case .gradientLine(let xs, let ys, let xe, let ye, let n, let c1, let c2):
            let a = pixel(xs, ys, n), b = pixel(xe, ye, n)
            canvas.gradientLine((a.0, a.1), (b.0, b.1), thickness, Self.rgb(c1), Self.rgb(c2))
        case .arrow(let xs, let ys, let xe, let ye, let n):
            let a = pixel(xs, ys, n), b = pixel(xe, ye, n)
            canvas.line((a.0, a.1), (b.0, b.1), thickness, color)
            // The head: two strokes from points a fifth of the length back from the tip
            // and as far to either side, rounded.
            let dx = Double(b.0 - a.0), dy = Double(b.1 - a.1)
            let length = (dx * dx + dy * dy).squareRoot()
            if length > 0 {
                let (ux, uy) = (dx / length, dy / length), tip = 0.2 * length
                for side in [1.0, -1.0] {
                    // The side direction is the unit vector turned a quarter: (−uy, ux).
                    let x = Double(b.0) - tip * ux - side * tip * uy, y = Double(b.1) - tip * uy + side * tip * ux
                    canvas.line((Self.int(x.rounded()), Self.int(y.rounded())), (b.0, b.1), thickness, color)
                }
            }
        case .roundedRectangle(let l, let t, let r, let b, let n, let radius, let lineType, let filled, _):
            let (x0, y0) = pixel(l, t, n), (x1, y1) = pixel(r, b, n)
            if filled {
                canvas.fillRoundedRectangle(x0, y0, x1, y1, radius, color)
            } else {
                canvas.roundedRectangle(x0, y0, x1, y1, radius, thickness, connectivity: lineType == 4 ? 4 : 8, color)
            }
        case .scribble(let points):
            for p in points {
                let q = pixel(p.x, p.y, p.normalized)
                canvas.disc(q.0, q.1, thickness, color)
            }
        case .text(let s, let l, let baseline, let fontHeight, let n, let style):
            let origin = pixel(l, baseline, n)
            let fontSize = n ? Self.int((fontHeight * Double(height)).rounded()) : Self.int(fontHeight)
            drawText(
                s, origin: origin, fontSize: fontSize, thickness: thickness, annotationThickness: a.thickness, style: style, color: color)
        }
    }

    /// A point in pixels: normalized values scaled and rounded, pixel values truncated.
    func pixel(_ x: Double, _ y: Double, _ normalized: Bool) -> (Int, Int) {
        if normalized { return (Self.int((x * Double(width)).rounded()), Self.int((y * Double(height)).rounded())) }
        return (Self.int(x), Self.int(y))
    }

    /// `v` truncated toward zero, kept within ±2³⁰ (NaN as 0) so a wild coordinate cannot
    /// trap or overflow later arithmetic; MediaPipe leaves such casts undefined.
    static func int(_ v: Double) -> Int {
        guard !v.isNaN else { return 0 }
        return Int(min(max(v, -1_073_741_824), 1_073_741_824))
    }

    static func clampThickness(_ t: Double) -> Int {
        guard t.isFinite else { return 1 }
        return Int(min(max(t, 1), 32767))
    }

    static func rgb(_ c: RenderColor) -> [Int] { [c.r, c.g, c.b].map { min(max($0, 0), 255) } }

    /// The corners of the box rotated by `rotation` radians about its centre, in OpenCV's
    /// order (bottom-left, top-left, top-right, bottom-right before rotation), computed in
    /// single precision and rounded half to even as OpenCV does.
    static func rotatedCorners(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ rotation: Double) -> [(x: Int, y: Int)] {
        let cx = Float(x0 + x1) / 2, cy = Float(y0 + y1) / 2
        let w = Float(x1 - x0), h = Float(y1 - y0)
        let radians = (rotation / Double.pi * 180) * Double.pi / 180
        let b = Float(cos(radians)) * 0.5, a = Float(sin(radians)) * 0.5
        let p0 = (x: cx - a * h - b * w, y: cy + b * h - a * w)
        let p1 = (x: cx + a * h - b * w, y: cy - b * h - a * w)
        let pts = [p0, p1, (x: 2 * cx - p0.x, y: 2 * cy - p0.y), (x: 2 * cx - p1.x, y: 2 * cy - p1.y)]
        return pts.map { (Int(saturating: $0.x.rounded(.toNearestOrEven)), Int(saturating: $0.y.rounded(.toNearestOrEven))) }
    }

    /// The vertices of an ellipse, one every 90°, 30°, 18° or 5° as its larger axis grows
    /// (OpenCV's spacing), rotated by `degrees`, rounded; consecutive repeats dropped.
    static func ellipsePolygon(centre: (x: Int, y: Int), axes: (Int, Int), degrees: Double) -> [(x: Int, y: Int)] {
        let size = max(axes.0, axes.1)
        let step = size < 3 ? 90 : size < 10 ? 30 : size < 15 ? 18 : 5
        // OpenCV turns ellipses by whole degrees.
        let alpha = degrees.rounded(.toNearestOrEven) * Double.pi / 180
        var out: [(x: Int, y: Int)] = []
        for deg in stride(from: 0, through: 360, by: step) {
            let t = Double(deg) * Double.pi / 180
            let x = Double(axes.0) * cos(t), y = Double(axes.1) * sin(t)
            let px = Int(saturating: (Double(centre.x) + x * cos(alpha) - y * sin(alpha)).rounded())
            let py = Int(saturating: (Double(centre.y) + x * sin(alpha) + y * cos(alpha)).rounded())
            if let last = out.last, last == (px, py) { continue }
            out.append((px, py))
        }
        if out.count > 1, let first = out.first, let last = out.last, first == last { out.removeLast() }
        return out
    }

    /// The vertices of a circular arc of `radius` from `start`° to `end`° (both included),
    /// turned by `degrees`, spaced as OpenCV spaces ellipse vertices; repeats dropped.
    static func arcPoints(centre: (x: Int, y: Int), radius: Int, degrees: Double, start: Int, end: Int) -> [(x: Int, y: Int)] {
        let step = radius < 3 ? 90 : radius < 10 ? 30 : radius < 15 ? 18 : 5
        let alpha = degrees.rounded(.toNearestOrEven) * Double.pi / 180
        var out: [(x: Int, y: Int)] = []
        var deg = start
        while deg < end + step {
            let t = Double(min(deg, end)) * Double.pi / 180
            let x = Double(radius) * cos(t), y = Double(radius) * sin(t)
            let p = (
                x: Int(saturating: (Double(centre.x) + x * cos(alpha) - y * sin(alpha)).rounded()),
                y: Int(saturating: (Double(centre.y) + x * sin(alpha) + y * cos(alpha)).rounded())
            )
            if out.last.map({ $0 != p }) ?? true { out.append(p) }
            deg += step
        }
        return out
    }

    // MARK: Text

    /// The bitmap font's scale for a font size: the capital height MediaPipe's Hershey scale
    /// gives (`(size − (thickness + 1) / 2) / 21` × 21 units) over the font's 7 rows.
    static func textScale(fontSize: Int, thickness: Int) -> Int {
        let capHeight = Double(fontSize) - Double(thickness + 1) / 2
        return max(1, Int(saturating: (capHeight / Double(BitmapFont.height)).rounded()))
    }

    mutating func drawText(
        _ s: String, origin: (Int, Int), fontSize: Int, thickness: Int, annotationThickness: Double, style: RenderAnnotation.TextStyle,
        color: [Int]
    ) {
        guard !s.isEmpty else { return }
        let scale = Self.textScale(fontSize: fontSize, thickness: thickness)
        var (x, y) = origin
        let textWidth = BitmapFont.textWidth(s, scale: scale), textHeight = BitmapFont.height * scale
        if style.centerHorizontally { x -= textWidth / 2 }
        if style.centerVertically { y += textHeight / 2 }
        if style.outlineThickness > 0 {
            // The outline: the glyphs widened by the outline thickness, under the text.
            let pad = max(1, Int(saturating: style.outlineThickness.rounded()))
            glyphs(s, x: x, baseline: y, scale: scale, pad: pad, color: Self.rgb(style.outlineColor ?? RenderColor()))
        }
        glyphs(s, x: x, baseline: y, scale: scale, pad: 0, color: color)
    }

    /// Draws `s` with its glyphs' bottom row just above `baseline` (below it, upside down,
    /// when flipping), each font pixel a `scale` square grown by `pad` on every side.
    private mutating func glyphs(_ s: String, x: Int, baseline: Int, scale: Int, pad: Int, color: [Int]) {
        var cx = x
        for ch in s {
            for (row, bits) in BitmapFont.glyph(ch).enumerated() {
                let top =
                    flipTextVertically ? baseline + (BitmapFont.height - 1 - row) * scale : baseline - (BitmapFont.height - row) * scale
                for col in 0..<BitmapFont.width where bits & (0x10 >> UInt8(col)) != 0 {
                    let left = cx + col * scale
                    canvas.fill(left - pad, top - pad, left + scale - 1 + pad, top + scale - 1 + pad, color)
                }
            }
            cx += (BitmapFont.width + 1) * scale
        }
    }
}

extension AnnotationOverlayCalculator.Canvas {
    /// A horizontal run `x0…x1` on row `y`, clipped.
    mutating func span(_ y: Int, _ x0: Int, _ x1: Int, _ c: [Int]) { fill(x0, y, x1, y, c) }

    /// OpenCV's filled integer circle: midpoint steps, one horizontal run per octant pair.
    mutating func disc(_ cx: Int, _ cy: Int, _ radius: Int, _ c: [Int]) {
        var err = 0, dx = radius, dy = 0, plus = 1, minus = 2 * radius - 1
        while dx >= dy {
            span(cy - dy, cx - dx, cx + dx, c)
            span(cy + dy, cx - dx, cx + dx, c)
            span(cy - dx, cx - dy, cx + dy, c)
            span(cy + dx, cx - dy, cx + dy, c)
            dy += 1
            err += plus
            plus += 2
            if err > 0 {
                err -= minus
                dx -= 1
                minus -= 2
            }
        }
    }

    /// The part of segment `a`–`b` inside the image, or nil when none is: OpenCV's integer
    /// clipping (an end outside above or below moves to that edge along the segment, then one
    /// outside left or right to that edge; each move truncated toward zero).
    func clip(_ a: (x: Int, y: Int), _ b: (x: Int, y: Int)) -> ((x: Int, y: Int), (x: Int, y: Int))? {
        let right = image.width - 1, bottom = image.height - 1
        guard right >= 0, bottom >= 0 else { return nil }
        func outcode(_ x: Int, _ y: Int) -> Int { (x < 0 ? 1 : 0) | (x > right ? 2 : 0) | (y < 0 ? 4 : 0) | (y > bottom ? 8 : 0) }
        func sideCode(_ x: Int) -> Int { (x < 0 ? 1 : 0) | (x > right ? 2 : 0) }
        var (x1, y1, x2, y2) = (a.x, a.y, b.x, b.y)
        var c1 = outcode(x1, y1), c2 = outcode(x2, y2)
        if c1 & c2 == 0 && c1 | c2 != 0 {
            if c1 & 12 != 0 {
                let edge = c1 < 8 ? 0 : bottom
                x1 += Int(saturating: Double(edge - y1) * Double(x2 - x1) / Double(y2 - y1))
                y1 = edge
                c1 = sideCode(x1)
            }
            if c2 & 12 != 0 {
                let edge = c2 < 8 ? 0 : bottom
                x2 += Int(saturating: Double(edge - y2) * Double(x2 - x1) / Double(y2 - y1))
                y2 = edge
                c2 = sideCode(x2)
            }
            if c1 & c2 == 0 && c1 | c2 != 0 {
                if c1 != 0 {
                    let edge = c1 == 1 ? 0 : right
                    y1 += Int(saturating: Double(edge - x1) * Double(y2 - y1) / Double(x2 - x1))
                    x1 = edge
                    c1 = 0
                }
                if c2 != 0 {
                    let edge = c2 == 1 ? 0 : right
                    y2 += Int(saturating: Double(edge - x2) * Double(y2 - y1) / Double(x2 - x1))
                    x2 = edge
                    c2 = 0
                }
            }
        }
        guard c1 | c2 == 0 else { return nil }
        return ((x: x1, y: y1), (x: x2, y: y2))
    }

    /// The pixels of OpenCV's 8-connected line, walked from the left end.
    func linePixels(_ a: (x: Int, y: Int), _ b: (x: Int, y: Int), connectivity: Int = 8) -> [(x: Int, y: Int)] {
        // OpenCV clips the segment to the image first and walks the clipped one, so the
        // pixels inside are those of the clipped segment.
        guard let (a, b) = clip(a, b) else { return [] }
        var p = b.x < a.x ? b : a
        let q = b.x < a.x ? a : b
        var dx = q.x - p.x, dy = q.y - p.y
        let sy = dy < 0 ? -1 : 1
        dy = abs(dy)
        let steep = dy > dx
        if steep { swap(&dx, &dy) }
        var out: [(x: Int, y: Int)] = []
        if connectivity == 4 {
            // Along the longer axis while the error is ≥ 0, else one step across.
            var err = 0
            out.reserveCapacity(dx + dy + 1)
            for _ in 0...(dx + dy) {
                out.append(p)
                let across = err < 0
                err += across ? 2 * dx : -2 * dy
                if across == steep { p.x += 1 } else { p.y += sy }
            }
            return out
        }
        var err = dx - 2 * dy
        out.reserveCapacity(dx + 1)
        for _ in 0...dx {
            out.append(p)
            let minor = err < 0
            err += -2 * dy + (minor ? 2 * dx : 0)
            if steep {
                p.y += sy
                if minor { p.x += 1 }
            } else {
                p.x += 1
                if minor { p.y += sy }
            }
        }
        return out
    }

    /// A line of `thickness` (see `AnnotationRenderer` for the coverage rules).
    mutating func line(_ a: (x: Int, y: Int), _ b: (x: Int, y: Int), _ thickness: Int, connectivity: Int = 8, _ c: [Int]) {
        if thickness <= 1 {
            for p in linePixels(a, b, connectivity: connectivity) { put(p.x, p.y, c) }
            return
        }
        let half = (thickness + 1) / 2
        let vx = Double(b.x - a.x), vy = Double(b.y - a.y)
        let length = (vx * vx + vy * vy).squareRoot()
        if length > 0 {
            // Row by row, the pixels with `along` in [−½, length + ½] and |across| ≤ half + ½
            // form one run: solve both linear conditions for x.
            let ux = vx / length, uy = vy / length, reach = Double(half) + 0.5
            let top = max(0, min(a.y, b.y) - half - 1), bottom = min(image.height - 1, max(a.y, b.y) + half + 1)
            if top <= bottom {
                for y in top...bottom {
                    let py = Double(y - a.y)
                    var lo = -Double.infinity, hi = Double.infinity
                    // along = ux·px + uy·py; across = ux·py − uy·px.
                    for (k, c, low, high) in [(ux, uy * py, -0.5, length + 0.5), (-uy, ux * py, -reach, reach)] {
                        if k == 0 {
                            if c < low || c > high { lo = .infinity }
                            continue
                        }
                        let e0 = (low - c) / k, e1 = (high - c) / k
                        lo = max(lo, min(e0, e1))
                        hi = min(hi, max(e0, e1))
                    }
                    guard lo <= hi else { continue }
                    span(y, a.x + Int(saturating: lo.rounded(.up)), a.x + Int(saturating: hi.rounded(.down)), c)
                }
            }
        }
        disc(a.x, a.y, half, c)
        disc(b.x, b.y, half, c)
    }

    /// OpenCV's rectangle outline from (x0, y0) to (x1, y1) inclusive.
    mutating func rectangle(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ thickness: Int, _ c: [Int]) {
        let corners = [(x: x0, y: y0), (x: x1, y: y0), (x: x1, y: y1), (x: x0, y: y1)]
        for i in 0..<4 { line(corners[i], corners[(i + 1) % 4], thickness, c) }
    }

    /// MediaPipe's rounded rectangle outline between corners (x0, y0) and (x1, y1): four
    /// sides stopping `radius` short of each corner (`connectivity` for thin sides) and a
    /// quarter-circle arc in each corner. OpenCV draws thin arcs 8-connected whatever the
    /// line type asks, close to what this does (see `AnnotationRenderer`).
    mutating func roundedRectangle(
        _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ radius: Int, _ thickness: Int, connectivity: Int, _ c: [Int]
    ) {
        let r = radius
        line((x0 + r, y0), (x1 - r, y0), thickness, connectivity: connectivity, c)
        line((x1, y0 + r), (x1, y1 - r), thickness, connectivity: connectivity, c)
        line((x0 + r, y1), (x1 - r, y1), thickness, connectivity: connectivity, c)
        line((x0, y0 + r), (x0, y1 - r), thickness, connectivity: connectivity, c)
        let corners: [((x: Int, y: Int), Double)] = [
            ((x0 + r, y0 + r), 180), ((x1 - r, y0 + r), 270), ((x1 - r, y1 - r), 0), ((x0 + r, y1 - r), 90),
        ]
        for (centre, turn) in corners {
            let arc = AnnotationRenderer.arcPoints(centre: centre, radius: r, degrees: turn, start: 0, end: 90)
            for (p, q) in zip(arc, arc.dropFirst()) { line(p, q, thickness, c) }
        }
    }

    /// A filled rounded rectangle: the two crossing bands and a disc in each corner.
    /// (MediaPipe hands OpenCV a thickness it rejects here, so this is FrameFlow's reading.)
    mutating func fillRoundedRectangle(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ radius: Int, _ c: [Int]) {
        guard x1 >= x0, y1 >= y0 else { return }
        let r = max(0, min(radius, (x1 - x0) / 2, (y1 - y0) / 2))
        fill(x0 + r, y0, x1 - r, y1, c)
        fill(x0, y0 + r, x1, y1 - r, c)
        for (x, y) in [(x0 + r, y0 + r), (x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r)] { disc(x, y, r, c) }
    }

    /// A convex polygon: each row filled between its edges (pixel centres inside), and the
    /// edges drawn as thin lines, as OpenCV includes them.
    mutating func fillConvexPolygon(_ pts: [(x: Int, y: Int)], _ c: [Int]) {
        guard !pts.isEmpty else { return }
        let minY = max(0, pts.map(\.y).min()!), maxY = min(image.height - 1, pts.map(\.y).max()!)
        if minY <= maxY {
            for y in minY...maxY {
                var lo = Double.infinity, hi = -Double.infinity
                for i in pts.indices {
                    let p = pts[i], q = pts[(i + 1) % pts.count]
                    guard (p.y <= y && y <= q.y) || (q.y <= y && y <= p.y) else { continue }
                    if p.y == q.y {
                        lo = min(lo, Double(min(p.x, q.x)))
                        hi = max(hi, Double(max(p.x, q.x)))
                    } else {
                        let x = Double(p.x) + Double(y - p.y) * Double(q.x - p.x) / Double(q.y - p.y)
                        lo = min(lo, x)
                        hi = max(hi, x)
                    }
                }
                if lo <= hi { span(y, Int(saturating: lo.rounded(.up)), Int(saturating: hi.rounded(.down)), c) }
            }
        }
        for i in pts.indices { line(pts[i], pts[(i + 1) % pts.count], 1, c) }
    }

    /// MediaPipe's gradient line: OpenCV's 4-connected walk from `a` to `b` (not reordered
    /// left to right, as MediaPipe's iterator is not), each step a
    /// `thickness` square (from the pixel right and down) in the colour mixed
    /// `i / count` of the way from `c1` to `c2`.
    mutating func gradientLine(_ a: (x: Int, y: Int), _ b: (x: Int, y: Int), _ thickness: Int, _ c1: [Int], _ c2: [Int]) {
        // OpenCV's iterator walks the part inside the image (and blends along that part).
        guard let (a, b) = clip(a, b) else { return }
        // OpenCV's 4-connected walk: along the longer axis while the error is ≥ 0, else one
        // step across; dx + dy + 1 pixels from `a` to `b`.
        var major = abs(b.x - a.x), minor = abs(b.y - a.y)
        let sx = b.x < a.x ? -1 : 1, sy = b.y < a.y ? -1 : 1
        let steep = minor > major
        if steep { swap(&major, &minor) }
        let count = major + minor + 1
        var p = a
        var err = 0
        for i in 0..<count {
            let alpha = Double(i) / Double(count)
            let mixed = (0..<3).map { Int(saturating: (Double(c1[$0]) * (1 - alpha) + Double(c2[$0]) * alpha).rounded(.toNearestOrEven)) }
            fill(p.x, p.y, p.x + thickness - 1, p.y + thickness - 1, mixed)
            let across = err < 0
            err += across ? 2 * major : -2 * minor
            if across == steep { p.x += sx } else { p.y += sy }
        }
    }
}
