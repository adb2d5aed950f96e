// Integer GEMM for quantised convolutions: packing (one code for every level) and the
// dispatch of the per-level kernels (qgemm_impl.h).
#include "../Levels/ff_dispatch.h"
#include <string.h>

#define KP(k) (((k) + 1) / 2)

typedef int16_t qg_v16 __attribute__((ext_vector_type(16)));

ptrdiff_t ff_qgemm_packed_weights_count(ptrdiff_t m, ptrdiff_t k) {
    return (m + FF_QGEMM_MR - 1) / FF_QGEMM_MR * FF_QGEMM_MR * KP(k) * 2;
}

ptrdiff_t ff_qgemm_packed_activations_count(ptrdiff_t k, ptrdiff_t n) {
    return (n + FF_QGEMM_NR - 1) / FF_QGEMM_NR * FF_QGEMM_NR * KP(k) * 2;
}

// Panel b, pair p: FF_QGEMM_MR rows × 2 values of k (rows past m and the odd k's partner are 0).
void ff_qgemm_pack_weights(ptrdiff_t m, ptrdiff_t k, const int16_t *w, int16_t *packed) {
    ptrdiff_t kp = KP(k), blocks = (m + FF_QGEMM_MR - 1) / FF_QGEMM_MR;
    for (ptrdiff_t b = 0; b < blocks; b++) {
        for (ptrdiff_t p = 0; p < kp; p++) {
            int16_t *d = packed + (b * kp + p) * FF_QGEMM_MR * 2;
            for (ptrdiff_t r = 0; r < FF_QGEMM_MR; r++) {
                ptrdiff_t row = b * FF_QGEMM_MR + r;
                for (ptrdiff_t h = 0; h < 2; h++) {
                    ptrdiff_t q = 2 * p + h;
                    d[r * 2 + h] = row < m && q < k ? w[row * k + q] : 0;
                }
            }
        }
    }
}

// Panel P, pair p: FF_QGEMM_NR columns × 2 values of k. The panel's columns' window origins
// are found once; a row of k whose taps all fall inside one input row (the common case) is a
// strided copy, others check each tap against the padding.
void ff_qgemm_pack_im2col(const int16_t *x, ptrdiff_t c, ptrdiff_t h, ptrdiff_t w, ptrdiff_t kh, ptrdiff_t kw, ptrdiff_t sh, ptrdiff_t sw,
    ptrdiff_t dh, ptrdiff_t dw, ptrdiff_t pt, ptrdiff_t pl, ptrdiff_t oh, ptrdiff_t ow, ptrdiff_t panel0, ptrdiff_t panel1, int16_t *packed) {
    ptrdiff_t k = c * kh * kw, kp = KP(k), n = oh * ow;
    (void)oh;
    for (ptrdiff_t P = panel0; P < panel1; P++) {
        int16_t *base = packed + P * kp * FF_QGEMM_NR * 2;
        ptrdiff_t j0 = P * FF_QGEMM_NR, cols = j0 + FF_QGEMM_NR < n ? FF_QGEMM_NR : n - j0;
        if ((k & 1) || cols < FF_QGEMM_NR) memset(base, 0, (size_t)kp * FF_QGEMM_NR * 2 * sizeof(int16_t));
        ptrdiff_t iy0[FF_QGEMM_NR], ix0[FF_QGEMM_NR];
        for (ptrdiff_t t = 0, oy = j0 / ow, ox = j0 % ow; t < cols; t++) {
            iy0[t] = oy * sh - pt, ix0[t] = ox * sw - pl;
            if (++ox == ow) ox = 0, oy++;
        }
        int oneRow = iy0[0] == iy0[cols - 1];
        ptrdiff_t ixFirst = ix0[0], ixLast = ix0[cols - 1];
        ptrdiff_t ch = 0, ky = 0, kx = 0;
        // Rows of k two at a time: each one's taps as a contiguous source when they can be, then
        // the pair interleaved in one loop (which the compiler vectorises).
        for (ptrdiff_t r = 0; r < k; r += 2) {
            const int16_t *src[2] = {0, 0};
            int16_t *o = base + (r / 2) * FF_QGEMM_NR * 2;
            for (int half = 0; half < 2 && r + half < k; half++) {
                const int16_t *plane = x + ch * h * w;
                ptrdiff_t dy = ky * dh, dx = kx * dw, iy = iy0[0] + dy;
                if (oneRow && iy >= 0 && iy < h && ixFirst + dx >= 0 && ixLast + dx < w) {
                    src[half] = plane + iy * w + ixFirst + dx;
                } else {
                    for (ptrdiff_t t = 0; t < cols; t++) {
                        ptrdiff_t y = iy0[t] + dy, xx = ix0[t] + dx;
                        o[2 * t + half] = y >= 0 && y < h && xx >= 0 && xx < w ? plane[y * w + xx] : 0;
                    }
                }
                if (++kx == kw) {
                    kx = 0;
                    if (++ky == kh) ky = 0, ch++;
                }
            }
            const int16_t *a = src[0], *b = src[1];
            if (a && b && cols == FF_QGEMM_NR && sw == 1) {
                qg_v16 va, vb;
                memcpy(&va, a, sizeof va);
                memcpy(&vb, b, sizeof vb);
                qg_v16 lo = __builtin_shufflevector(va, vb, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
                qg_v16 hi = __builtin_shufflevector(va, vb, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
                memcpy(o, &lo, sizeof lo);
                memcpy(o + 16, &hi, sizeof hi);
            } else {
                if (a) for (ptrdiff_t t = 0; t < cols; t++) o[2 * t] = a[t * sw];
                if (b) for (ptrdiff_t t = 0; t < cols; t++) o[2 * t + 1] = b[t * sw];
            }
        }
    }
}

FF_DECLARE(void, ff_quantize_shifted_i16, (const float *x, ptrdiff_t count, float scale, float zero, float lower, float upper, int16_t *out))
void ff_quantize_shifted_i16(const float *x, ptrdiff_t count, float scale, float zero, float lower, float upper, int16_t *out) {
    FF_CALL(ff_quantize_shifted_i16, (x, count, scale, zero, lower, upper, out))
}

FF_DECLARE(void, ff_qgemm_multiply,
    (ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const int16_t *w, const int16_t *x, ptrdiff_t panel0, ptrdiff_t panel1, const ff_qgemm_requant *r,
        float *c, ptrdiff_t ldc))
void ff_qgemm_multiply(ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const int16_t *w, const int16_t *x, ptrdiff_t panel0, ptrdiff_t panel1,
    const ff_qgemm_requant *r, float *c, ptrdiff_t ldc) {
    FF_CALL(ff_qgemm_multiply, (m, n, k, w, x, panel0, panel1, r, c, ldc))
}

FF_DECLARE(void, ff_fake_quantize_f32, (const float *x, ptrdiff_t count, float scale, float zero, float lower, float upper, float *out))
void ff_fake_quantize_f32(const float *x, ptrdiff_t count, float scale, float zero, float lower, float upper, float *out) {
    FF_CALL(ff_fake_quantize_f32, (x, count, scale, zero, lower, upper, out))
}
