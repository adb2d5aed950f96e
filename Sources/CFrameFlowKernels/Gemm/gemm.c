#include "../Levels/ff_dispatch.h"

FF_DECLARE(void, ff_gemm8_multiply,
    (ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, float *c, ptrdiff_t ldc, const ff_gemm_epilogue *e))
void ff_gemm8_multiply(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, float *c, ptrdiff_t ldc, const ff_gemm_epilogue *e) {
    FF_CALL(ff_gemm8_multiply, (m, n, k, a, lda, b, c, ldc, e))
}

FF_DECLARE(void, ff_gemm16_multiply_rows,
    (ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, ptrdiff_t panel_k, float *c, ptrdiff_t ldc,
        const ff_gemm_epilogue *e, int accumulate, ptrdiff_t block0, ptrdiff_t block1, int prefetch))
void ff_gemm16_multiply_rows(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, ptrdiff_t panel_k, float *c, ptrdiff_t ldc,
    const ff_gemm_epilogue *e, int accumulate, ptrdiff_t block0, ptrdiff_t block1, int prefetch) {
    FF_CALL(ff_gemm16_multiply_rows, (m, n, k, a, lda, b, panel_k, c, ldc, e, accumulate, block0, block1, prefetch))
}

FF_DECLARE(void, ff_gemm16_multiply_shifted,
    (ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc))
void ff_gemm16_multiply_shifted(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc) {
    FF_CALL(ff_gemm16_multiply_shifted, (m, n, k, a, lda, b, offsets, c, ldc))
}

FF_DECLARE(void, ff_transpose_f32, (const float *src, ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t ls, float *dst, ptrdiff_t ld))
void ff_transpose_f32(const float *src, ptrdiff_t rows, ptrdiff_t columns, ptrdiff_t ls, float *dst, ptrdiff_t ld) {
    FF_CALL(ff_transpose_f32, (src, rows, columns, ls, dst, ld))
}

FF_DECLARE(void, ff_transpose_bias_clamp_f32,
    (const float *src, ptrdiff_t stride, ptrdiff_t pixels, ptrdiff_t outputs, float *dst, const float *bias, float lower, float upper))
void ff_transpose_bias_clamp_f32(
    const float *src, ptrdiff_t stride, ptrdiff_t pixels, ptrdiff_t outputs, float *dst, const float *bias, float lower, float upper) {
    FF_CALL(ff_transpose_bias_clamp_f32, (src, stride, pixels, outputs, dst, bias, lower, upper))
}

FF_DECLARE(void, ff_shifted_depthwise_f32,
    (const float *base, const ptrdiff_t *offsets, ptrdiff_t taps, const float *w, float bias, ptrdiff_t n, float *out))
void ff_shifted_depthwise_f32(const float *base, const ptrdiff_t *offsets, ptrdiff_t taps, const float *w, float bias, ptrdiff_t n, float *out) {
    FF_CALL(ff_shifted_depthwise_f32, (base, offsets, taps, w, bias, n, out))
}

FF_DECLARE(void, ff_strided_copy_f32, (float *d, const float *s, ptrdiff_t step, ptrdiff_t count, ptrdiff_t readable))
void ff_strided_copy_f32(float *d, const float *s, ptrdiff_t step, ptrdiff_t count, ptrdiff_t readable) {
    FF_CALL(ff_strided_copy_f32, (d, s, step, count, readable))
}

FF_DECLARE(void, ff_gemm8_multiply_shifted,
    (ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc))
void ff_gemm8_multiply_shifted(
    ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const float *a, ptrdiff_t lda, const float *b, const ptrdiff_t *offsets, float *c, ptrdiff_t ldc) {
    FF_CALL(ff_gemm8_multiply_shifted, (m, n, k, a, lda, b, offsets, c, ldc))
}
