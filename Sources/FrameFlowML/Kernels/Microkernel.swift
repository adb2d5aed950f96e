/// What a `Microkernel` product does to each output before storing it: add a per-column
/// bias and a residual, then clamp (a fused RELU / RELU6 / clip). NCHW convolutions reuse it
/// to describe their fused activation (`rowSlope`, `hardSwish`, the clamp), which
/// `Conv.activate` applies.
struct GEMMEpilogue {
    /// One value per column of C (an NHWC convolution's output channel); readable for the
    /// column count rounded up to a multiple of 16.
    var columnBias: UnsafePointer<Float>? = nil
    /// A tensor added before the clamp (a fused residual connection), read with row stride
    /// `residualStride`; only its first `residualColumns` columns exist, the rest count as
    /// zero (a residual whose channels were zero-padded up to C's).
    var residual: UnsafePointer<Float>? = nil
    var residualStride = 0
    var residualColumns = 0
    /// Negative values are multiplied by their row's slope (a fused PRelu / LeakyRelu on
    /// an NCHW convolution, applied by `Conv.activate`; the tiles do not read it).
    var rowSlope: UnsafePointer<Float>? = nil
    /// Negative values, after the residual, multiplied by their column's slope (a PRELU
    /// fused into an NHWC convolution); readable like `columnBias`.
    var columnSlope: UnsafePointer<Float>? = nil
    var lower: Float = -.infinity
    var upper: Float = .infinity
    /// A fused HardSwish after the above (NCHW convolutions, applied by `Conv.activate`).
    var hardSwish = false
    /// After the activation, `v · rowScale[row] + rowShift[row]` (a Mul and Add by constants
    /// that followed the activation; NCHW convolutions, applied by `Conv.activate`).
    var rowScale: UnsafePointer<Float>? = nil
    var rowShift: UnsafePointer<Float>? = nil

    /// Whether `Conv.activate` has anything to do.
    var activates: Bool { rowSlope != nil || lower > -.infinity || upper < .infinity || hardSwish || rowScale != nil }
}

/// Register-blocked single-precision matrix products for the small, skinny products of
/// camera-sized networks: C[m×n] = A[m×k]·B[k×n], with the bias and activation applied as
/// each tile is stored.
///
/// Why not only OpenBLAS: BlazeFace's pointwise convolutions are products like
/// 4096×24 · 24×24 — OpenBLAS packs both operands and checks its threading on every call,
/// which on these sizes costs as much as the arithmetic, and then a second pass adds the
/// bias and clamps. Here a 6×16 tile of C lives in twelve 8-wide registers while the k loop
/// broadcasts one element of A per row and loads 16 elements of B (the shape XNNPACK and
/// MLAS use); the compiler turns `SIMD8<Float>` with `addProduct` into one FMA per register
/// (checked in the generated assembly, built with `-target-cpu haswell`). A is read where it
/// is; B — a constant filter — is laid out once at load in 16-column panels
/// (`PackedFilter`): each column block's k rows are then one contiguous run instead of k rows
/// a filter-width apart (for PP-OCR's 384 × 384 filters a new page every few k steps).
///
/// Requirements: A's rows are contiguous (row stride `lda`); B is in the panel layout
/// (`packedIndex`, `packedCount`); C is written only inside m×n.
enum Microkernel {
    static let rowsPerTile = 6

    /// Where element (p, j) of a k × n matrix goes in the panel layout `multiply(packedB:)`
    /// reads: 16-column panels, each k × 16 and contiguous.
    @inline(__always)
    static func packedIndex(row p: Int, column j: Int, k: Int) -> Int { (j >> 4) * k * 16 + p * 16 + (j & 15) }

    /// Floats a k × n matrix takes in the panel layout (the last panel padded to 16).
    static func packedCount(k: Int, n: Int) -> Int { (n + 15) / 16 * 16 * k }

