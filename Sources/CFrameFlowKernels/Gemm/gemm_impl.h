// Matrix-product tiles and the loops that drive them, compiled once per level (see
// ../Levels/ff_level.h). B is in 16-column panels (k × 16 floats each, contiguous; the last
// panel zero-padded). Two tile families: 8-lane (6 × 16, 6 × 8 and 4 × 24 tiles of C, the
// register shape of AVX2's sixteen registers) and 16-lane (8 × 32, 8 × 16 and the 8 × 48
// shifted tile, AVX-512's thirty-two). Swift picks the family; both are correct at every level.
// Rows of a tile past the product's repeat A's last row and are not stored.

#include <math.h>
#if FF_LEVEL == FF_LEVEL_AVX512
#include <immintrin.h>
#endif

#define GEMM_INLINE static inline __attribute__((always_inline))
/// A tile: kept out of line, so that the loops driving it do not take the registers its k
/// loop needs (inlined, its panel pointers were reloaded from the stack every k step).
#define GEMM_TILE static __attribute__((noinline))
/// Unrolls a loop over a tile's rows, so that its accumulators stay in registers.
#define GEMM_UNROLL _Pragma("clang loop unroll(full)")

// The helpers pass 8- and 16-float vectors by value; they are static and inlined, so the
// vector-ABI difference between levels the compiler warns about never crosses a call.
#pragma clang diagnostic ignored "-Wpsabi"

typedef float gemm_f2 __attribute__((ext_vector_type(2)));

/// The first `count` (< 8) floats at `p`, zeros after.
GEMM_INLINE ff_f8 gemm_partial8(const float *p, ptrdiff_t count) {
#if FF_LEVEL == FF_LEVEL_AVX512
    return (ff_f8)_mm256_maskz_loadu_ps((__mmask8)((1u << count) - 1), p);
#else
    ff_f8 v = 0;
    for (ptrdiff_t l = 0; l < count; l++) v[l] = p[l];
    return v;
#endif
}

/// The first `count` (< 16) floats at `p`, zeros after.
GEMM_INLINE ff_f16 gemm_partial16(const float *p, ptrdiff_t count) {
#if FF_LEVEL == FF_LEVEL_AVX512
    return (ff_f16)_mm512_maskz_loadu_ps((__mmask16)((1u << count) - 1), p);
#else
    ff_f16 v = 0;
    if (count >= 8) {
        v.lo = FF_LOAD(ff_f8, p);
        for (ptrdiff_t l = 8; l < count; l++) v[l] = p[l];
    } else {
        for (ptrdiff_t l = 0; l < count; l++) v[l] = p[l];
    }
    return v;
#endif
}

/// The first `count` (< 4) lanes of `v` stored at `p`.
GEMM_INLINE void gemm_store_part4(float *p, ff_f4 v, ptrdiff_t count) {
    if (count >= 2) {
        FF_STORE(p, (gemm_f2)v.xy);
        p += 2, count -= 2, v.xy = v.zw;
    }
    if (count >= 1) *p = v.x;
}

/// The first `count` lanes of `v` stored at `p` (all 8 from `count` ≥ 8).
GEMM_INLINE void gemm_store8(float *p, ff_f8 v, ptrdiff_t count) {
    if (count >= 8) {
        FF_STORE(p, v);
        return;
    }
#if FF_LEVEL == FF_LEVEL_AVX512
    _mm256_mask_storeu_ps(p, (__mmask8)((1u << count) - 1), (__m256)v);
#else
    ff_f4 h = v.lo;
    if (count >= 4) {
        FF_STORE(p, h);
        p += 4, count -= 4, h = v.hi;
    }
    gemm_store_part4(p, h, count);
#endif
}

/// The first `count` lanes of `v` stored at `p` (all 16 from `count` ≥ 16); n = 24, 40 …
/// store half a panel, inline.
GEMM_INLINE void gemm_store16(float *p, ff_f16 v, ptrdiff_t count) {
    if (count >= 16) {
        FF_STORE(p, v);
        return;
    }
#if FF_LEVEL == FF_LEVEL_AVX512
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << count) - 1), (__m512)v);
#else
    if (count >= 8) {
        FF_STORE(p, v.lo);
        gemm_store8(p + 8, v.hi, count - 8);
    } else {
        gemm_store8(p, v.lo, count);
    }
#endif
}

/// Whether the epilogue clamps.
GEMM_INLINE int gemm_clamps(const ff_gemm_epilogue *e) { return e->lower > -INFINITY || e->upper < INFINITY; }

