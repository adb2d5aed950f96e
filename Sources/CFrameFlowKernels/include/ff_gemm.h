#ifndef FF_GEMM_H
#define FF_GEMM_H

#include <stddef.h>

/// What a matrix-product tile does to each output before storing it, in this order: add a
/// per-column bias, add a residual, multiply negative values by a per-column slope (PRELU),
/// clamp to [lower, upper]. Null pointers skip their step; ±infinity bounds skip the clamp.
typedef struct ff_gemm_epilogue {
    /// One value per column of C, readable for the column count rounded up to 16.
    const float *column_bias;
    /// Added with row stride `residual_stride`; columns from `residual_columns` on count as zero.
    const float *residual;
    ptrdiff_t residual_stride;
    ptrdiff_t residual_columns;
    /// One slope per column of C, readable like `column_bias`.
    const float *column_slope;
    float lower, upper;
} ff_gemm_epilogue;

/// C[m×n] = A[m×k]·B through the epilogue with the 8-lane tiles (6 × 16, 6 × 8, 4 × 24).
/// A's rows are `lda` apart; B is in 16-column panels (element (p, j) at
/// (j / 16)·k·16 + p·16 + j % 16, the last panel padded); only C's m × n is written.
void ff_gemm8_multiply(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, float *c, ptrdiff_t ldc, const ff_gemm_epilogue *e);

/// C[m×n] (+)= A[m×k]·B[k0 ..< k0 + k, n] with the 16-lane tiles (8 × 32, 8 × 16; 7 rows
/// where m ≤ 64 pads less that way), for the 32-column blocks `block0 ..< block1` only: `b` points at row k0 of the first panel of a
/// filter packed with `panel_k` rows. With `accumulate` the product is added to C; k runs in
/// blocks of 256, the epilogue on the last. `prefetch`: ask for the panels 2 KB ahead (a
/// filter streaming from memory).
void ff_gemm16_multiply_rows(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, ptrdiff_t panel_k, float *c, ptrdiff_t ldc,
    const ff_gemm_epilogue *e, int accumulate, ptrdiff_t block0, ptrdiff_t block1, int prefetch);

/// C[m×n] = A[m×k]·B where row p of B is the n floats at `b + offsets[p]` (up to 47 floats
/// past n are read), in 8 × 48 tiles, k in blocks of 256. No epilogue.
void ff_gemm16_multiply_shifted(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc);

/// `ff_gemm16_multiply_shifted` with the 8-lane tiles (6 × 16, k in blocks of 256; up to 15
/// floats past n are read).
void ff_gemm8_multiply_shifted(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc);

/// `dst[j·ld + i] = src[i·ls + j]` for i < rows, j < columns, in 8 × 8 register blocks.
void ff_transpose_f32(const float *src, ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t ls, float *dst, ptrdiff_t ld);

/// `dst[x·outputs + o] = clamp(src[o·stride + x] + bias[o], lower, upper)` for x < pixels,
/// o < outputs (`bias` may be null): a channel-major block stored pixel-major.
void ff_transpose_bias_clamp_f32(
    const float *src, ptrdiff_t stride, ptrdiff_t pixels, ptrdiff_t outputs, float *dst, const float *bias, float lower, float upper);

/// `out[j] = bias + Σ_t w[t]·base[offsets[t] + j]` for j < n rounded up to 64 (reads and
/// writes that far).
void ff_shifted_depthwise_f32(const float *base, const ptrdiff_t *offsets, ptrdiff_t taps, const float *w, float bias, ptrdiff_t n, float *out);

/// `d[i] = s[i·step]` for i < count, where `readable` floats from `s` may be read.
void ff_strided_copy_f32(float *d, const float *s, ptrdiff_t step, ptrdiff_t count, ptrdiff_t readable);

#endif
