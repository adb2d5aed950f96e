import FrameFlow

/// The weighted orthogonal Procrustes problem MediaPipe's face geometry pipeline solves
/// (`procrustes_solver.cc`, after D. Akca, "Generalized Procrustes analysis and its
/// applications in photogrammetry", 2003, §2.4): the scale s, rotation R (det +1, no
/// reflection) and translation t minimising Σ wᵢ ‖s R aᵢ + t − bᵢ‖² for source points aᵢ,
/// target points bᵢ and weights wᵢ ≥ 0.
///
/// With c the weighted centroid of the sources, R maximises Σ wᵢ bᵢ · R (aᵢ − c); it is found
/// here with Horn's unit-quaternion method (the eigenvector of the largest eigenvalue of a
/// symmetric 4×4 matrix, by Jacobi rotations), which gives the same rotation as MediaPipe's
/// SVD with its reflection fix whenever the optimum is unique. Then, as MediaPipe does,
/// s = Σ wᵢ bᵢ · R (aᵢ − c) / Σ wᵢ aᵢ · (aᵢ − c) and t = Σ wᵢ (bᵢ − s R aᵢ) / Σ wᵢ.
/// Computed in Double.
///
/// Degenerate input throws `GraphError(.calculatorFailed)` with MediaPipe's checks: no points,
/// mismatched counts, negative or non-finite weights, a total weight ≤ 1e-9, a design matrix
/// of norm ≤ 1e-9 (all weighted points at one place), a scale ≤ 1e-9.
enum ProcrustesSolver {
    /// A similarity transform: `rotation` (row-major 3×3, a proper rotation), `scale` and
    /// `translation`; a point p maps to scale · rotation · p + translation.
    struct Transform: Equatable {
        var rotation: [Double]
        var scale: Double
        var translation: SIMD3<Double>

        /// scale · rotation, row-major.
        var rotationAndScale: [Double] { rotation.map { $0 * scale } }

        /// The 4×4 row-major matrix [s R | t; 0 0 0 1].
        var matrix: [Double] {
            let m = rotationAndScale
            return [m[0], m[1], m[2], translation.x, m[3], m[4], m[5], translation.y, m[6], m[7], m[8], translation.z, 0, 0, 0, 1]
        }

        /// `p` transformed.
        func apply(_ p: SIMD3<Double>) -> SIMD3<Double> { scale * ProcrustesSolver.multiply(rotation, p) + translation }

        /// The point this transform maps to `q`.
        func unapply(_ q: SIMD3<Double>) -> SIMD3<Double> {
            // Rᵀ (q − t) / s: R is orthonormal.
            let d = q - translation
            let r = rotation
            return SIMD3(
                r[0] * d.x + r[3] * d.y + r[6] * d.z, r[1] * d.x + r[4] * d.y + r[7] * d.z, r[2] * d.x + r[5] * d.y + r[8] * d.z) / scale
        }
    }

    /// MediaPipe's margin for "too small".
    static let epsilon = 1e-9

    /// The transform mapping `source` onto `target` best in the weighted least-squares sense.
    static func solve(source: [SIMD3<Double>], target: [SIMD3<Double>], weights: [Double]) throws -> Transform {
        func fail(_ m: String) -> GraphError { GraphError(.calculatorFailed, "Procrustes fit: \(m)") }
        guard !source.isEmpty else { throw fail("no points") }
        guard source.count == target.count, weights.count == source.count else {
            throw fail("\(source.count) source points, \(target.count) target points, \(weights.count) weights")
        }
        var total = 0.0
        for (i, w) in weights.enumerated() {
            guard w.isFinite, w >= 0 else { throw fail("weight \(i) is \(w): weights must be finite and ≥ 0") }
            total += w
        }
        guard total > epsilon else { throw fail("the weights add up to \(total)") }

        var center = SIMD3<Double>(repeating: 0)
        for (a, w) in zip(source, weights) where w > 0 { center += w * a }
        center /= total

        // S = Σ wᵢ (aᵢ − c) bᵢᵀ (row-major), Horn's correlation of centred sources and targets.
        var s = [Double](repeating: 0, count: 9)
        for i in source.indices where weights[i] > 0 {
            let a = source[i] - center, b = target[i], w = weights[i]
            for r in 0..<3 { for c in 0..<3 { s[r * 3 + c] += w * a[r] * b[c] } }
        }
        guard s.allSatisfy(\.isFinite) else { throw fail("the points are not finite") }
        let norm = s.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard norm > epsilon else { throw fail("the design matrix's norm is \(norm): the weighted points are all in one place") }

        let rotation = optimalRotation(s)
        var numerator = 0.0, denominator = 0.0
        for i in source.indices where weights[i] > 0 {
            let a = source[i] - center
            numerator += weights[i] * (multiply(rotation, a) * target[i]).sum()
            denominator += weights[i] * (a * source[i]).sum()
        }
        guard denominator > epsilon else { throw fail("the scale's denominator is \(denominator)") }
        let scale = numerator / denominator
        guard scale > epsilon else { throw fail("the scale is \(scale)") }

        var translation = SIMD3<Double>(repeating: 0)
        for i in source.indices where weights[i] > 0 {
            translation += weights[i] * (target[i] - scale * multiply(rotation, source[i]))
        }
        return Transform(rotation: rotation, scale: scale, translation: translation / total)
    }