/// Column bias, residual, slope and clamp for one 8-lane vector of C at (row, column).
GEMM_INLINE ff_f8 gemm_finish8(ff_f8 v, ptrdiff_t row, ptrdiff_t column, const ff_gemm_epilogue *e) {
    if (e->column_bias) v += FF_LOAD(ff_f8, e->column_bias + column);
    if (e->residual && column < e->residual_columns) {
        const float *rp = e->residual + row * e->residual_stride + column;
        v += column + 8 <= e->residual_columns ? FF_LOAD(ff_f8, rp) : gemm_partial8(rp, e->residual_columns - column);
    }
    if (e->column_slope) {
        ff_f8 s = FF_LOAD(ff_f8, e->column_slope + column);
        v = v < 0 ? v * s : v;
    }
    if (gemm_clamps(e)) {
        ff_f8 lo = e->lower, hi = e->upper;
        v = v < lo ? lo : v;
        v = v > hi ? hi : v;
    }
    return v;
}

/// Column bias, residual, slope and clamp for one 16-lane vector of C at (row, column).
GEMM_INLINE ff_f16 gemm_finish16(ff_f16 v, ptrdiff_t row, ptrdiff_t column, const ff_gemm_epilogue *e) {
    if (e->column_bias) v += FF_LOAD(ff_f16, e->column_bias + column);
    if (e->residual && column < e->residual_columns) {
        const float *rp = e->residual + row * e->residual_stride + column;
        ptrdiff_t left = e->residual_columns - column;
        v += left >= 16 ? FF_LOAD(ff_f16, rp) : gemm_partial16(rp, left);
    }
    if (e->column_slope) {
        ff_f16 s = FF_LOAD(ff_f16, e->column_slope + column);
        v = v < 0 ? v * s : v;
    }
    if (gemm_clamps(e)) {
        ff_f16 lo = e->lower, hi = e->upper;
        v = v < lo ? lo : v;
        v = v > hi ? hi : v;
    }
    return v;
}

/// Whether a full tile `width` columns wide from `column0` can take `GEMM_STORE_FULL`: no
/// PRELU slope, and a residual (if any) covering all its columns.
GEMM_INLINE int gemm_full(ptrdiff_t rows, ptrdiff_t full_rows, ptrdiff_t columns, ptrdiff_t width, ptrdiff_t column0, const ff_gemm_epilogue *e) {
    return rows == full_rows && columns == width && !e->column_slope && (!e->residual || column0 + width <= e->residual_columns);
}

/// Stores R rows × V vectors (type VT, L lanes) of accumulators through the bias, residual and
/// clamp, every check made once for the tile (per vector, the epilogue's branches were half of
/// a 6 × 16 tile's time at k = 16). Same operations in the same order as `gemm_finish8/16`.
#define GEMM_STORE_FULL(VT, L, R, V, acc, c, ldc, row0, column0, e)                                                                \
    do {                                                                                                                           \
        const VT lo_ = (e)->lower, hi_ = (e)->upper;                                                                               \
        VT bias_[V];                                                                                                               \
        for (int q = 0; q < V; q++) bias_[q] = (e)->column_bias ? FF_LOAD(VT, (e)->column_bias + (column0) + L * q) : (VT)0;       \
        const float *res_ = (e)->residual ? (e)->residual + (row0) * (e)->residual_stride + (column0) : 0;                         \
        GEMM_UNROLL for (int r = 0; r < R; r++) {                                                                                 \
            GEMM_UNROLL for (int q = 0; q < V; q++) {                                                                             \
                VT v = acc[q][r] + bias_[q];                                                                                       \
                if (res_) v += FF_LOAD(VT, res_ + r * (e)->residual_stride + L * q);                                               \
                v = v < lo_ ? lo_ : v;                                                                                             \
                v = v > hi_ ? hi_ : v;                                                                                             \
                FF_STORE((c) + r * (ldc) + L * q, v);                                                                              \
            }                                                                                                                      \
        }                                                                                                                          \
    } while (0)

/// Pins a broadcast row value in a register where it is made. AVX2's sixteen registers hold
/// the 4 × 24 tile's twelve accumulators, two panel vectors and a broadcast (the third panel
/// vector is read by each FMA); unpinned, the scheduler started the next row's broadcast
/// early and spilled an accumulator every k step.
#if FF_LEVEL == FF_LEVEL_AVX2
#define GEMM_PIN(v) __asm__ volatile("" : "+x"(v))
#else
#define GEMM_PIN(v) (void)0
#endif

/// A's row r of a tile of `rows` rows (past them, the last row again).
#define GEMM_ROWS(n)                                                                   \
    const float *ar[n];                                                                \
    for (int r = 0; r < n; r++) ar[r] = a + (r < rows ? r : rows - 1) * lda;