    /// C[m×n] = A·B through the epilogue, B in the panel layout.
    static func multiply(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int,
        epilogue e: GEMMEpilogue = GEMMEpilogue()
    ) {
        if m <= 0 || n <= 0 { return }
        #if FRAMEFLOW_AVX512
            return multiply16(m: m, n: n, k: k, a: a, lda: lda, b: b, c: c, ldc: ldc, epilogue: e)
        #else
        /// The panel holding columns j0…j0+15, and the distance between its k rows.
        @inline(__always) func bBlock(_ j0: Int) -> UnsafePointer<Float> { b + (j0 >> 4) * k * 16 }
        let bStride = 16
        // Keep the smaller operand in cache: walk tiles of A's rows over all of B when B is
        // the small one (NHWC: B is the weights), columns of B over all of A otherwise.
        let rowsOuter = n * k <= m * k
        // Column blocks of 16; when 1…8 columns are left over (n = 24, 56, 88 …) the last
        // 16 + r columns go to a 4×24 tile instead of a 16-wide and a half-empty 8-wide one.
        let r = n % 16
        let wideTail = n >= 24 && r > 0 && r <= 8
        let blocks = wideTail ? n / 16 : (n + 15) / 16  // the wide tail counts as one
        let rowTiles = (m + rowsPerTile - 1) / rowsPerTile, wideTiles = (m + 3) / 4
        @inline(__always) func tile(_ t: Int, _ blk: Int) {
            let i0 = t * rowsPerTile, rows = min(rowsPerTile, m - i0)
            let j0 = blk * 16, width = min(16, n - j0)
            if width > 8 {
                tile16(rows: rows, columns: width, k: k, a: a + i0 * lda, lda: lda, b: bBlock(j0), ldb: bStride, c: c + i0 * ldc + j0, ldc: ldc, row0: i0, column0: j0, e)
            } else {
                tile8(rows: rows, columns: width, k: k, a: a + i0 * lda, lda: lda, b: bBlock(j0), ldb: bStride, c: c + i0 * ldc + j0, ldc: ldc, row0: i0, column0: j0, e)
            }
        }
        @inline(__always) func wide(_ t: Int) {
            let i0 = t * 4, rows = min(4, m - i0), j0 = (blocks - 1) * 16
            tile24(
                rows: rows, columns: n - j0, k: k, a: a + i0 * lda, lda: lda, b: bBlock(j0), high: bBlock(j0 + 16), ldb: bStride,
                c: c + i0 * ldc + j0, ldc: ldc, row0: i0, column0: j0, e)
        }
        let narrow = wideTail ? blocks - 1 : blocks
        if rowsOuter {
            // Row tiles of 6 over the 16-wide blocks, then of 4 over the wide tail, in bands
            // of 12 rows so that both passes find A's rows in cache.
            var i = 0
            while i < m {
                let band = min(12, m - i)
                if narrow > 0 {
                    for t in (i / rowsPerTile)..<((i + band + rowsPerTile - 1) / rowsPerTile) { for blk in 0..<narrow { tile(t, blk) } }
                }
                if wideTail { for t in (i / 4)..<((i + band + 3) / 4) { wide(t) } }
                i += band
            }
        } else {
            for blk in 0..<narrow { for t in 0..<rowTiles { tile(t, blk) } }
            if wideTail { for t in 0..<wideTiles { wide(t) } }
        }
        #endif
    }

    /// Column bias, residual and clamp for one vector of a tile, as it is stored.
    /// `@_transparent`: with `@inline(__always)` the optimizer left a call per stored vector.
    @_transparent
    private static func finish(_ v: SIMD8<Float>, row: Int, column: Int, _ e: GEMMEpilogue) -> SIMD8<Float> {
        var v = v
        if let cb = e.columnBias { v += UnsafeRawPointer(cb + column).loadUnaligned(as: SIMD8<Float>.self) }
        if let r = e.residual, column < e.residualColumns {
            let rp = r + row * e.residualStride + column
            v += column + 8 <= e.residualColumns ? UnsafeRawPointer(rp).loadUnaligned(as: SIMD8<Float>.self) : partial(rp, count: e.residualColumns - column)
        }
        if let s = e.columnSlope { v = v.replacing(with: v * UnsafeRawPointer(s + column).loadUnaligned(as: SIMD8<Float>.self), where: v .< 0) }
        if e.lower > -.infinity || e.upper < .infinity { v = clamp(v, SIMD8(repeating: e.lower), SIMD8(repeating: e.upper)) }
        return v
    }