    /// `m` (row-major 3×3) times `v`.
    static func multiply(_ m: [Double], _ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z, m[6] * v.x + m[7] * v.y + m[8] * v.z)
    }

    /// The proper rotation R maximising Σ bᵢ · R aᵢ given S = Σ aᵢ bᵢᵀ (Horn 1987).
    static func optimalRotation(_ s: [Double]) -> [Double] {
        let (xx, xy, xz) = (s[0], s[1], s[2])
        let (yx, yy, yz) = (s[3], s[4], s[5])
        let (zx, zy, zz) = (s[6], s[7], s[8])
        let n: [Double] = [
            xx + yy + zz, yz - zy, zx - xz, xy - yx,
            yz - zy, xx - yy - zz, xy + yx, zx + xz,
            zx - xz, xy + yx, -xx + yy - zz, yz + zy,
            xy - yx, zx + xz, yz + zy, -xx - yy + zz,
        ]
        let q = largestEigenvector4(n)
        let (w, x, y, z) = (q[0], q[1], q[2], q[3])
        return [
            w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (y * x + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
            2 * (z * x - w * y), 2 * (z * y + w * x), w * w - x * x - y * y + z * z,
        ]
    }

    /// The unit eigenvector of the largest eigenvalue of the symmetric 4×4 `m` (row-major),
    /// by cyclic Jacobi rotations (converges in a handful of sweeps; capped at 50).
    static func largestEigenvector4(_ m: [Double]) -> [Double] {
        var a = m
        var v: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        let scale = max(a.reduce(0) { max($0, abs($1)) }, .leastNormalMagnitude)
        for _ in 0..<50 {
            var off = 0.0
            for p in 0..<3 { for q in (p + 1)..<4 { off += a[p * 4 + q] * a[p * 4 + q] } }
            if off.squareRoot() <= 1e-15 * scale { break }
            for p in 0..<3 {
                for q in (p + 1)..<4 {
                    let apq = a[p * 4 + q]
                    if abs(apq) <= 1e-300 { continue }
                    let theta = (a[q * 4 + q] - a[p * 4 + p]) / (2 * apq)
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot(), sn = t * c
                    // A ← Jᵀ A J with J the rotation in the (p, q) plane.
                    for k in 0..<4 {
                        let akp = a[k * 4 + p], akq = a[k * 4 + q]
                        a[k * 4 + p] = c * akp - sn * akq
                        a[k * 4 + q] = sn * akp + c * akq
                    }
                    for k in 0..<4 {
                        let apk = a[p * 4 + k], aqk = a[q * 4 + k]
                        a[p * 4 + k] = c * apk - sn * aqk
                        a[q * 4 + k] = sn * apk + c * aqk
                    }
                    for k in 0..<4 {
                        let vkp = v[k * 4 + p], vkq = v[k * 4 + q]
                        v[k * 4 + p] = c * vkp - sn * vkq
                        v[k * 4 + q] = sn * vkp + c * vkq
                    }
                }
            }
        }
        let best = (0..<4).max { a[$0 * 4 + $0] < a[$1 * 4 + $1] } ?? 0
        var q = (0..<4).map { v[$0 * 4 + best] }
        let len = q.reduce(0) { $0 + $1 * $1 }.squareRoot()
        q = q.map { $0 / len }
        return q
    }
}