// ---- The 8-lane family

/// Up to 6 rows × 9…16 columns of C from one panel.
GEMM_TILE void gemm8_tile16(
    ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, float *c, ptrdiff_t ldc, ptrdiff_t row0,
    ptrdiff_t column0, const ff_gemm_epilogue *e) {
    GEMM_ROWS(6)
    ff_f8 c0[6], c1[6];
    for (int r = 0; r < 6; r++) c0[r] = c1[r] = 0;
    for (ptrdiff_t p = 0; p < k; p++, b += 16) {
        ff_f8 b0 = FF_LOAD(ff_f8, b), b1 = FF_LOAD(ff_f8, b + 8);
        for (int r = 0; r < 6; r++) {
            ff_f8 s = ar[r][p];
            c0[r] = s * b0 + c0[r];
            c1[r] = s * b1 + c1[r];
        }
    }
    if (gemm_full(rows, 6, columns, 16, column0, e)) {
        ff_f8 *acc[2] = {c0, c1};
        GEMM_STORE_FULL(ff_f8, 8, 6, 2, acc, c, ldc, row0, column0, e);
        return;
    }
    GEMM_UNROLL for (int r = 0; r < 6; r++) if (r < rows) {
        float *cr = c + r * ldc;
        gemm_store8(cr, gemm_finish8(c0[r], row0 + r, column0, e), 8);
        gemm_store8(cr + 8, gemm_finish8(c1[r], row0 + r, column0 + 8, e), columns - 8);
    }
}

/// Up to 6 rows × up to 8 columns of C.
GEMM_TILE void gemm8_tile8(
    ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, float *c, ptrdiff_t ldc, ptrdiff_t row0,
    ptrdiff_t column0, const ff_gemm_epilogue *e) {
    GEMM_ROWS(6)
    ff_f8 c0[6];
    for (int r = 0; r < 6; r++) c0[r] = 0;
    for (ptrdiff_t p = 0; p < k; p++, b += 16) {
        ff_f8 b0 = FF_LOAD(ff_f8, b);
        for (int r = 0; r < 6; r++) c0[r] = (ff_f8)ar[r][p] * b0 + c0[r];
    }
    if (gemm_full(rows, 6, columns, 8, column0, e)) {
        ff_f8 *acc[1] = {c0};
        GEMM_STORE_FULL(ff_f8, 8, 6, 1, acc, c, ldc, row0, column0, e);
        return;
    }
    GEMM_UNROLL for (int r = 0; r < 6; r++) if (r < rows) gemm_store8(c + r * ldc, gemm_finish8(c0[r], row0 + r, column0, e), columns);
}

/// Up to 4 rows × 17…24 columns of C: columns 0–15 from panel `b`, 16–23 from `high`.
GEMM_TILE void gemm8_tile24(
    ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const float *high, float *c, ptrdiff_t ldc,
    ptrdiff_t row0, ptrdiff_t column0, const ff_gemm_epilogue *e) {
    GEMM_ROWS(4)
    ff_f8 c0[4], c1[4], c2[4];
    for (int r = 0; r < 4; r++) c0[r] = c1[r] = c2[r] = 0;
    for (ptrdiff_t p = 0; p < k; p++, b += 16, high += 16) {
        ff_f8 b0 = FF_LOAD(ff_f8, b), b1 = FF_LOAD(ff_f8, b + 8);
        for (int r = 0; r < 4; r++) {
            ff_f8 s = ar[r][p];
            GEMM_PIN(s);
            c0[r] = s * b0 + c0[r];
            c1[r] = s * b1 + c1[r];
            c2[r] = s * FF_LOAD(ff_f8, high) + c2[r];  // read per row: AVX2 folds it into the FMA
        }
    }
    if (gemm_full(rows, 4, columns, 24, column0, e)) {
        ff_f8 *acc[3] = {c0, c1, c2};
        GEMM_STORE_FULL(ff_f8, 8, 4, 3, acc, c, ldc, row0, column0, e);
        return;
    }
    GEMM_UNROLL for (int r = 0; r < 4; r++) if (r < rows) {
        float *cr = c + r * ldc;
        gemm_store8(cr, gemm_finish8(c0[r], row0 + r, column0, e), 8);
        gemm_store8(cr + 8, gemm_finish8(c1[r], row0 + r, column0 + 8, e), 8);
        gemm_store8(cr + 16, gemm_finish8(c2[r], row0 + r, column0 + 16, e), columns - 16);
    }
}

