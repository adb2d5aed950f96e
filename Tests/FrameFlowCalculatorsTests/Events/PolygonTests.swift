import FrameFlow
import Foundation
import Testing

@testable import FrameFlowCalculators

@Suite struct PolygonTests {
    /// A concave "U" (hand-drawn on squared paper): its notch is outside, its arms inside.
    ///   (0,0)──(1,0)  (2,0)──(3,0)
    ///     │  arm │ notch │ arm │
    ///     │     (1,2)──(2,2)   │
    ///   (0,3)────────────────(3,3)
    let u = Polygon([(0, 0), (1, 0), (1, 2), (2, 2), (2, 0), (3, 0), (3, 3), (0, 3)])

    @Test func pointsInAConcavePolygon() {
        // Hand-checked by where each point lies on the drawing above.
        let cases: [(Double, Double, Bool)] = [
            (0.5, 1, true), (2.5, 1, true), (1.5, 1, false), (1.5, 2.5, true), (1.5, 1.99, false),
            (-0.1, 1, false), (3.1, 1, false), (1.5, 3.1, false), (0.5, 2.9, true),
        ]
        for (x, y, inside) in cases { #expect(u.contains(x: x, y: y) == inside, "(\(x), \(y))") }
        // Shoelace area by hand: 3 × 3 − 1 × 2 = 7 (clockwise on the image: positive).
        #expect(u.signedArea == 7)
        #expect(Polygon(u.points.reversed()).signedArea == -7)
    }

    /// Edges are half-open: two squares sharing the edge x = 1 never both hold a point on it.
    @Test func sharedEdgesBelongToOneSide() {
        let left = Polygon([(0, 0), (1, 0), (1, 1), (0, 1)])
        let right = Polygon([(1, 0), (2, 0), (2, 1), (1, 1)])
        for y in stride(from: 0.05, to: 1, by: 0.1) {
            #expect(left.contains(x: 1, y: y) != right.contains(x: 1, y: y), "y \(y)")
        }
    }

    /// Against a second, independent test: the winding number (sum of signed angles), on a
    /// random star-shaped polygon and random points.
    @Test func agreesWithTheWindingNumber() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let n = Int.random(in: 3...12, using: &rng)
            let pts: [(x: Double, y: Double)] = (0..<n).map { i in
                let a = Double(i) / Double(n) * 2 * Double.pi
                let r = Double.random(in: 0.2...1, using: &rng)
                return (r * cos(a), r * sin(a))
            }
            let p = Polygon(pts)
            for _ in 0..<200 {
                let x = Double.random(in: -1.1...1.1, using: &rng), y = Double.random(in: -1.1...1.1, using: &rng)
                var winding = 0.0
                for i in 0..<n {
                    let a = pts[i], b = pts[(i + 1) % n]
                    winding += atan2((a.x - x) * (b.y - y) - (a.y - y) * (b.x - x), (a.x - x) * (b.x - x) + (a.y - y) * (b.y - y))
                }
                let inside = abs(winding) > Double.pi
                // Points within 1e-9 of an edge may go either way; random ones never are.
                #expect(p.contains(x: x, y: y) == inside, "(\(x), \(y)) in \(pts)")
            }
        }
    }

    /// The side of A→B: positive on its right as seen on the image (y down).
    @Test func sideOfALine() {
        // A line pointing right (0,0)→(10,0): below it (y = 5) is its right.
        #expect(sideOfLine(ax: 0, ay: 0, bx: 10, by: 0, px: 3, py: 5) == 50)
        #expect(sideOfLine(ax: 0, ay: 0, bx: 10, by: 0, px: 3, py: -5) == -50)
        #expect(sideOfLine(ax: 0, ay: 0, bx: 10, by: 0, px: 30, py: 0) == 0)
        // Pointing down (0,0)→(0,10): the left of the image (x < 0) is its right.
        #expect(sideOfLine(ax: 0, ay: 0, bx: 0, by: 10, px: -2, py: 5) > 0)
        #expect(segmentsIntersect((-1, 5), (1, 5), (0, 0), (0, 10)))
        #expect(!segmentsIntersect((-1, 11), (1, 11), (0, 0), (0, 10)))
    }
}