    /// The first `count` (< 8) floats at `p`, zeros after; out of line, so that `finish`
    /// stays small enough to be inlined into the tiles.
    @inline(never)
    private static func partial(_ p: UnsafePointer<Float>, count: Int) -> SIMD8<Float> {
        var v = SIMD8<Float>()
        for l in 0..<count { v[l] = p[l] }
        return v
    }

    /// `v` clamped to [lo, hi] lane by lane. Written as two selects because the library's
    /// `pointwiseMin`/`pointwiseMax`/`clamped` are not specialised here: each was an
    /// out-of-line call per vector (seen in the assembly), this is two `vmaxps`/`vminps`.
    @inline(__always)
    static func clamp(_ v: SIMD8<Float>, _ lo: SIMD8<Float>, _ hi: SIMD8<Float>) -> SIMD8<Float> {
        let a = v.replacing(with: lo, where: v .< lo)
        return a.replacing(with: hi, where: a .> hi)
    }

    typealias Rows8 = (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)

    /// An 8 × 8 block transposed in registers: three rounds of the perfect shuffle (rows 2i
    /// and 2i + 1 joined, their even lanes becoming row i and odd lanes row i + 4), 24
    /// two-register permutes. Lane by lane it compiled to an insert per element.
    @inline(__always)
    static func transpose8x8(_ r: Rows8) -> Rows8 {
        @inline(__always) func round(_ r: Rows8) -> Rows8 {
            let a = SIMD16(lowHalf: r.0, highHalf: r.1), b = SIMD16(lowHalf: r.2, highHalf: r.3)
            let c = SIMD16(lowHalf: r.4, highHalf: r.5), d = SIMD16(lowHalf: r.6, highHalf: r.7)
            return (a.evenHalf, b.evenHalf, c.evenHalf, d.evenHalf, a.oddHalf, b.oddHalf, c.oddHalf, d.oddHalf)
        }
        return round(round(round(r)))
    }

    /// `dst[j·rows + i] = src[i·columns + j]`: a rows × columns matrix transposed (NCHW ↔
    /// NHWC), in 8 × 8 blocks so that reads and writes each stay within a few cache lines;
    /// whole blocks as eight vector loads and eight vector stores.
    static func transpose(_ src: UnsafePointer<Float>, rows: Int, columns: Int, into dst: UnsafeMutablePointer<Float>) {
        transpose(src, rows: rows, columns: columns, sourceStride: columns, into: dst, destinationStride: rows)
    }