void FF_FN(ff_gemm8_multiply)(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, float *c, ptrdiff_t ldc, const ff_gemm_epilogue *epilogue) {
    if (m <= 0 || n <= 0) return;
    const ff_gemm_epilogue ep = *epilogue, *e = &ep;  // a copy: stores to C cannot change it
    enum { R = 6 };
    // Keep the smaller operand in cache: walk tiles of A's rows over all of B when B is the
    // small one (NHWC: B is the weights), columns of B over all of A otherwise.
    int rowsOuter = n * k <= m * k;
    // Column blocks of 16; when 1…8 columns are left over (n = 24, 56, 88 …) the last 16 + r
    // columns go to a 4 × 24 tile instead of a 16-wide and a half-empty 8-wide one.
    ptrdiff_t rem = n % 16;
    int wideTail = n >= 24 && rem > 0 && rem <= 8;
    ptrdiff_t blocks = wideTail ? n / 16 : (n + 15) / 16;  // the wide tail counts as one
    ptrdiff_t narrow = wideTail ? blocks - 1 : blocks;
#define GEMM8_TILE(t, blk)                                                                                                     \
    do {                                                                                                                       \
        ptrdiff_t i0 = (t) * R, rows_ = m - i0 < R ? m - i0 : R, j0 = (blk) * 16, width = n - j0 < 16 ? n - j0 : 16;         \
        if (width > 8)                                                                                                         \
            gemm8_tile16(rows_, width, k, a + i0 * lda, lda, b + j0 * k, c + i0 * ldc + j0, ldc, i0, j0, e);                   \
        else                                                                                                                   \
            gemm8_tile8(rows_, width, k, a + i0 * lda, lda, b + j0 * k, c + i0 * ldc + j0, ldc, i0, j0, e);                    \
    } while (0)
#define GEMM8_WIDE(t)                                                                                                          \
    do {                                                                                                                       \
        ptrdiff_t i0 = (t) * 4, rows_ = m - i0 < 4 ? m - i0 : 4, j0 = (blocks - 1) * 16;                                       \
        gemm8_tile24(rows_, n - j0, k, a + i0 * lda, lda, b + j0 * k, b + (j0 + 16) * k, c + i0 * ldc + j0, ldc, i0, j0, e);   \
    } while (0)
    if (rowsOuter) {
        // Row tiles of 6 over the 16-wide blocks, then of 4 over the wide tail, in bands of
        // 12 rows so that both passes find A's rows in cache.
        for (ptrdiff_t i = 0; i < m; i += 12) {
            ptrdiff_t band = m - i < 12 ? m - i : 12;
            for (ptrdiff_t t = i / R; t < (i + band + R - 1) / R; t++)
                for (ptrdiff_t blk = 0; blk < narrow; blk++) GEMM8_TILE(t, blk);
            if (wideTail)
                for (ptrdiff_t t = i / 4; t < (i + band + 3) / 4; t++) GEMM8_WIDE(t);
        }
    } else {
        for (ptrdiff_t blk = 0; blk < narrow; blk++)
            for (ptrdiff_t t = 0; t < (m + R - 1) / R; t++) GEMM8_TILE(t, blk);
        if (wideTail)
            for (ptrdiff_t t = 0; t < (m + 3) / 4; t++) GEMM8_WIDE(t);
    }
#undef GEMM8_TILE
#undef GEMM8_WIDE
}

// ---- The 16-lane family

/// Rows of B per k block: a 32-column block of B (32 KB) then stays in L1 while every row
/// tile of A passes over it.
#define GEMM_KBLOCK 256
/// Floats ahead of a streaming tile's panel reads that its prefetches ask for (2 KB).
#define GEMM_PREFETCH 512

/// The accumulator a tile starts from: C's current values when adding a later k block to
/// it, else zero (rows past the tile's are never read).
GEMM_INLINE ff_f16 gemm_start16(int accumulate, int r, ptrdiff_t rows, const float *p, ptrdiff_t count) {
    if (!accumulate || r >= rows) return (ff_f16)0;
    if (count >= 16) return FF_LOAD(ff_f16, p);
    return gemm_partial16(p, count);
}

/// The k loop of an R × 32 tile (two panels per k step), optionally prefetching.
#define GEMM16_LOOP32(PREFETCH, R)                                                               \
    for (ptrdiff_t p = 0; p < k; p++, b += 16, high += 16) {                                     \
        ff_f16 b0 = FF_LOAD(ff_f16, b), b1 = FF_LOAD(ff_f16, high);                              \
        if (PREFETCH) {                                                                          \
            __builtin_prefetch(b + GEMM_PREFETCH, 0, 3);                                         \
            __builtin_prefetch(high + GEMM_PREFETCH, 0, 3);                                      \
        }                                                                                        \
        for (int r = 0; r < R; r++) {                                                            \
            ff_f16 s = ar[r][p];                                                                 \
            c0[r] = s * b0 + c0[r];                                                              \
            c1[r] = s * b1 + c1[r];                                                              \
        }                                                                                        \
    }

