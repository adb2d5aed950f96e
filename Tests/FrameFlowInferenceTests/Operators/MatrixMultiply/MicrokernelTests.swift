@testable import FrameFlowInference
import FrameFlow
import Testing

/// The register-blocked products against the textbook loop, for both tile families (8-lane
/// and 16-lane) at every kernel level this machine runs: row and column tails of every width
/// the tiles have, each step of the epilogue (bias, residual, PRELU slope, clamp), adding to
/// C, and the unused lanes of B's last panel filled with NaN so that a padded lane leaking
/// into a stored value fails.
@Suite struct MicrokernelTests {
    static let sizes = [
        (1, 1, 1), (5, 7, 3), (6, 8, 16), (7, 9, 5), (13, 15, 24), (12, 16, 1), (25, 17, 75), (64, 28, 24), (3, 36, 0), (9, 96, 96), (29, 24, 75),
        (7, 40, 9), (14, 88, 33), (5, 23, 4), (10, 40, 600), (17, 24, 513), (9, 16, 257), (11, 33, 7), (19, 47, 13), (49, 50, 40),
    ]

    @Test(arguments: MicrokernelTests.sizes, KernelLevel.available)
    func matchesTripleLoop(size: (Int, Int, Int), level: KernelLevel) {
        KernelLevel.withThreadLevel(level) {
            for wide in [false, true] { check(size, wide: wide, level: level) }
        }
    }

    /// Few rows against filters of ≥ 256 KB: the tiles that prefetch their panels, and with
    /// two threads, column blocks split between them (`multiplyRows`), including an odd last
    /// panel (360 columns) and a second k block (k > 256).
    @Test(arguments: [(6, 384, 384), (13, 360, 200), (1, 1024, 64), (16, 96, 1000)])
    func streamingFiltersMatchTripleLoop(size: (Int, Int, Int)) {
        check(size, wide: true, level: KernelLevel.current)
        let workers = WorkerPool(threads: 2, name: "test.microkernel")
        defer { workers.shutdown() }
        Scratch.$parallelism.withValue(Parallelism(workers)) { check(size, wide: true, level: KernelLevel.current) }
    }

    /// `multiplyRows` adding to what C holds (a later filter row of `convolveInPlace`), with
    /// B a slice of rows of a taller packed filter.
    @Test(arguments: [(5, 20, 7), (9, 33, 300), (8, 16, 1)], KernelLevel.available)
    func rowsAccumulateIntoC(size: (Int, Int, Int), level: KernelLevel) {
        let (m, n, k) = size
        let k0 = 3, panelK = k + 5, lda = k + 2, ldc = n + 1
        let a = GEMMTests.random(m * lda, seed: 21), b = GEMMTests.random(panelK * n, seed: 22), c0 = GEMMTests.random(m * ldc, seed: 23)
        let bias = GEMMTests.random((n + 15) / 16 * 16, seed: 24)
        var panels = [Float](repeating: .nan, count: Microkernel.packedCount(k: panelK, n: n))
        for p in 0..<panelK { for j in 0..<n { panels[Microkernel.packedIndex(row: p, column: j, k: panelK)] = b[p * n + j] } }
        var c = c0
        KernelLevel.withThreadLevel(level) {
            a.withUnsafeBufferPointer { A in
                panels.withUnsafeBufferPointer { B in
                    c.withUnsafeMutableBufferPointer { C in
                        bias.withUnsafeBufferPointer { CB in
                            var e = GEMMEpilogue()
                            e.columnBias = CB.baseAddress
                            e.upper = 3
                            Microkernel.multiplyRows(
                                m: m, n: n, k: k, a: A.baseAddress!, lda: lda, b: B.baseAddress! + k0 * 16, panelK: panelK, c: C.baseAddress!,
                                ldc: ldc, epilogue: e,
                                accumulate: true)
                        }
                    }
                }
            }
        }
        var worst: Float = 0
        for i in 0..<m {
            for j in 0..<ldc {
                guard j < n else {
                    #expect(c[i * ldc + j] == c0[i * ldc + j], "column \(j) past n was written")
                    continue
                }
                var v = c0[i * ldc + j]
                for p in 0..<k { v += a[i * lda + p] * b[(k0 + p) * n + j] }
                v = min(v + bias[j], 3)
                worst = max(worst, abs(v - c[i * ldc + j]))
            }
        }
        #expect(worst <= 1e-3, "\(m)×\(n)×\(k) at \(level): max error \(worst)")
    }

