/// A polygon in one unit (pixels or fractions of the frame), for zones and masks.
///
/// `contains` is the even-odd (crossing-number) rule: a horizontal ray from the point to the
/// right crosses the boundary an odd number of times. Edges are half-open (a point on a
/// left or bottom edge is inside, on a right or top edge outside), so two zones sharing an edge
/// never both hold a point.
public struct Polygon: Sendable, Hashable {
    /// The corners, in order; the last joins the first.
    public var points: [(x: Double, y: Double)] {
        zip(xs, ys).map { ($0, $1) }
    }
    private var xs: [Double]
    private var ys: [Double]

    /// The polygon with these corners.
    public init(_ points: [(x: Double, y: Double)]) {
        xs = points.map(\.x)
        ys = points.map(\.y)
    }

    /// The settings' points, scaled by (`width`, `height`) when `units` is normalized and
    /// `scale` is true (the objects are in pixels).
    init(_ points: [EventSettings.Point], units: String, width: Double, height: Double, scale: Bool) {
        let sx = scale && units == "normalized" ? width : 1
        let sy = scale && units == "normalized" ? height : 1
        self.init(points.map { ($0.x * sx, $0.y * sy) })
    }

    /// Whether (`x`, `y`) is inside (even-odd rule).
    public func contains(x: Double, y: Double) -> Bool {
        var inside = false
        var j = xs.count - 1
        for i in 0..<xs.count {
            let (xi, yi, xj, yj) = (xs[i], ys[i], xs[j], ys[j])
            if (yi > y) != (yj > y) {
                let crossX = xi + (y - yi) * (xj - xi) / (yj - yi)
                if x < crossX { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// The shoelace area: positive when the corners go clockwise on the image (y down).
    public var signedArea: Double {
        var sum = 0.0
        var j = xs.count - 1
        for i in 0..<xs.count {
            sum += xs[j] * ys[i] - xs[i] * ys[j]
            j = i
        }
        return sum / 2
    }
}

/// Which side of the line A→B the point P is on: the sign of the cross product
/// (B − A) × (P − A); positive is the right of A→B as seen on the image (y down), negative the
/// left, 0 on the line.
@inline(__always)
func sideOfLine(ax: Double, ay: Double, bx: Double, by: Double, px: Double, py: Double) -> Double {
    (bx - ax) * (py - ay) - (by - ay) * (px - ax)
}

/// Whether the segments P→Q and A→B meet (touching counts).
func segmentsIntersect(
    _ p: (x: Double, y: Double), _ q: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)
) -> Bool {
    let d1 = sideOfLine(ax: a.x, ay: a.y, bx: b.x, by: b.y, px: p.x, py: p.y)
    let d2 = sideOfLine(ax: a.x, ay: a.y, bx: b.x, by: b.y, px: q.x, py: q.y)
    let d3 = sideOfLine(ax: p.x, ay: p.y, bx: q.x, by: q.y, px: a.x, py: a.y)
    let d4 = sideOfLine(ax: p.x, ay: p.y, bx: q.x, by: q.y, px: b.x, py: b.y)
    return (d1 * d2 <= 0) && (d3 * d4 <= 0)
}