/// The 16-lane tiles of R rows (8, and 7 for products of 49 rows and the like, which 8-row
/// tiles would pad by an eighth):
/// - T32: up to R rows × 17…32 columns of C, columns 0–15 from panel `b`, 16–31 from `high`.
///   With `prefetch` (a filter too large for the caches, read once) each k step also asks for
///   the panel lines 2 KB ahead: the hardware prefetcher alone leaves such a product waiting
///   on memory; tiles whose panels are in cache lose by the extra loads.
/// - T16: up to R rows × up to 16 columns of C (one panel).
#define GEMM16_TILES(R, T32, T16)                                                                                                              \
    GEMM_TILE void T32(                                                                                                                        \
        ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const float *high, float *c, ptrdiff_t ldc, \
        int accumulate, ptrdiff_t row0, ptrdiff_t column0, const ff_gemm_epilogue *e, int prefetch) {                                         \
        GEMM_ROWS(R)                                                                                                                           \
        ff_f16 c0[R], c1[R];                                                                                                                   \
        for (int r = 0; r < R; r++) {                                                                                                          \
            c0[r] = gemm_start16(accumulate, r, rows, c + r * ldc, 16);                                                                        \
            c1[r] = gemm_start16(accumulate, r, rows, c + r * ldc + 16, columns - 16);                                                         \
        }                                                                                                                                      \
        if (prefetch) {                                                                                                                        \
            GEMM16_LOOP32(1, R)                                                                                                                \
        } else {                                                                                                                               \
            GEMM16_LOOP32(0, R)                                                                                                                \
        }                                                                                                                                      \
        if (gemm_full(rows, R, columns, 32, column0, e)) {                                                                                     \
            ff_f16 *acc[2] = {c0, c1};                                                                                                         \
            GEMM_STORE_FULL(ff_f16, 16, R, 2, acc, c, ldc, row0, column0, e);                                                                  \
            return;                                                                                                                            \
        }                                                                                                                                      \
        GEMM_UNROLL for (int r = 0; r < R; r++) if (r < rows) {                                                                                \
            float *cr = c + r * ldc;                                                                                                           \
            gemm_store16(cr, gemm_finish16(c0[r], row0 + r, column0, e), 16);                                                                  \
            gemm_store16(cr + 16, gemm_finish16(c1[r], row0 + r, column0 + 16, e), columns - 16);                                              \
        }                                                                                                                                      \
    }                                                                                                                                          \
    GEMM_TILE void T16(                                                                                                                        \
        ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, float *c, ptrdiff_t ldc, int accumulate, \
        ptrdiff_t row0, ptrdiff_t column0, const ff_gemm_epilogue *e) {                                                                        \
        GEMM_ROWS(R)                                                                                                                           \
        ff_f16 c0[R];                                                                                                                          \
        for (int r = 0; r < R; r++) c0[r] = gemm_start16(accumulate, r, rows, c + r * ldc, columns);                                           \
        for (ptrdiff_t p = 0; p < k; p++, b += 16) {                                                                                           \
            ff_f16 b0 = FF_LOAD(ff_f16, b);                                                                                                    \
            for (int r = 0; r < R; r++) c0[r] = (ff_f16)ar[r][p] * b0 + c0[r];                                                                 \
        }                                                                                                                                      \
        if (gemm_full(rows, R, columns, 16, column0, e)) {                                                                                     \
            ff_f16 *acc[1] = {c0};                                                                                                             \
            GEMM_STORE_FULL(ff_f16, 16, R, 1, acc, c, ldc, row0, column0, e);                                                                  \
            return;                                                                                                                            \
        }                                                                                                                                      \
        GEMM_UNROLL for (int r = 0; r < R; r++) if (r < rows) gemm_store16(c + r * ldc, gemm_finish16(c0[r], row0 + r, column0, e), columns); \
    }
GEMM16_TILES(8, gemm16_tile32, gemm16_tile16)
GEMM16_TILES(7, gemm16_tile32_7, gemm16_tile16_7)
#undef GEMM16_TILES

