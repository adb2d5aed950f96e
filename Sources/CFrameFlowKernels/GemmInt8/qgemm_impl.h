// The integer GEMM tile and its requantising store, and the quantiser, compiled once per level
// (see ../Levels/ff_level.h). AVX2 and up: a 4 × 16 tile of int32 sums in eight registers, each
// step one VPMADDWD per register (two int16 products of a k pair, summed exactly into int32)
// and one add. AVX-512 runs the same 256-bit code (a VNNI variant, VPDPWSSD, would fuse the two;
// not written). The baseline is plain C: the same sums, exact on every CPU.

#include <math.h>
#include <string.h>
#if FF_LEVEL >= FF_LEVEL_AVX2 && defined(__x86_64__)
#include <immintrin.h>
#define QG_AVX2 1
#endif

#define QG_MR FF_QGEMM_MR
#define QG_NR FF_QGEMM_NR

#pragma clang diagnostic ignored "-Wpsabi"

/// Requantises one row of `count` sums (output channel `ch`) into `out`.
static inline __attribute__((always_inline)) void qg_store_row(
    const int32_t *sums, ptrdiff_t count, ptrdiff_t ch, const ff_qgemm_requant *r, float *out) {
    int32_t bias = r->bias ? r->bias[ch] : 0;
    float mul = r->multiplier[ch], lo = r->lower - r->zero, hi = r->upper - r->zero;
    for (ptrdiff_t j = 0; j < count; j++) {
        float v = (float)(sums[j] + bias) * mul;
        v = v < lo ? lo : v > hi ? hi : v;  // clamped before rounding, as onnxruntime does
        out[j] = (rintf(v) + r->zero - r->dequant_zero) * r->dequant_scale;
    }
}

#if defined(QG_AVX2)
static inline __attribute__((always_inline)) __m256i qg_pair(const int16_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return _mm256_set1_epi32(v);
}

/// Requantises 8 sums of channel `ch` and stores the first `count` (≤ 8).
static inline __attribute__((always_inline)) void qg_store8(__m256i s, ptrdiff_t count, ptrdiff_t ch, const ff_qgemm_requant *r, float *out) {
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(s, _mm256_set1_epi32(r->bias ? r->bias[ch] : 0))), _mm256_set1_ps(r->multiplier[ch]));
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(r->lower - r->zero)), _mm256_set1_ps(r->upper - r->zero));
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_mul_ps(_mm256_add_ps(v, _mm256_set1_ps(r->zero - r->dequant_zero)), _mm256_set1_ps(r->dequant_scale));
    if (count == 8) {
        _mm256_storeu_ps(out, v);
    } else {
        float t[8];
        _mm256_storeu_ps(t, v);
        memcpy(out, t, (size_t)count * sizeof(float));
    }
}

/// Rows [row0, row0 + rows) (rows ≤ 4) × the panel's columns [0, cols).
static __attribute__((noinline)) void qg_tile(const int16_t *w, const int16_t *x, ptrdiff_t kp, ptrdiff_t row0, ptrdiff_t rows, ptrdiff_t cols,
    const ff_qgemm_requant *r, float *c, ptrdiff_t ldc) {
    __m256i a00 = _mm256_setzero_si256(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
    for (ptrdiff_t p = 0; p < kp; p++, w += QG_MR * 2, x += QG_NR * 2) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)x), x1 = _mm256_loadu_si256((const __m256i *)(x + 16));
        __m256i b = qg_pair(w);
        a00 = _mm256_add_epi32(a00, _mm256_madd_epi16(b, x0));
        a01 = _mm256_add_epi32(a01, _mm256_madd_epi16(b, x1));
        b = qg_pair(w + 2);
        a10 = _mm256_add_epi32(a10, _mm256_madd_epi16(b, x0));
        a11 = _mm256_add_epi32(a11, _mm256_madd_epi16(b, x1));
        b = qg_pair(w + 4);
        a20 = _mm256_add_epi32(a20, _mm256_madd_epi16(b, x0));
        a21 = _mm256_add_epi32(a21, _mm256_madd_epi16(b, x1));
        b = qg_pair(w + 6);
        a30 = _mm256_add_epi32(a30, _mm256_madd_epi16(b, x0));
        a31 = _mm256_add_epi32(a31, _mm256_madd_epi16(b, x1));
    }
    __m256i acc[4][2] = {{a00, a01}, {a10, a11}, {a20, a21}, {a30, a31}};
    ptrdiff_t lo = cols < 8 ? cols : 8, hi = cols - lo;
    for (ptrdiff_t i = 0; i < rows; i++) {
        float *o = c + (row0 + i) * ldc;
        qg_store8(acc[i][0], lo, row0 + i, r, o);
        if (hi > 0) qg_store8(acc[i][1], hi, row0 + i, r, o + 8);
    }
}
#else
static void qg_tile(const int16_t *w, const int16_t *x, ptrdiff_t kp, ptrdiff_t row0, ptrdiff_t rows, ptrdiff_t cols, const ff_qgemm_requant *r,
    float *c, ptrdiff_t ldc) {
    int32_t acc[QG_MR][QG_NR];
    memset(acc, 0, sizeof acc);
    for (ptrdiff_t p = 0; p < kp; p++, w += QG_MR * 2, x += QG_NR * 2) {
        for (ptrdiff_t i = 0; i < QG_MR; i++) {
            int32_t w0 = w[2 * i], w1 = w[2 * i + 1];
            for (ptrdiff_t j = 0; j < QG_NR; j++) acc[i][j] += w0 * x[2 * j] + w1 * x[2 * j + 1];
        }
    }
    for (ptrdiff_t i = 0; i < rows; i++) qg_store_row(acc[i], cols, row0 + i, r, c + (row0 + i) * ldc);
}
#endif

