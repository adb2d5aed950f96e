#if FRAMEFLOW_AVX512
    import CFrameFlowSupport
    /// The matrix-product tiles for CPUs with AVX-512 (built when the package is compiled on
    /// one: see Package.swift). Same panel layout and epilogue as the 8-lane tiles, with
    /// 16-lane registers: one register holds a whole 16-column panel row, so an 8 × 32 tile
    /// keeps sixteen accumulators (two FMA units × four cycles of latency need eight) and
    /// each k step is two panel loads and eight broadcasts folded into the FMAs
    /// (`vfmadd231ps (mem){1to16}`, checked in the assembly) — FMA-bound, twice the
    /// arithmetic per instruction of the AVX2 tiles. Columns past n in the last panel are the
    /// panel's zero padding; rows past m repeat A's last row and are not stored.
    extension Microkernel {
        static let rowsPerTile16 = 8
        /// Bytes ahead of a streaming tile's panel reads that its prefetches ask for.
        static let prefetchDistance = 2048

        /// C[m×n] = A·B through the epilogue, B in the panel layout, with 16-lane tiles.
        static func multiply16(
            m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int,
            epilogue e: GEMMEpilogue
        ) {
            multiplyRows(m: m, n: n, k: k, a: a, lda: lda, b: b, panelK: k, c: c, ldc: ldc, epilogue: e, accumulate: false)
        }

        /// C[m×n] (+)= A[m×k]·B[k0 ..< k0 + k, n] through the epilogue: `b` points at row k0
        /// of the first panel of a filter packed with `panelK` rows (`b + k0 · 16`). With
        /// `accumulate` the product is added to what C holds (the epilogue belongs on the
        /// last of such calls only). This is how a convolution runs without im2col: one call
        /// per filter row, A being the input rows themselves (`NHWC.convolveInPlace`).
        static func multiplyRows(
            m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, panelK: Int, c: UnsafeMutablePointer<Float>,
            ldc: Int, epilogue e: GEMMEpilogue, accumulate: Bool
        ) {
            if m <= 0 || n <= 0 { return }
            let panels = (n + 15) / 16
            let pairs = panels / 2  // 32-column tiles; an odd last panel gets a 16-column tile
            let blocks = pairs + panels % 2
            let rowTiles = (m + rowsPerTile16 - 1) / rowsPerTile16
            // k in blocks of `kBlock` rows: a 32-column block of B is then 32 KB and stays in
            // the L1 cache while every row tile of A passes over it (PP-OCR's 3 × 3
            // convolutions of 96 channels have k = 864: 110 KB of B read from L2 per tile
            // without this). Blocks after the first add to what C holds; the epilogue runs on
            // the last.
            let streams = rowTiles <= 2 && k * n >= streamingFloats
            func run(_ columnBlocks: Range<Int>) {
                for p0 in stride(from: 0, to: max(k, 1), by: kBlock) {  // k = 0: one pass, the epilogue alone
                    let kb = min(kBlock, k - p0), first = p0 == 0 && !accumulate
                    let ep = p0 + kb == k ? e : GEMMEpilogue()
                    @inline(__always) func panel(_ j0: Int) -> UnsafePointer<Float> { b + (j0 >> 4) * panelK * 16 + p0 * 16 }
                    @inline(__always) func tile(_ t: Int, _ blk: Int) {
                        let i0 = t * rowsPerTile16, rows = min(rowsPerTile16, m - i0)
                        let j0 = blk * 32, width = min(32, n - j0)
                        if width > 16 {
                            tile32(
                                rows: rows, columns: width, k: kb, a: a + i0 * lda + p0, lda: lda, b: panel(j0), high: panel(j0 + 16),
                                c: c + i0 * ldc + j0, ldc: ldc, accumulate: !first, row0: i0, column0: j0, ep, prefetch: streams)
                        } else {
                            tile16x16(
                                rows: rows, columns: width, k: kb, a: a + i0 * lda + p0, lda: lda, b: panel(j0), c: c + i0 * ldc + j0, ldc: ldc,
                                accumulate: !first, row0: i0, column0: j0, ep)
                        }
                    }
                    for blk in columnBlocks { for t in 0..<rowTiles { tile(t, blk) } }
                }
            }
            // Few rows against a large filter: the time is the filter streaming in from
            // memory, once, so the column blocks — each thread its own part of the filter — are
            // split over the run's threads, where rows (output pixels) would have each thread
            // read all of it.
            if streams && blocks >= 4 {
                Scratch.parallelFor(blocks, work: m * n * k, threshold: 0, run)
            } else {
                run(0..<blocks)
            }
        }
        /// Filter floats (256 KB) from which a product of at most two row tiles counts as
        /// streaming its filter from memory (`multiplyRows`).
        static let streamingFloats = 65536

        /// C[m×n] = A[m×k]·B where row p of B is the n floats at `b + offsets[p]`, read where
        /// they lie (no packing; up to 47 floats past the end of a row are read and must be
        /// readable). Tiles of 8 rows × 48 columns (24 accumulators: three B loads and eight
        /// broadcasts feed 24 FMAs), k in
        /// blocks of `kBlock` so that a column block of B stays in L1 while every row tile
        /// passes over it. This is a convolution without im2col (`ShiftedConvolution`): A the
        /// filter, each row of B an input plane shifted by one tap. No epilogue.
        static func multiplyShifted(
            m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, offsets: UnsafePointer<Int>,
            c: UnsafeMutablePointer<Float>, ldc: Int
        ) {
            if m <= 0 || n <= 0 { return }
            let rowTiles = (m + rowsPerTile16 - 1) / rowsPerTile16
            for j0 in stride(from: 0, to: n, by: 48) {
                for p0 in stride(from: 0, to: max(k, 1), by: kBlock) {
                    for t in 0..<rowTiles {
                        let i0 = t * rowsPerTile16
                        tileShifted(
                            rows: min(rowsPerTile16, m - i0), columns: min(48, n - j0), k: min(kBlock, k - p0), a: a + i0 * lda + p0, lda: lda,
                            b: b + j0, offsets: offsets + p0, c: c + i0 * ldc + j0, ldc: ldc, accumulate: p0 > 0)
                    }
                }
            }
        }

        /// Up to 8 rows × 48 columns of C for `multiplyShifted`; each k step loads three B
        /// vectors from `b + offsets[p]`.
        private static func tileShifted(
            rows: Int, columns: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, offsets: UnsafePointer<Int>,
            c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool
        ) {
            typealias V = SIMD16<Float>
            let a0 = a, a1 = a + min(1, rows - 1) * lda, a2 = a + min(2, rows - 1) * lda, a3 = a + min(3, rows - 1) * lda
            let a4 = a + min(4, rows - 1) * lda, a5 = a + min(5, rows - 1) * lda, a6 = a + min(6, rows - 1) * lda, a7 = a + min(7, rows - 1) * lda
            // Columns held by each of the three vectors (0 … 16).
            let n0 = min(16, columns), n1 = max(0, min(16, columns - 16)), n2 = max(0, columns - 32)
            @inline(__always) func s(_ r: Int, _ q: Int, _ count: Int) -> V {
                count > 0 ? start(accumulate, r, rows: rows, c + r * ldc + 16 * q, count: count) : V()
            }
            var c00 = s(0, 0, n0), c01 = s(0, 1, n1), c02 = s(0, 2, n2), c10 = s(1, 0, n0), c11 = s(1, 1, n1), c12 = s(1, 2, n2)
            var c20 = s(2, 0, n0), c21 = s(2, 1, n1), c22 = s(2, 2, n2), c30 = s(3, 0, n0), c31 = s(3, 1, n1), c32 = s(3, 2, n2)
            var c40 = s(4, 0, n0), c41 = s(4, 1, n1), c42 = s(4, 2, n2), c50 = s(5, 0, n0), c51 = s(5, 1, n1), c52 = s(5, 2, n2)
            var c60 = s(6, 0, n0), c61 = s(6, 1, n1), c62 = s(6, 2, n2), c70 = s(7, 0, n0), c71 = s(7, 1, n1), c72 = s(7, 2, n2)
            let bp = UnsafeRawPointer(b)
            for p in 0..<k {
                let row = bp + offsets[p] &* 4
                let b0 = row.loadUnaligned(as: V.self), b1 = row.loadUnaligned(fromByteOffset: 64, as: V.self)
                let b2 = row.loadUnaligned(fromByteOffset: 128, as: V.self)
                var x = V(repeating: a0[p]); c00.addProduct(x, b0); c01.addProduct(x, b1); c02.addProduct(x, b2)
                x = V(repeating: a1[p]); c10.addProduct(x, b0); c11.addProduct(x, b1); c12.addProduct(x, b2)
                x = V(repeating: a2[p]); c20.addProduct(x, b0); c21.addProduct(x, b1); c22.addProduct(x, b2)
                x = V(repeating: a3[p]); c30.addProduct(x, b0); c31.addProduct(x, b1); c32.addProduct(x, b2)
                x = V(repeating: a4[p]); c40.addProduct(x, b0); c41.addProduct(x, b1); c42.addProduct(x, b2)
                x = V(repeating: a5[p]); c50.addProduct(x, b0); c51.addProduct(x, b1); c52.addProduct(x, b2)
                x = V(repeating: a6[p]); c60.addProduct(x, b0); c61.addProduct(x, b1); c62.addProduct(x, b2)
                x = V(repeating: a7[p]); c70.addProduct(x, b0); c71.addProduct(x, b1); c72.addProduct(x, b2)
            }
            @inline(__always) func put(_ r: Int, _ x: V, _ y: V, _ z: V) {
                let cr = c + r * ldc
                store(x, cr, count: n0)
                if n1 > 0 { store(y, cr + 16, count: n1) }
                if n2 > 0 { store(z, cr + 32, count: n2) }
            }
            put(0, c00, c01, c02)
            if rows > 1 { put(1, c10, c11, c12) }
            if rows > 2 { put(2, c20, c21, c22) }
            if rows > 3 { put(3, c30, c31, c32) }
            if rows > 4 { put(4, c40, c41, c42) }
            if rows > 5 { put(5, c50, c51, c52) }
            if rows > 6 { put(6, c60, c61, c62) }
            if rows > 7 { put(7, c70, c71, c72) }
        }

        /// Rows of B per k block (see `multiply16`).
        static let kBlock = 256

        /// The accumulator a tile starts from: C's current values when adding a later k block
        /// to it, else zero (rows past the tile's are never read).
        @_transparent
        private static func start(_ accumulate: Bool, _ r: Int, rows: Int, _ p: UnsafeMutablePointer<Float>, count: Int) -> SIMD16<Float> {
            if !accumulate || r >= rows { return SIMD16<Float>() }
            if count >= 16 { return UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self) }
            if count == 8 { return SIMD16(lowHalf: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self), highHalf: SIMD8()) }
            return partial(p, count: count)
        }

        /// Column bias, residual, slope and clamp for one 16-lane vector of a tile, as it is stored.
        @_transparent
        private static func finish(_ v: SIMD16<Float>, row: Int, column: Int, _ e: GEMMEpilogue) -> SIMD16<Float> {
            var v = v
            if let cb = e.columnBias { v += UnsafeRawPointer(cb + column).loadUnaligned(as: SIMD16<Float>.self) }
            if let r = e.residual, column < e.residualColumns {
                let rp = r + row * e.residualStride + column
                let left = e.residualColumns - column
                if left >= 16 {
                    v += UnsafeRawPointer(rp).loadUnaligned(as: SIMD16<Float>.self)
                } else if left == 8 {
                    v += SIMD16(lowHalf: UnsafeRawPointer(rp).loadUnaligned(as: SIMD8<Float>.self), highHalf: SIMD8())
                } else {
                    v += partial(rp, count: left)
                }
            }
            if let s = e.columnSlope { v = v.replacing(with: v * UnsafeRawPointer(s + column).loadUnaligned(as: SIMD16<Float>.self), where: v .< 0) }
            if e.lower > -.infinity || e.upper < .infinity {
                let lo = SIMD16<Float>(repeating: e.lower), hi = SIMD16<Float>(repeating: e.upper)
                v = v.replacing(with: lo, where: v .< lo)
                v = v.replacing(with: hi, where: v .> hi)
            }
            return v
        }

        /// The first `count` (< 16) floats at `p`, zeros after; out of line (see `finish`).
        @inline(never)
        private static func partial(_ p: UnsafePointer<Float>, count: Int) -> SIMD16<Float> {
            var v = SIMD16<Float>()
            for l in 0..<count { v[l] = p[l] }
            return v
        }

        @inline(__always)
        private static func store(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>, count: Int) {
            if count >= 16 {
                UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<Float>.self)
            } else if count == 8 {
                // n = 24, 40, 56 …: half a panel, stored inline (a call per stored row cost
                // BlazeFace's 24-channel layers more than their arithmetic).
                UnsafeMutableRawPointer(p).storeBytes(of: v.lowHalf, as: SIMD8<Float>.self)
            } else {
                storePart(v, p, count: count)
            }
        }

        /// The first `count` (< 16) lanes of `v` stored at `p`, in halves, quarters and pairs
        /// (lanes picked by constant index; a loop over `v[l]` went through the stack).
        @inline(never)
        private static func storePart(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>, count: Int) {
            var q = UnsafeMutableRawPointer(p), n = count
            var h8 = v.lowHalf
            if n >= 8 {
                q.storeBytes(of: h8, as: SIMD8<Float>.self)
                (q, n, h8) = (q + 32, n - 8, v.highHalf)
            }
            var h4 = h8.lowHalf
            if n >= 4 {
                q.storeBytes(of: h4, as: SIMD4<Float>.self)
                (q, n, h4) = (q + 16, n - 4, h8.highHalf)
            }
            var h2 = h4.lowHalf
            if n >= 2 {
                q.storeBytes(of: h2, as: SIMD2<Float>.self)
                (q, n, h2) = (q + 8, n - 2, h4.highHalf)
            }
            if n >= 1 { q.storeBytes(of: h2[0], as: Float.self) }
        }

        /// Up to 8 rows × 17…32 columns of C: columns 0–15 from panel `b`, 16–31 from `high`.
        /// With `prefetch` (a filter too large for the caches, read once) each k step also
        /// asks for the panel lines `prefetchDistance` bytes ahead: the hardware prefetcher
        /// alone leaves such a product waiting on memory. Tiles whose panels are in cache lose
        /// by the extra loads, hence the flag.
        private static func tile32(
            rows: Int, columns: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, high: UnsafePointer<Float>,
            c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool, row0: Int, column0: Int, _ e: GEMMEpilogue, prefetch: Bool
        ) {
            typealias V = SIMD16<Float>
            let a0 = a, a1 = a + min(1, rows - 1) * lda, a2 = a + min(2, rows - 1) * lda, a3 = a + min(3, rows - 1) * lda
            let a4 = a + min(4, rows - 1) * lda, a5 = a + min(5, rows - 1) * lda, a6 = a + min(6, rows - 1) * lda, a7 = a + min(7, rows - 1) * lda
            @inline(__always) func s0(_ r: Int) -> V { start(accumulate, r, rows: rows, c + r * ldc, count: 16) }
            @inline(__always) func s1(_ r: Int) -> V { start(accumulate, r, rows: rows, c + r * ldc + 16, count: columns - 16) }
            var c00 = s0(0), c01 = s1(0), c10 = s0(1), c11 = s1(1), c20 = s0(2), c21 = s1(2), c30 = s0(3), c31 = s1(3)
            var c40 = s0(4), c41 = s1(4), c50 = s0(5), c51 = s1(5), c60 = s0(6), c61 = s1(6), c70 = s0(7), c71 = s1(7)
            var bp = UnsafeRawPointer(b), hp = UnsafeRawPointer(high)
            for p in 0..<k {
                let b0 = bp.loadUnaligned(as: V.self), b1 = hp.loadUnaligned(as: V.self)
                if prefetch {
                    ff_prefetch(bp + prefetchDistance)
                    ff_prefetch(hp + prefetchDistance)
                }
                bp += 64
                hp += 64
                var s = V(repeating: a0[p]); c00.addProduct(s, b0); c01.addProduct(s, b1)
                s = V(repeating: a1[p]); c10.addProduct(s, b0); c11.addProduct(s, b1)
                s = V(repeating: a2[p]); c20.addProduct(s, b0); c21.addProduct(s, b1)
                s = V(repeating: a3[p]); c30.addProduct(s, b0); c31.addProduct(s, b1)
                s = V(repeating: a4[p]); c40.addProduct(s, b0); c41.addProduct(s, b1)
                s = V(repeating: a5[p]); c50.addProduct(s, b0); c51.addProduct(s, b1)
                s = V(repeating: a6[p]); c60.addProduct(s, b0); c61.addProduct(s, b1)
                s = V(repeating: a7[p]); c70.addProduct(s, b0); c71.addProduct(s, b1)
            }
            @inline(__always) func put(_ r: Int, _ x: V, _ y: V) {
                let cr = c + r * ldc
                store(finish(x, row: row0 + r, column: column0, e), cr, count: 16)
                store(finish(y, row: row0 + r, column: column0 + 16, e), cr + 16, count: columns - 16)
            }
            put(0, c00, c01)
            if rows > 1 { put(1, c10, c11) }
            if rows > 2 { put(2, c20, c21) }
            if rows > 3 { put(3, c30, c31) }
            if rows > 4 { put(4, c40, c41) }
            if rows > 5 { put(5, c50, c51) }
            if rows > 6 { put(6, c60, c61) }
            if rows > 7 { put(7, c70, c71) }
        }

        /// Up to 8 rows × up to 16 columns of C (one panel).
        private static func tile16x16(
            rows: Int, columns: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>,
            c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool, row0: Int, column0: Int, _ e: GEMMEpilogue
        ) {
            typealias V = SIMD16<Float>
            let a0 = a, a1 = a + min(1, rows - 1) * lda, a2 = a + min(2, rows - 1) * lda, a3 = a + min(3, rows - 1) * lda
            let a4 = a + min(4, rows - 1) * lda, a5 = a + min(5, rows - 1) * lda, a6 = a + min(6, rows - 1) * lda, a7 = a + min(7, rows - 1) * lda
            @inline(__always) func s(_ r: Int) -> V { start(accumulate, r, rows: rows, c + r * ldc, count: columns) }
            var c0 = s(0), c1 = s(1), c2 = s(2), c3 = s(3), c4 = s(4), c5 = s(5), c6 = s(6), c7 = s(7)
            var bp = UnsafeRawPointer(b)
            for p in 0..<k {
                let b0 = bp.loadUnaligned(as: V.self)
                bp += 64
                c0.addProduct(V(repeating: a0[p]), b0)
                c1.addProduct(V(repeating: a1[p]), b0)
                c2.addProduct(V(repeating: a2[p]), b0)
                c3.addProduct(V(repeating: a3[p]), b0)
                c4.addProduct(V(repeating: a4[p]), b0)
                c5.addProduct(V(repeating: a5[p]), b0)
                c6.addProduct(V(repeating: a6[p]), b0)
                c7.addProduct(V(repeating: a7[p]), b0)
            }
            @inline(__always) func put(_ r: Int, _ x: V) {
                store(finish(x, row: row0 + r, column: column0, e), c + r * ldc, count: columns)
            }
            put(0, c0)
            if rows > 1 { put(1, c1) }
            if rows > 2 { put(2, c2) }
            if rows > 3 { put(3, c3) }
            if rows > 4 { put(4, c4) }
            if rows > 5 { put(5, c5) }
            if rows > 6 { put(6, c6) }
            if rows > 7 { put(7, c7) }
        }
    }
#endif