void FF_FN(ff_gemm16_multiply_rows)(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, ptrdiff_t panel_k, float *c, ptrdiff_t ldc,
    const ff_gemm_epilogue *epilogue, int accumulate, ptrdiff_t block0, ptrdiff_t block1, int prefetch) {
    if (m <= 0 || n <= 0) return;
    const ff_gemm_epilogue last = *epilogue, none = {0, 0, 0, 0, 0, -INFINITY, INFINITY};
    // Tiles of 7 rows where they pad less than tiles of 8 (49 rows: 7 × 7 against 7 × 8).
    const ptrdiff_t R = m <= 64 && (m + 6) / 7 * 7 < (m + 7) / 8 * 8 ? 7 : 8;
    ptrdiff_t rowTiles = (m + R - 1) / R, kmax = k > 1 ? k : 1;
    for (ptrdiff_t p0 = 0; p0 < kmax; p0 += GEMM_KBLOCK) {  // k = 0: one pass, the epilogue alone
        ptrdiff_t kb = k - p0 < GEMM_KBLOCK ? k - p0 : GEMM_KBLOCK;
        int first = p0 == 0 && !accumulate;
        const ff_gemm_epilogue *e = p0 + kb == k ? &last : &none;
        for (ptrdiff_t blk = block0; blk < block1; blk++) {
            ptrdiff_t j0 = blk * 32, width = n - j0 < 32 ? n - j0 : 32;
            const float *panel = b + j0 * panel_k + p0 * 16;  // (j0 / 16) · panel_k · 16
            for (ptrdiff_t t = 0; t < rowTiles; t++) {
                ptrdiff_t i0 = t * R, rows = m - i0 < R ? m - i0 : R;
                const float *ai = a + i0 * lda + p0;
                if (R == 7 && width > 16)
                    gemm16_tile32_7(rows, width, kb, ai, lda, panel, panel + 16 * panel_k, c + i0 * ldc + j0, ldc, !first, i0, j0, e, prefetch);
                else if (R == 7)
                    gemm16_tile16_7(rows, width, kb, ai, lda, panel, c + i0 * ldc + j0, ldc, !first, i0, j0, e);
                else if (width > 16)
                    gemm16_tile32(rows, width, kb, ai, lda, panel, panel + 16 * panel_k, c + i0 * ldc + j0, ldc, !first, i0, j0, e, prefetch);
                else
                    gemm16_tile16(rows, width, kb, ai, lda, panel, c + i0 * ldc + j0, ldc, !first, i0, j0, e);
            }
        }
    }
}

/// Up to 8 rows × 48 columns of C for `ff_gemm16_multiply_shifted`; each k step loads three
/// B vectors from `b + offsets[p]`.
GEMM_TILE void gemm16_tile_shifted(
    ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc,
    int accumulate) {
    GEMM_ROWS(8)
    // Columns held by each of the three vectors (0 … 16).
    ptrdiff_t cn[3] = {columns < 16 ? columns : 16, columns - 16 < 0 ? 0 : columns - 16 < 16 ? columns - 16 : 16, columns - 32 < 0 ? 0 : columns - 32};
    ff_f16 acc[8][3];
    for (int r = 0; r < 8; r++)
        for (int q = 0; q < 3; q++) acc[r][q] = cn[q] > 0 ? gemm_start16(accumulate, r, rows, c + r * ldc + 16 * q, cn[q]) : (ff_f16)0;
    for (ptrdiff_t p = 0; p < k; p++) {
        const float *row = b + offsets[p];
        ff_f16 b0 = FF_LOAD(ff_f16, row), b1 = FF_LOAD(ff_f16, row + 16), b2 = FF_LOAD(ff_f16, row + 32);
        for (int r = 0; r < 8; r++) {
            ff_f16 s = ar[r][p];
            acc[r][0] = s * b0 + acc[r][0];
            acc[r][1] = s * b1 + acc[r][1];
            acc[r][2] = s * b2 + acc[r][2];
        }
    }
    GEMM_UNROLL for (int r = 0; r < 8; r++) if (r < rows)
        for (int q = 0; q < 3; q++)
            if (cn[q] > 0) gemm_store16(c + r * ldc + 16 * q, acc[r][q], cn[q]);
}

void FF_FN(ff_gemm16_multiply_shifted)(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc) {
    if (m <= 0 || n <= 0) return;
    ptrdiff_t rowTiles = (m + 7) / 8, kmax = k > 1 ? k : 1;
    for (ptrdiff_t j0 = 0; j0 < n; j0 += 48)
        for (ptrdiff_t p0 = 0; p0 < kmax; p0 += GEMM_KBLOCK)
            for (ptrdiff_t t = 0; t < rowTiles; t++) {
                ptrdiff_t i0 = t * 8;
                gemm16_tile_shifted(
                    m - i0 < 8 ? m - i0 : 8, n - j0 < 48 ? n - j0 : 48, k - p0 < GEMM_KBLOCK ? k - p0 : GEMM_KBLOCK, a + i0 * lda + p0, lda, b + j0,
                    offsets + p0, c + i0 * ldc + j0, ldc, p0 > 0);
            }
}

