@testable import FrameFlowInference
import Testing

/// Matrix products against the textbook triple loop, for both backends (OpenBLAS when it
/// is installed, and the portable Swift loop), every transpose combination and odd sizes.
@Suite struct GEMMTests {
    static func random(_ n: Int, seed: UInt64) -> [Float] {
        var s = seed
        return (0..<n).map { _ in
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int(s >> 40) % 2001 - 1000) / 500
        }
    }

    @Test(arguments: [(1, 1, 1), (3, 5, 7), (17, 1, 9), (1, 33, 4), (64, 48, 27), (5, 3, 0)])
    func matchesTripleLoop(size: (Int, Int, Int)) {
        let (m, n, k) = size
        for transA in [false, true] {
            for transB in [false, true] {
                let a = Self.random(max(m * k, 1), seed: 1), b = Self.random(max(k * n, 1), seed: 2)
                let c0 = Self.random(m * n, seed: 3)
                let lda = transA ? m : k, ldb = transB ? k : n
                var expected = c0
                for i in 0..<m {
                    for j in 0..<n {
                        var acc: Float = 0
                        for p in 0..<k { acc += (transA ? a[p * lda + i] : a[i * lda + p]) * (transB ? b[j * ldb + p] : b[p * ldb + j]) }
                        expected[i * n + j] = acc + 0.5 * c0[i * n + j]
                    }
                }
                for backend in ["default", "swift"] {
                    var c = c0
                    a.withUnsafeBufferPointer { A in
                        b.withUnsafeBufferPointer { B in
                            c.withUnsafeMutableBufferPointer { C in
                                if backend == "swift" {
                                    GEMM.swiftMultiply(
                                        m: m, n: n, k: k, a: A.baseAddress!, lda: lda, transA: transA, b: B.baseAddress!, ldb: ldb,
                                        transB: transB, beta: 0.5, c: C.baseAddress!, ldc: n)
                                } else {
                                    GEMM.multiply(
                                        m: m, n: n, k: k, a: A.baseAddress!, lda: lda, transA: transA, b: B.baseAddress!, ldb: ldb,
                                        transB: transB, beta: 0.5, c: C.baseAddress!, ldc: n)
                                }
                            }
                        }
                    }
                    let err = zip(c, expected).map { abs($0 - $1) }.max() ?? 0
                    #expect(err <= 1e-3, "\(backend) (\(GEMM.backend)) \(m)×\(n)×\(k) transA \(transA) transB \(transB): max error \(err)")
                }
            }
        }
    }
}
