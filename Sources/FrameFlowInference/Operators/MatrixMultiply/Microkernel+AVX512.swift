import CFrameFlowKernels

/// The 16-lane tile family's products (AVX-512 CPUs: see `Microkernel.wide`). Same panel
/// layout and epilogue as the 8-lane tiles, with 16-lane registers: one register holds a
/// whole 16-column panel row, so an 8 × 32 tile keeps sixteen accumulators (two FMA units ×
/// four cycles of latency need eight) and each k step is two panel loads and eight
/// broadcasts — FMA-bound, twice the arithmetic per instruction of the 8-lane tiles. Columns
/// past n in the last panel are the panel's zero padding; rows past m repeat A's last row
/// and are not stored. The tiles and their loops are C (`ff_gemm16_*`).
extension Microkernel {
    /// C[m×n] (+)= A[m×k]·B[k0 ..< k0 + k, n] through the epilogue: `b` points at row k0
    /// of the first panel of a filter packed with `panelK` rows (`b + k0 · 16`). With
    /// `accumulate` the product is added to what C holds (the epilogue belongs on the
    /// last of such calls only). This is how a convolution runs without im2col: one call
    /// per filter row, A being the input rows themselves (`NHWC.convolveInPlace`). k runs in
    /// blocks of 256 rows, so that a 32-column block of B (32 KB) stays in the L1 cache while
    /// every row tile of A passes over it.
    static func multiplyRows(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, panelK: Int, c: UnsafeMutablePointer<Float>,
        ldc: Int, epilogue e: GEMMEpilogue, accumulate: Bool
    ) {
        if m <= 0 || n <= 0 { return }
        let panels = (n + 15) / 16
        let blocks = panels / 2 + panels % 2  // 32-column tiles; an odd last panel gets a 16-column tile
        let rowTiles = (m + 7) / 8
        let streams = rowTiles <= 2 && k * n >= streamingFloats
        let ke = e.kernel
        // With `streams` (a filter too large for the caches, read once) the tiles prefetch
        // their panels ahead: the hardware prefetcher alone leaves them waiting on memory.
        func run(_ columnBlocks: Range<Int>) {
            withUnsafePointer(to: ke) { ep in
                ff_gemm16_multiply_rows(
                    m, n, k, a, lda, b, panelK, c, ldc, ep, accumulate ? 1 : 0, columnBlocks.lowerBound, columnBlocks.upperBound, streams ? 1 : 0)
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
    /// readable). AVX-512: tiles of 8 rows × 48 columns (24 accumulators: three B loads and
    /// eight broadcasts feed 24 FMAs); AVX2 and below: 6 rows × 16 columns (two B loads, six
    /// broadcasts, 12 FMAs). k in blocks of 256 so that a column block of B stays in L1
    /// while every row tile passes over it. This is a convolution without im2col
    /// (`ShiftedConvolution`): A the filter, each row of B an input plane shifted by one tap.
    /// No epilogue.
    static func multiplyShifted(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, offsets: UnsafePointer<Int>,
        c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        if wide {
            ff_gemm16_multiply_shifted(m, n, k, a, lda, b, offsets, c, ldc)
        } else {
            ff_gemm8_multiply_shifted(m, n, k, a, lda, b, offsets, c, ldc)
        }
    }
}
