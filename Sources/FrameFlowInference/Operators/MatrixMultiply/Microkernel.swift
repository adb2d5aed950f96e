import CFrameFlowKernels
import FrameFlow

/// What a `Microkernel` product does to each output before storing it: add a per-column
/// bias and a residual, then clamp (a fused RELU / RELU6 / clip). NCHW convolutions reuse it
/// to describe their fused activation (`rowSlope`, `hardSwish`, `silu`, the clamp), which
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
    /// A fused SiLU, `x·sigmoid(x)`, in place of the clamp (NCHW convolutions, applied by
    /// `Conv.activate`); not with `hardSwish`.
    var silu = false
    /// After the activation, `v · rowScale[row] + rowShift[row]` (a Mul and Add by constants
    /// that followed the activation; NCHW convolutions, applied by `Conv.activate`).
    var rowScale: UnsafePointer<Float>? = nil
    var rowShift: UnsafePointer<Float>? = nil

    /// The part the tiles apply, as the C kernels take it.
    var kernel: ff_gemm_epilogue {
        ff_gemm_epilogue(
            column_bias: columnBias, residual: residual, residual_stride: residualStride, residual_columns: residualColumns,
            column_slope: columnSlope,
            lower: lower, upper: upper)
    }

    /// Whether `Conv.activate` has anything to do.
    var activates: Bool { rowSlope != nil || lower > -.infinity || upper < .infinity || hardSwish || silu || rowScale != nil }
}

/// Register-blocked single-precision matrix products for the small, skinny products of
/// camera-sized networks: C[m×n] = A[m×k]·B[k×n], with the bias and activation applied as
/// each tile is stored.
///
/// Why not only OpenBLAS: BlazeFace's pointwise convolutions are products like
/// 4096×24 · 24×24 — OpenBLAS packs both operands and checks its threading on every call,
/// which on these sizes costs as much as the arithmetic, and then a second pass adds the
/// bias and clamps. Here a tile of C lives in registers while the k loop broadcasts one
/// element of A per row and loads a panel row of B (the shape XNNPACK and MLAS use). A is
/// read where it is; B — a constant filter — is laid out once at load in 16-column panels
/// (`PackedFilter`): each column block's k rows are then one contiguous run instead of k rows
/// a filter-width apart (for PP-OCR's 384 × 384 filters a new page every few k steps).
///
/// The tiles are C (`CFrameFlowKernels`, Gemm/), compiled for each instruction-set level, in
/// two families: 8-lane tiles (6 × 16, 6 × 8, 4 × 24 — AVX2's sixteen registers) and 16-lane
/// tiles (8 × 32, 8 × 16 — AVX-512's thirty-two, `multiplyRows`). Which family runs is
/// chosen here from the process's kernel level; either is correct at every level.
///
/// Requirements: A's rows are contiguous (row stride `lda`); B is in the panel layout
/// (`packedIndex`, `packedCount`); C is written only inside m×n.
enum Microkernel {
    /// Where element (p, j) of a k × n matrix goes in the panel layout
    /// the tiles read: 16-column panels, each k × 16 and contiguous.
    @inline(__always)
    static func packedIndex(row p: Int, column j: Int, k: Int) -> Int { (j >> 4) * k * 16 + p * 16 + (j & 15) }

    /// Floats a k × n matrix takes in the panel layout (the last panel padded to 16).
    static func packedCount(k: Int, n: Int) -> Int { (n + 15) / 16 * 16 * k }

    /// Whether the 16-lane tiles run: the process's kernels are AVX-512 ones.
    static var wide: Bool { KernelLevel.active >= .avx512 }

    /// C[m×n] = A·B through the epilogue, B in the panel layout; `wide` picks the 16-lane
    /// tiles over the 8-lane ones.
    static func multiply(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, ldc: Int,
        epilogue e: GEMMEpilogue = GEMMEpilogue(), wide: Bool = Microkernel.wide
    ) {
        if m <= 0 || n <= 0 { return }
        if wide { return multiplyRows(m: m, n: n, k: k, a: a, lda: lda, b: b, panelK: k, c: c, ldc: ldc, epilogue: e, accumulate: false) }
        var ke = e.kernel
        ff_gemm8_multiply(m, n, k, a, lda, b, c, ldc, &ke)
    }

    /// `dst[j·rows + i] = src[i·columns + j]`: a rows × columns matrix transposed (NCHW ↔
    /// NHWC), in 8 × 8 register blocks so that reads and writes each stay within a few cache
    /// lines.
    static func transpose(_ src: UnsafePointer<Float>, rows: Int, columns: Int, into dst: UnsafeMutablePointer<Float>) {
        ff_transpose_f32(src, rows, columns, columns, dst, rows)
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
}
