import Foundation

/// MediaPipe's projection matrix (`std::array<float, 16>` on `MATRIX` and
/// `PROJECTION_MATRIX` streams): a 4×4 row-major matrix that maps a point in a tensor's
/// normalized coordinates (`[0, 1]` over the tensor's width and height) to the image's
/// normalized coordinates.
///
/// Points are 2D: `(x, y)` is taken as `(x, y, 0, 1)`, so only elements 0, 1, 3 (first row)
/// and 4, 5, 7 (second row) act on them.
///
/// ```swift
/// let m = ProjectionMatrix.rotatedSubRect(
///     centerX: 50, centerY: 40, width: 100, height: 80, rotation: 0, imageWidth: 100, imageHeight: 80)
/// m.apply(x: 0.5, y: 0.5)   // (0.5, 0.5): the sub-rectangle is the whole image
/// ```
public struct ProjectionMatrix: Sendable, Hashable, Codable {
    /// The 16 elements, row by row.
    public private(set) var values: [Float]

    /// A matrix from its 16 row-major elements; fails unless there are exactly 16.
    public init?(_ values: [Float]) {
        guard values.count == 16 else { return nil }
        self.values = values
    }

    /// The identity: tensor and image coordinates coincide.
    public static let identity = ProjectionMatrix(unchecked: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])

    private init(unchecked values: [Float]) { self.values = values }

    public init(from decoder: any Decoder) throws {
        let v = try decoder.singleValueContainer().decode([Float].self)
        guard v.count == 16 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a projection matrix has 16 values, not \(v.count)"))
        }
        values = v
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(values)
    }

    /// Element at `row`, `column` (0-based).
    public subscript(row: Int, column: Int) -> Float { values[row * 4 + column] }

    /// The point `(x, y)` mapped by the matrix (computed in `Double` from the `Float` elements).
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        let m = values.map(Double.init)
        return (m[0] * x + m[1] * y + m[3], m[4] * x + m[5] * y + m[7])
    }

    /// The point mapped by the matrix.
    public func apply(_ p: Point) -> Point {
        let q = apply(x: p.x, y: p.y)
        return Point(x: q.x, y: q.y)
    }

    /// `self · other`: applies `other` first, then `self`.
    public func multiplied(by other: ProjectionMatrix) -> ProjectionMatrix {
        var r = [Float](repeating: 0, count: 16)
        for i in 0..<4 {
            for j in 0..<4 {
                var s = 0.0
                for k in 0..<4 { s += Double(values[i * 4 + k]) * Double(other.values[k * 4 + j]) }
                r[i * 4 + j] = Float(s)
            }
        }
        return ProjectionMatrix(unchecked: r)
    }

    /// The inverse (image to tensor coordinates), or `nil` for a singular matrix.
    /// Gauss–Jordan elimination with partial pivoting, in `Double`.
    public var inverse: ProjectionMatrix? {
        var a = values.map(Double.init)
        var inv: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        for col in 0..<4 {
            var pivot = col
            for r in col..<4 where abs(a[r * 4 + col]) > abs(a[pivot * 4 + col]) { pivot = r }
            guard abs(a[pivot * 4 + col]) > 1e-12 else { return nil }
            if pivot != col {
                for k in 0..<4 {
                    a.swapAt(col * 4 + k, pivot * 4 + k)
                    inv.swapAt(col * 4 + k, pivot * 4 + k)
                }
            }
            let d = a[col * 4 + col]
            for k in 0..<4 {
                a[col * 4 + k] /= d
                inv[col * 4 + k] /= d
            }
            for r in 0..<4 where r != col {
                let f = a[r * 4 + col]
                guard f != 0 else { continue }
                for k in 0..<4 {
                    a[r * 4 + k] -= f * a[col * 4 + k]
                    inv[r * 4 + k] -= f * inv[col * 4 + k]
                }
            }
        }
        return ProjectionMatrix(unchecked: inv.map(Float.init))
    }

    /// The matrix MediaPipe's `ImageToTensorCalculator` gives on `MATRIX`: it maps the
    /// normalized coordinates of a rotated sub-rectangle (centre, size in pixels, rotation
    /// in radians, clockwise on screen) of an `imageWidth` × `imageHeight` image to the
    /// image's normalized coordinates. `(0, 0)` goes to the sub-rectangle's rotated top-left
    /// corner, `(1, 1)` to its bottom-right; `flipHorizontally` mirrors the sub-rectangle's x.
    public static func rotatedSubRect(
        centerX: Double, centerY: Double, width: Double, height: Double, rotation: Double,
        imageWidth: Int, imageHeight: Int, flipHorizontally: Bool = false
    ) -> ProjectionMatrix {
        let a = width, b = height, flip = flipHorizontally ? -1.0 : 1.0
        let c = cos(rotation), d = sin(rotation)
        let gx = 1 / Double(imageWidth), gy = 1 / Double(imageHeight)
        // Column 0: the sub-rectangle's x axis (its width, rotated); column 1: its y axis;
        // column 3: where its top-left corner lands. z keeps the width's scale, as MediaPipe's does.
        let m: [Double] = [
            a * c * flip * gx, -b * d * gx, 0, (-0.5 * a * c * flip + 0.5 * b * d + centerX) * gx,
            a * d * flip * gy, b * c * gy, 0, (-0.5 * b * c - 0.5 * a * d * flip + centerY) * gy,
            0, 0, a * gx, 0,
            0, 0, 0, 1,
        ]
        return ProjectionMatrix(unchecked: m.map(Float.init))
    }
}