    /// The shifted product (rows of B read through offsets) against its definition: blocks of
    /// 48 columns with tails of every vector, k past one block of 256.
    @Test(arguments: [(1, 1, 1), (9, 47, 5), (8, 48, 3), (17, 100, 27), (3, 17, 300)], KernelLevel.available)
    func shiftedProductMatchesItsDefinition(size: (Int, Int, Int), level: KernelLevel) {
        let (m, n, k) = size
        let lda = k + 1, ldc = n + 3
        let a = GEMMTests.random(m * lda, seed: 31)
        let offsets = (0..<k).map { ($0 * 37) % 11 + $0 % 3 }
        let b = GEMMTests.random((offsets.max() ?? 0) + n + 48, seed: 32)
        var c = [Float](repeating: 1234, count: m * ldc)
        KernelLevel.withThreadLevel(level) {
            a.withUnsafeBufferPointer { A in
                b.withUnsafeBufferPointer { B in
                    offsets.withUnsafeBufferPointer { O in
                        c.withUnsafeMutableBufferPointer { C in
                            Microkernel.multiplyShifted(
                                m: m, n: n, k: k, a: A.baseAddress!, lda: lda, b: B.baseAddress!, offsets: O.baseAddress!, c: C.baseAddress!, ldc: ldc
                            )
                        }
                    }
                }
            }
        }
        var worst: Float = 0
        for i in 0..<m {
            for j in 0..<ldc {
                guard j < n else {
                    #expect(c[i * ldc + j] == 1234, "column \(j) past n was written")
                    continue
                }
                var v: Float = 0
                for p in 0..<k { v += a[i * lda + p] * b[offsets[p] + j] }
                worst = max(worst, abs(v - c[i * ldc + j]))
            }
        }
        #expect(worst <= 1e-3, "\(m)×\(n)×\(k) at \(level): max error \(worst)")
    }

    func check(_ size: (Int, Int, Int), wide: Bool, level: KernelLevel) {
        let (m, n, k) = size
        let lda = k + 3, ldc = n + 2
        let a = GEMMTests.random(max(1, m * lda), seed: 11)
        let b = GEMMTests.random(max(1, k * n), seed: 12)  // k × n, row-major
        let columnBias = GEMMTests.random((n + 15) / 16 * 16, seed: 14)
        let slope = GEMMTests.random((n + 15) / 16 * 16, seed: 16)
        let rc = max(1, n - 5)  // a residual with fewer channels than C (zero-padded)
        let residual = GEMMTests.random(m * rc, seed: 15)
        // B in the panel layout the kernel reads, its unused lanes NaN.
        var panels = [Float](repeating: .nan, count: max(1, Microkernel.packedCount(k: k, n: n)))
        for p in 0..<k { for j in 0..<n { panels[Microkernel.packedIndex(row: p, column: j, k: k)] = b[p * n + j] } }
        for variant in 0..<4 {
            var c = [Float](repeating: 1234, count: m * ldc)
            columnBias.withUnsafeBufferPointer { CB in
                residual.withUnsafeBufferPointer { R in
                    slope.withUnsafeBufferPointer { S in
                        var e = GEMMEpilogue()
                        if variant >= 1 { e.columnBias = CB.baseAddress; e.lower = -1; e.upper = 2 }
                        if variant >= 2 { e.residual = R.baseAddress; e.residualStride = rc; e.residualColumns = rc }
                        if variant == 3 { e.columnSlope = S.baseAddress; e.lower = -.infinity }
                        a.withUnsafeBufferPointer { A in
                            panels.withUnsafeBufferPointer { B in
                                c.withUnsafeMutableBufferPointer { C in
                                    Microkernel.multiply(
                                        m: m, n: n, k: k, a: A.baseAddress!, lda: lda, b: B.baseAddress!, c: C.baseAddress!, ldc: ldc, epilogue: e,
                                        wide: wide)
                                }
                            }
                        }
                    }
                }
            }
            var worst: Float = 0
            for i in 0..<m {
                for j in 0..<ldc {
                    guard j < n else {
                        #expect(c[i * ldc + j] == 1234, "column \(j) past n was written")
                        continue
                    }
                    var v: Float = 0
                    for p in 0..<k { v += a[i * lda + p] * b[p * n + j] }
                    if variant >= 1 { v += columnBias[j] }
                    if variant >= 2 { v += j < rc ? residual[i * rc + j] : 0 }
                    if variant == 3 && v < 0 { v *= slope[j] }
                    if variant >= 1 { v = min(2, variant == 3 ? v : max(-1, v)) }
                    worst = max(worst, abs(v - c[i * ldc + j]))
                }
            }
            #expect(worst <= 1e-3, "\(m)×\(n)×\(k) \(wide ? "16" : "8")-lane at \(level), variant \(variant): max error \(worst)")
        }
    }

    /// The blocked transpose against its definition, on shapes with partial 8 × 8 blocks on
    /// both sides, a single row and a single column.
    @Test(arguments: [(1, 1), (1, 13), (13, 1), (8, 8), (9, 17), (16, 1536), (96, 35)], KernelLevel.available)
    func transposeMatchesItsDefinition(size: (Int, Int), level: KernelLevel) {
        let (rows, columns) = size
        let src = (0..<(rows * columns)).map { Float($0) }
        var dst = [Float](repeating: -1, count: rows * columns)
        KernelLevel.withThreadLevel(level) {
            src.withUnsafeBufferPointer { S in
                dst.withUnsafeMutableBufferPointer { D in
                    Microkernel.transpose(S.baseAddress!, rows: rows, columns: columns, into: D.baseAddress!)
                }
            }
        }
        var wrong = 0
        for i in 0..<rows { for j in 0..<columns where dst[j * rows + i] != src[i * columns + j] { wrong += 1 } }
        #expect(wrong == 0)
    }
}