/// The accumulator an 8-lane tile starts from: C's current values when adding a later k
/// block to it, else zero.
GEMM_INLINE ff_f8 gemm_start8(int accumulate, int r, ptrdiff_t rows, const float *p, ptrdiff_t count) {
    if (!accumulate || r >= rows || count <= 0) return (ff_f8)0;
    if (count >= 8) return FF_LOAD(ff_f8, p);
    return gemm_partial8(p, count);
}

/// Up to 6 rows × 16 columns of C for `ff_gemm8_multiply_shifted`; each k step loads two
/// B vectors from `b + offsets[p]` and broadcasts six filter values (AVX2's sixteen
/// registers: twelve accumulators, two B vectors, a broadcast).
GEMM_TILE void gemm8_tile_shifted(
    ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc,
    int accumulate) {
    GEMM_ROWS(6)
    ptrdiff_t n0 = columns < 8 ? columns : 8, n1 = columns - 8 < 0 ? 0 : columns - 8;
    ff_f8 c0[6], c1[6];
    for (int r = 0; r < 6; r++) {
        c0[r] = gemm_start8(accumulate, r, rows, c + r * ldc, n0);
        c1[r] = gemm_start8(accumulate, r, rows, c + r * ldc + 8, n1);
    }
    for (ptrdiff_t p = 0; p < k; p++) {
        const float *row = b + offsets[p];
        ff_f8 b0 = FF_LOAD(ff_f8, row), b1 = FF_LOAD(ff_f8, row + 8);
        for (int r = 0; r < 6; r++) {
            ff_f8 s = ar[r][p];
            GEMM_PIN(s);
            c0[r] = s * b0 + c0[r];
            c1[r] = s * b1 + c1[r];
        }
    }
    GEMM_UNROLL for (int r = 0; r < 6; r++) if (r < rows) {
        gemm_store8(c + r * ldc, c0[r], n0);
        if (n1 > 0) gemm_store8(c + r * ldc + 8, c1[r], n1);
    }
}

void FF_FN(ff_gemm8_multiply_shifted)(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc) {
    if (m <= 0 || n <= 0) return;
    ptrdiff_t rowTiles = (m + 5) / 6, kmax = k > 1 ? k : 1;
    // 16 columns × 256 k rows of B (16 KB) stay in L1 while every row tile passes over them.
    for (ptrdiff_t j0 = 0; j0 < n; j0 += 16)
        for (ptrdiff_t p0 = 0; p0 < kmax; p0 += GEMM_KBLOCK)
            for (ptrdiff_t t = 0; t < rowTiles; t++) {
                ptrdiff_t i0 = t * 6;
                gemm8_tile_shifted(
                    m - i0 < 6 ? m - i0 : 6, n - j0 < 16 ? n - j0 : 16, k - p0 < GEMM_KBLOCK ? k - p0 : GEMM_KBLOCK, a + i0 * lda + p0, lda, b + j0,
                    offsets + p0, c + i0 * ldc + j0, ldc, p0 > 0);
            }
}

// ---- Transposes and the shifted convolution's helpers