void FF_FN(ff_qgemm_multiply)(ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const int16_t *w, const int16_t *x, ptrdiff_t panel0, ptrdiff_t panel1,
    const ff_qgemm_requant *r, float *c, ptrdiff_t ldc) {
    ptrdiff_t kp = (k + 1) / 2, blocks = (m + QG_MR - 1) / QG_MR;
    for (ptrdiff_t P = panel0; P < panel1; P++) {
        ptrdiff_t j0 = P * QG_NR, cols = n - j0 < QG_NR ? n - j0 : QG_NR;
        const int16_t *xp = x + P * kp * QG_NR * 2;
        for (ptrdiff_t b = 0; b < blocks; b++) {
            ptrdiff_t rows = m - b * QG_MR < QG_MR ? m - b * QG_MR : QG_MR;
            qg_tile(w + b * kp * QG_MR * 2, xp, kp, b * QG_MR, rows, cols, r, c + j0, ldc);
        }
    }
}

void FF_FN(ff_quantize_shifted_i16)(const float *x, ptrdiff_t count, float scale, float zero, float lower, float upper, int16_t *out) {
    ptrdiff_t i = 0;
#if defined(QG_AVX2)
    __m256 s = _mm256_set1_ps(scale), z = _mm256_set1_ps(zero), lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    for (; i + 16 <= count; i += 16) {
        __m256 v0 = _mm256_div_ps(_mm256_loadu_ps(x + i), s), v1 = _mm256_div_ps(_mm256_loadu_ps(x + i + 8), s);
        v0 = _mm256_round_ps(v0, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v1 = _mm256_round_ps(v1, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        // max(v, lo) takes lo for a NaN v (the second operand when either is NaN).
        v0 = _mm256_sub_ps(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v0, z), lo), hi), z);
        v1 = _mm256_sub_ps(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v1, z), lo), hi), z);
        __m256i q = _mm256_packs_epi32(_mm256_cvtps_epi32(v0), _mm256_cvtps_epi32(v1));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_permute4x64_epi64(q, 0xD8));
    }
#endif
    for (; i < count; i++) {
        float v = rintf(x[i] / scale) + zero;
        v = v > lower ? v : lower;  // NaN → lower
        v = v < upper ? v : upper;
        out[i] = (int16_t)(v - zero);
    }
}

void FF_FN(ff_fake_quantize_f32)(const float *x, ptrdiff_t count, float scale, float zero, float lower, float upper, float *out) {
    ptrdiff_t i = 0;
#if defined(QG_AVX2)
    __m256 s = _mm256_set1_ps(scale), z = _mm256_set1_ps(zero), lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    for (; i + 8 <= count; i += 8) {
        __m256 v = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x + i), s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm256_sub_ps(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, z), lo), hi), z);
        _mm256_storeu_ps(out + i, _mm256_mul_ps(v, s));
    }
#endif
    for (; i < count; i++) {
        float v = rintf(x[i] / scale) + zero;
        v = v > lower ? v : lower;  // NaN → lower
        v = v < upper ? v : upper;
        out[i] = (v - zero) * scale;
    }
}
