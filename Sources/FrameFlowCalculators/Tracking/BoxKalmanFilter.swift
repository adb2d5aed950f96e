/// The constant-velocity Kalman filter SORT, DeepSORT and ByteTrack run on a box: the state is
/// (centre x, centre y, aspect w/h, height) and their velocities, one frame per step; the
/// measurement is the box's (x, y, a, h). Noise scales with the box's height (position 1/20,
/// velocity 1/160 of it; the aspect's is fixed), as in supervision's ByteTrack, so that a
/// track in pixels behaves the same at any distance from the camera.
///
/// `single` marks a mean whose numbers are 32-bit floats and whose noise terms the reference
/// computes in 32-bit arithmetic (a track's first frame, before any prediction); it changes
/// results only in the last bits, but keeps FrameFlow's tracks equal to the reference's.
struct BoxKalmanFilter: Sendable {
    /// The state: x, y, a, h, vx, vy, va, vh.
    var mean: [Double]
    /// The state's 8 × 8 covariance, row-major.
    var covariance: [Double]
    /// Whether `mean` holds 32-bit values (see the type's notes).
    var single: Bool

    static let positionWeight = 1.0 / 20
    static let velocityWeight = 1.0 / 160

    /// A filter started at the measurement `xyah` (32-bit values), velocities 0.
    init(singleMeasurement xyah: [Float]) {
        mean = xyah.map(Double.init) + [0, 0, 0, 0]
        let h = xyah[3]
        // 2 × 1/20 and 10 × 1/160 multiply a 32-bit height in 32-bit arithmetic.
        let p = Double(Float(2 * Self.positionWeight) * h), v = Double(Float(10 * Self.velocityWeight) * h)
        let std = [p, p, 1e-2, p, v, v, 1e-5, v]
        covariance = Self.diagonal(std.map { $0 * $0 })
        single = true
    }

    static func diagonal(_ d: [Double]) -> [Double] {
        var m = [Double](repeating: 0, count: d.count * d.count)
        for i in 0..<d.count { m[i * d.count + i] = d[i] }
        return m
    }

    /// The state one frame later. `singleNoise`: the reference computes this step's noise from
    /// a 32-bit height (all tracks predicted together had 32-bit means).
    mutating func predict(singleNoise: Bool) {
        let h = mean[3]
        let pos: Double, vel: Double
        if singleNoise {
            let p = Float(Self.positionWeight) * Float(h), v = Float(Self.velocityWeight) * Float(h)
            (pos, vel) = (Double(p * p), Double(v * v))
        } else {
            (pos, vel) = ((Self.positionWeight * h) * (Self.positionWeight * h), (Self.velocityWeight * h) * (Self.velocityWeight * h))
        }
        let aPos = singleNoise ? Double(Float(1e-2) * Float(1e-2)) : 1e-2 * 1e-2
        let aVel = singleNoise ? Double(Float(1e-5) * Float(1e-5)) : 1e-5 * 1e-5
        let q = [pos, pos, aPos, pos, vel, vel, aVel, vel]
        for i in 0..<4 { mean[i] += mean[i + 4] }
        // F P Fᵀ with F = [[I, I], [0, I]]: rows then columns gain their velocity block.
        var p = covariance
        for r in 0..<4 { for c in 0..<8 { p[r * 8 + c] += covariance[(r + 4) * 8 + c] } }
        var fp = p
        for r in 0..<8 { for c in 0..<4 { fp[r * 8 + c] = p[r * 8 + c] + p[r * 8 + c + 4] } }
        for i in 0..<8 { fp[i * 8 + i] += q[i] }
        covariance = fp
        single = false
    }

    /// The state corrected by the measurement `xyah` (a 32-bit box's x, y, a, h).
    mutating func update(_ xyah: [Float]) {
        let z = xyah.map(Double.init)
        let h = mean[3]
        let sp = single ? Double(Float(Self.positionWeight) * Float(h)) : Self.positionWeight * h
        let r = [sp * sp, sp * sp, 1e-1 * 1e-1, sp * sp]
        // S = H P Hᵀ + R (the top-left 4 × 4 block), B = P Hᵀ (8 × 4).
        var s = [Double](repeating: 0, count: 16)
        for i in 0..<4 { for j in 0..<4 { s[i * 4 + j] = covariance[i * 8 + j] } }
        for i in 0..<4 { s[i * 4 + i] += r[i] }
        guard let l = Self.cholesky4(s) else { return }
        // K = B S⁻¹: solve S Kᵀ = Bᵀ column by column with the Cholesky factor.
        var k = [Double](repeating: 0, count: 32)
        for row in 0..<8 {
            var b = (0..<4).map { covariance[row * 8 + $0] }
            for i in 0..<4 {
                var t = b[i]
                for j in 0..<i { t -= l[i * 4 + j] * b[j] }
                b[i] = t / l[i * 4 + i]
            }
            for i in stride(from: 3, through: 0, by: -1) {
                var t = b[i]
                for j in (i + 1)..<4 { t -= l[j * 4 + i] * b[j] }
                b[i] = t / l[i * 4 + i]
            }
            for i in 0..<4 { k[row * 4 + i] = b[i] }
        }
        let innovation = (0..<4).map { z[$0] - mean[$0] }
        for row in 0..<8 {
            var t = 0.0
            for i in 0..<4 { t += k[row * 4 + i] * innovation[i] }
            mean[row] += t
        }
        // P − K S Kᵀ.
        var ks = [Double](repeating: 0, count: 32)
        for row in 0..<8 { for j in 0..<4 { for i in 0..<4 { ks[row * 4 + j] += k[row * 4 + i] * s[i * 4 + j] } } }
        for a in 0..<8 {
            for b in 0..<8 {
                var t = 0.0
                for j in 0..<4 { t += ks[a * 4 + j] * k[b * 4 + j] }
                covariance[a * 8 + b] -= t
            }
        }
        single = false
    }

    /// The lower Cholesky factor of a 4 × 4 symmetric matrix; nil when it is not positive definite.
    static func cholesky4(_ a: [Double]) -> [Double]? {
        var l = [Double](repeating: 0, count: 16)
        for i in 0..<4 {
            for j in 0...i {
                var t = a[i * 4 + j]
                for k in 0..<j { t -= l[i * 4 + k] * l[j * 4 + k] }
                if i == j {
                    guard t > 0, t.isFinite else { return nil }
                    l[i * 4 + i] = t.squareRoot()
                } else {
                    l[i * 4 + j] = t / l[j * 4 + j]
                }
            }
        }
        return l
    }
}