/// An 8 × 8 block transposed in registers: pairs interleaved, then quadruples, then halves
/// exchanged (24 shuffles).
GEMM_INLINE void gemm_transpose8x8(ff_f8 r[8]) {
    ff_f8 t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = __builtin_shufflevector(r[2 * i], r[2 * i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[2 * i + 1] = __builtin_shufflevector(r[2 * i], r[2 * i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 2; i++)
        for (int h = 0; h < 2; h++) {
            ff_f8 x = t[4 * i + h], y = t[4 * i + h + 2];
            u[4 * i + 2 * h] = __builtin_shufflevector(x, y, 0, 1, 8, 9, 4, 5, 12, 13);
            u[4 * i + 2 * h + 1] = __builtin_shufflevector(x, y, 2, 3, 10, 11, 6, 7, 14, 15);
        }
    for (int j = 0; j < 4; j++) {
        r[j] = __builtin_shufflevector(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        r[j + 4] = __builtin_shufflevector(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

void FF_FN(ff_transpose_f32)(const float *src, ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t ls, float *dst, ptrdiff_t ld) {
    for (ptrdiff_t i0 = 0; i0 < rows; i0 += 8) {
        ptrdiff_t i1 = i0 + 8 < rows ? i0 + 8 : rows;
        for (ptrdiff_t j0 = 0; j0 < columns; j0 += 8) {
            ptrdiff_t j1 = j0 + 8 < columns ? j0 + 8 : columns;
            if (i1 - i0 == 8 && j1 - j0 == 8) {  // a whole block: eight row loads, eight column stores
                ff_f8 r[8];
                for (int q = 0; q < 8; q++) r[q] = FF_LOAD(ff_f8, src + (i0 + q) * ls + j0);
                gemm_transpose8x8(r);
                for (int q = 0; q < 8; q++) FF_STORE(dst + (j0 + q) * ld + i0, r[q]);
                continue;
            }
            for (ptrdiff_t i = i0; i < i1; i++)
                for (ptrdiff_t j = j0; j < j1; j++) dst[j * ld + i] = src[i * ls + j];
        }
    }
}

void FF_FN(ff_transpose_bias_clamp_f32)(
    const float *src, ptrdiff_t stride, ptrdiff_t pixels, ptrdiff_t outputs, float *dst, const float *bias, float lower, float upper) {
    ff_f8 lo = lower, hi = upper;
    ptrdiff_t whole = outputs / 8 * 8, x0 = 0;
#define GEMM_ONE(v) ({ float v_ = (v); v_ = v_ < lower ? lower : v_; v_ > upper ? upper : v_; })
    for (; x0 + 8 <= pixels; x0 += 8) {
        for (ptrdiff_t o0 = 0; o0 < whole; o0 += 8) {
            ff_f8 r[8];
            for (int q = 0; q < 8; q++) r[q] = FF_LOAD(ff_f8, src + (o0 + q) * stride + x0);
            gemm_transpose8x8(r);
            ff_f8 bv = bias ? FF_LOAD(ff_f8, bias + o0) : (ff_f8)0;
            for (int j = 0; j < 8; j++) {
                ff_f8 v = r[j] + bv;
                v = v < lo ? lo : v;
                v = v > hi ? hi : v;
                FF_STORE(dst + (x0 + j) * outputs + o0, v);
            }
        }
        for (ptrdiff_t o = whole; o < outputs; o++)
            for (int j = 0; j < 8; j++) dst[(x0 + j) * outputs + o] = GEMM_ONE(src[o * stride + x0 + j] + (bias ? bias[o] : 0));
    }
    for (ptrdiff_t x = x0; x < pixels; x++)
        for (ptrdiff_t o = 0; o < outputs; o++) dst[x * outputs + o] = GEMM_ONE(src[o * stride + x] + (bias ? bias[o] : 0));
#undef GEMM_ONE
}

void FF_FN(ff_shifted_depthwise_f32)(const float *base, const ptrdiff_t *offsets, ptrdiff_t taps, const float *w, float bias, ptrdiff_t n, float *out) {
    // Four runs of 16 at a time: four independent chains of multiply-adds.
    for (ptrdiff_t j = 0; j < n; j += 64) {
        ff_f16 a0 = bias, a1 = bias, a2 = bias, a3 = bias;
        for (ptrdiff_t t = 0; t < taps; t++) {
            ff_f16 wv = w[t];
            const float *s = base + offsets[t] + j;
            a0 = wv * FF_LOAD(ff_f16, s) + a0;
            a1 = wv * FF_LOAD(ff_f16, s + 16) + a1;
            a2 = wv * FF_LOAD(ff_f16, s + 32) + a2;
            a3 = wv * FF_LOAD(ff_f16, s + 48) + a3;
        }
        FF_STORE(out + j, a0);
        FF_STORE(out + j + 16, a1);
        FF_STORE(out + j + 32, a2);
        FF_STORE(out + j + 48, a3);
    }
}

void FF_FN(ff_strided_copy_f32)(float *d, const float *s, ptrdiff_t step, ptrdiff_t count, ptrdiff_t readable) {
    ptrdiff_t i = 0;
    if (step == 2)
        for (; i + 16 <= count && 2 * i + 32 <= readable; i += 16) {
            ff_f16 lo = FF_LOAD(ff_f16, s + 2 * i), hi = FF_LOAD(ff_f16, s + 2 * i + 16);
            FF_STORE(d + i, __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
        }
    // Scalar moves: vectorised, this loop became gather instructions, which on AVX-512 CPUs cost
    // 2.4 cycles an element.
#pragma clang loop vectorize(disable) interleave(disable)
    for (; i < count; i++) d[i] = s[i * step];
}