    /// `dst[j·destinationStride + i] = src[i·sourceStride + j]` for i < rows, j < columns.
    static func transpose(
        _ src: UnsafePointer<Float>, rows: Int, columns: Int, sourceStride ls: Int, into dst: UnsafeMutablePointer<Float>, destinationStride ld: Int
    ) {
        var i0 = 0
        while i0 < rows {
            let i1 = Swift.min(i0 &+ 8, rows)
            var j0 = 0
            while j0 < columns {
                let j1 = Swift.min(j0 &+ 8, columns)
                if i1 &- i0 == 8 && j1 &- j0 == 8 {
                    // A whole block: eight row loads, eight column stores.
                    typealias V = SIMD8<Float>
                    @inline(__always) func row(_ k: Int) -> V { UnsafeRawPointer(src + ((i0 &+ k) &* ls &+ j0)).loadUnaligned(as: V.self) }
                    let t = transpose8x8((row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)))
                    @inline(__always) func put(_ j: Int, _ v: V) { UnsafeMutableRawPointer(dst + ((j0 &+ j) &* ld &+ i0)).storeBytes(of: v, as: V.self) }
                    put(0, t.0); put(1, t.1); put(2, t.2); put(3, t.3); put(4, t.4); put(5, t.5); put(6, t.6); put(7, t.7)
                    j0 = j1
                    continue
                }
                var i = i0
                while i < i1 {
                    let s = src + i &* ls
                    var j = j0
                    while j < j1 {
                        dst[j &* ld &+ i] = s[j]
                        j &+= 1
                    }
                    i &+= 1
                }
                j0 = j1
            }
            i0 = i1
        }
    }

    /// Copies `count` floats with vector moves, inline: im2col copies runs of 3–100 floats,
    /// where a `memmove` call per run cost more than the copying (BlazeFace's first
    /// convolution made 20 000 such calls per frame).
    @inline(__always)
    static func copy(_ dst: UnsafeMutablePointer<Float>, from src: UnsafePointer<Float>, count: Int) {
        typealias V = SIMD8<Float>
        if count >= 8 {
            var i = 0
            while i + 8 <= count {
                UnsafeMutableRawPointer(dst + i).storeBytes(of: UnsafeRawPointer(src + i).loadUnaligned(as: V.self), as: V.self)
                i += 8
            }
            if i < count {  // the last 8, overlapping what is already copied
                UnsafeMutableRawPointer(dst + count - 8).storeBytes(of: UnsafeRawPointer(src + count - 8).loadUnaligned(as: V.self), as: V.self)
            }
        } else {
            for i in 0..<count { dst[i] = src[i] }
        }
    }

    @inline(__always)
    private static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, count: Int) {
        if count >= 8 {
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
        } else {
            for l in 0..<count { p[l] = v[l] }
        }
    }

    /// Up to 6 rows × up to 16 columns of C. Rows past `rows` repeat the last row of A (their
    /// results are not stored), so the loop has no row branches.
    private static func tile16(
        rows: Int, columns: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, row0: Int, column0: Int, _ e: GEMMEpilogue
    ) {
        let a0 = a, a1 = a + min(1, rows - 1) * lda, a2 = a + min(2, rows - 1) * lda
        let a3 = a + min(3, rows - 1) * lda, a4 = a + min(4, rows - 1) * lda, a5 = a + min(5, rows - 1) * lda
        var c00 = SIMD8<Float>(), c01 = SIMD8<Float>(), c10 = SIMD8<Float>(), c11 = SIMD8<Float>()
        var c20 = SIMD8<Float>(), c21 = SIMD8<Float>(), c30 = SIMD8<Float>(), c31 = SIMD8<Float>()
        var c40 = SIMD8<Float>(), c41 = SIMD8<Float>(), c50 = SIMD8<Float>(), c51 = SIMD8<Float>()
        var bp = UnsafeRawPointer(b)
        let step = ldb * MemoryLayout<Float>.stride
        for p in 0..<k {
            let b0 = bp.loadUnaligned(as: SIMD8<Float>.self)
            let b1 = bp.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
            var s = SIMD8<Float>(repeating: a0[p]); c00.addProduct(s, b0); c01.addProduct(s, b1)
            s = SIMD8<Float>(repeating: a1[p]); c10.addProduct(s, b0); c11.addProduct(s, b1)
            s = SIMD8<Float>(repeating: a2[p]); c20.addProduct(s, b0); c21.addProduct(s, b1)
            s = SIMD8<Float>(repeating: a3[p]); c30.addProduct(s, b0); c31.addProduct(s, b1)
            s = SIMD8<Float>(repeating: a4[p]); c40.addProduct(s, b0); c41.addProduct(s, b1)
            s = SIMD8<Float>(repeating: a5[p]); c50.addProduct(s, b0); c51.addProduct(s, b1)
            bp += step
        }
        @inline(__always) func put(_ r: Int, _ x: SIMD8<Float>, _ y: SIMD8<Float>) {
            let cr = c + r * ldc
            store(finish(x, row: row0 + r, column: column0, e), cr, count: 8)
            store(finish(y, row: row0 + r, column: column0 + 8, e), cr + 8, count: columns - 8)
        }
        put(0, c00, c01)
        if rows > 1 { put(1, c10, c11) }
        if rows > 2 { put(2, c20, c21) }
        if rows > 3 { put(3, c30, c31) }
        if rows > 4 { put(4, c40, c41) }
        if rows > 5 { put(5, c50, c51) }
    }

    /// Up to 4 rows × 17…24 columns of C: columns 0–15 from `b`, 16–23 from `high` (the
    /// next panel when B is packed).
    private static func tile24(
        rows: Int, columns: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, high: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, row0: Int, column0: Int, _ e: GEMMEpilogue
    ) {
        let a0 = a, a1 = a + min(1, rows - 1) * lda, a2 = a + min(2, rows - 1) * lda, a3 = a + min(3, rows - 1) * lda
        var c00 = SIMD8<Float>(), c01 = SIMD8<Float>(), c02 = SIMD8<Float>(), c10 = SIMD8<Float>(), c11 = SIMD8<Float>(), c12 = SIMD8<Float>()
        var c20 = SIMD8<Float>(), c21 = SIMD8<Float>(), c22 = SIMD8<Float>(), c30 = SIMD8<Float>(), c31 = SIMD8<Float>(), c32 = SIMD8<Float>()
        var bp = UnsafeRawPointer(b), hp = UnsafeRawPointer(high)
        let step = ldb * MemoryLayout<Float>.stride
        for p in 0..<k {
            let b0 = bp.loadUnaligned(as: SIMD8<Float>.self)
            let b1 = bp.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
            let b2 = hp.loadUnaligned(as: SIMD8<Float>.self)
            hp += step
            var s = SIMD8<Float>(repeating: a0[p]); c00.addProduct(s, b0); c01.addProduct(s, b1); c02.addProduct(s, b2)
            s = SIMD8<Float>(repeating: a1[p]); c10.addProduct(s, b0); c11.addProduct(s, b1); c12.addProduct(s, b2)
            s = SIMD8<Float>(repeating: a2[p]); c20.addProduct(s, b0); c21.addProduct(s, b1); c22.addProduct(s, b2)
            s = SIMD8<Float>(repeating: a3[p]); c30.addProduct(s, b0); c31.addProduct(s, b1); c32.addProduct(s, b2)
            bp += step
        }
        @inline(__always) func put(_ r: Int, _ x: SIMD8<Float>, _ y: SIMD8<Float>, _ z: SIMD8<Float>) {
            let cr = c + r * ldc
            store(finish(x, row: row0 + r, column: column0, e), cr, count: 8)
            store(finish(y, row: row0 + r, column: column0 + 8, e), cr + 8, count: 8)
            store(finish(z, row: row0 + r, column: column0 + 16, e), cr + 16, count: columns - 16)
        }
        put(0, c00, c01, c02)
        if rows > 1 { put(1, c10, c11, c12) }
        if rows > 2 { put(2, c20, c21, c22) }
        if rows > 3 { put(3, c30, c31, c32) }
    }

    /// Up to 6 rows × up to 8 columns of C.
    private static func tile8(
        rows: Int, columns: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, row0: Int, column0: Int, _ e: GEMMEpilogue
    ) {
        let a0 = a, a1 = a + min(1, rows - 1) * lda, a2 = a + min(2, rows - 1) * lda
        let a3 = a + min(3, rows - 1) * lda, a4 = a + min(4, rows - 1) * lda, a5 = a + min(5, rows - 1) * lda
        var c0 = SIMD8<Float>(), c1 = SIMD8<Float>(), c2 = SIMD8<Float>()
        var c3 = SIMD8<Float>(), c4 = SIMD8<Float>(), c5 = SIMD8<Float>()
        var bp = UnsafeRawPointer(b)
        let step = ldb * MemoryLayout<Float>.stride
        for p in 0..<k {
            let b0 = bp.loadUnaligned(as: SIMD8<Float>.self)
            c0.addProduct(SIMD8(repeating: a0[p]), b0)
            c1.addProduct(SIMD8(repeating: a1[p]), b0)
            c2.addProduct(SIMD8(repeating: a2[p]), b0)
            c3.addProduct(SIMD8(repeating: a3[p]), b0)
            c4.addProduct(SIMD8(repeating: a4[p]), b0)
            c5.addProduct(SIMD8(repeating: a5[p]), b0)
            bp += step
        }
        @inline(__always) func put(_ r: Int, _ x: SIMD8<Float>) {
            store(finish(x, row: row0 + r, column: column0, e), c + r * ldc, count: columns)
        }
        put(0, c0)
        if rows > 1 { put(1, c1) }
        if rows > 2 { put(2, c2) }
        if rows > 3 { put(3, c3) }
        if rows > 4 { put(4, c4) }
        if rows > 5 { put(5, c5) }
    }
}
