import Foundation
import FrameFlow
import Testing

@testable import FrameFlowML

/// `ProcrustesSolver` against the formula: target points made from source points by a known
/// scale, rotation (Rodrigues' formula) and translation give those back; zero-weight points
/// do not count; a mirror image still gives a proper rotation; degenerate input throws.
@Suite struct ProcrustesSolverTests {
    /// The rotation by `angle` about the unit `axis`, row-major (Rodrigues).
    static func rotation(axis: SIMD3<Double>, angle: Double) -> [Double] {
        let k = axis / (axis * axis).sum().squareRoot()
        let (c, s, t) = (cos(angle), sin(angle), 1 - cos(angle))
        return [
            t * k.x * k.x + c, t * k.x * k.y - s * k.z, t * k.x * k.z + s * k.y,
            t * k.x * k.y + s * k.z, t * k.y * k.y + c, t * k.y * k.z - s * k.x,
            t * k.x * k.z - s * k.y, t * k.y * k.z + s * k.x, t * k.z * k.z + c,
        ]
    }

    /// Deterministic points spread over a box (a simple LCG, no Foundation randomness).
    static func points(_ n: Int, seed: UInt64) -> [SIMD3<Double>] {
        var state = seed
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 20 - 10
        }
        return (0..<n).map { _ in SIMD3(next(), next(), next()) }
    }

    @Test(arguments: [
        (SIMD3<Double>(0, 0, 1), 0.3, 1.0), (SIMD3<Double>(1, 2, 3), 2.9, 2.5), (SIMD3<Double>(-1, 0.5, 0.2), .pi, 0.04),
        (SIMD3<Double>(0, 1, 0), 0.0, 7.0), (SIMD3<Double>(1, 1, 1), -1.7, 1e-3),
    ])
    func recoversAKnownSimilarity(axis: SIMD3<Double>, angle: Double, scale: Double) throws {
        let r = Self.rotation(axis: axis, angle: angle)
        let t = SIMD3<Double>(3, -40, 12.5)
        let source = Self.points(30, seed: 7)
        let target = source.map { scale * ProcrustesSolver.multiply(r, $0) + t }
        let weights = (0..<30).map { Double($0 % 4) * 0.25 + ($0 == 3 ? 0 : 0.01) }
        let fit = try ProcrustesSolver.solve(source: source, target: target, weights: weights)
        #expect(abs(fit.scale - scale) <= 1e-9 * scale, "scale \(fit.scale)")
        for i in 0..<9 { #expect(abs(fit.rotation[i] - r[i]) <= 1e-9, "R[\(i)] \(fit.rotation[i]) vs \(r[i])") }
        for k in 0..<3 { #expect(abs(fit.translation[k] - t[k]) <= 1e-9 * 40) }
        let m = fit.matrix
        #expect(m[12...] == [0, 0, 0, 1] && abs(m[3] - t.x) <= 1e-8 && abs(m[5] - scale * r[4]) <= 1e-9 * scale)
        for p in source.prefix(5) { #expect(((fit.unapply(fit.apply(p)) - p) * (fit.unapply(fit.apply(p)) - p)).sum() < 1e-18) }
    }

    /// Points of weight 0 may be anywhere.
    @Test func zeroWeightPointsDoNotCount() throws {
        let r = Self.rotation(axis: SIMD3(0.2, -1, 0.4), angle: 1.1)
        let source = Self.points(12, seed: 3)
        var target = source.map { 2 * ProcrustesSolver.multiply(r, $0) }
        var weights = [Double](repeating: 1, count: 12)
        for i in [2, 5, 9] {
            target[i] = SIMD3(1000, -1000, 500)
            weights[i] = 0
        }
        let fit = try ProcrustesSolver.solve(source: source, target: target, weights: weights)
        #expect(abs(fit.scale - 2) < 1e-9)
        for i in 0..<9 { #expect(abs(fit.rotation[i] - r[i]) <= 1e-9) }
    }

    /// A mirrored cloud cannot be matched by a rotation: the result is still one (det +1,
    /// orthonormal), as MediaPipe's reflection fix guarantees.
    @Test func mirrorImagesStillGiveAProperRotation() throws {
        let source = Self.points(20, seed: 11)
        let target = source.map { SIMD3(-$0.x, $0.y, $0.z) }
        let fit = try ProcrustesSolver.solve(source: source, target: target, weights: [Double](repeating: 1, count: 20))
        let r = fit.rotation
        let det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6])
        #expect(abs(det - 1) < 1e-9)
        for a in 0..<3 {
            for b in 0..<3 {
                let dot = (0..<3).reduce(0.0) { $0 + r[$1 * 3 + a] * r[$1 * 3 + b] }
                #expect(abs(dot - (a == b ? 1 : 0)) < 1e-9)
            }
        }
    }

    @Test func degenerateInputThrows() {
        let p = Self.points(4, seed: 1)
        let one = [Double](repeating: 1, count: 4)
        let cases: [(String, [SIMD3<Double>], [SIMD3<Double>], [Double], String)] = [
            ("empty", [], [], [], "no points"),
            ("counts", p, Array(p.prefix(3)), one, "3 target points"),
            ("weights", p, p, [1, 1], "2 weights"),
            ("negative", p, p, [1, -1, 1, 1], "weight 1 is -1.0"),
            ("nan weight", p, p, [1, .nan, 1, 1], "weight 1 is nan"),
            ("zero weights", p, p, [0, 0, 0, 0], "add up to 0.0"),
            ("one place", [SIMD3<Double>](repeating: SIMD3(1, 2, 3), count: 4), p, one, "design matrix"),
            ("collapsed target", p, [SIMD3<Double>](repeating: SIMD3(1, 2, 3), count: 4), one, "design matrix"),
            ("nan point", p, [SIMD3(.nan, 0, 0)] + p.dropFirst(), one, "not finite"),
            ("tiny scale", p, p.map { $0 * 1e-10 }, one, "the scale is"),
        ]
        for (name, s, t, w, words) in cases {
            do {
                let fit = try ProcrustesSolver.solve(source: s, target: t, weights: w)
                Issue.record("\(name): solved \(fit)")
            } catch let e as GraphError {
                #expect(e.message.contains(words), "\(name): \(e.message)")
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
    }
}
