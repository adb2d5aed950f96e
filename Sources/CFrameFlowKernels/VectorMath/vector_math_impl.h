// Element-wise reductions, compiled once per level (see ../Levels/ff_level.h).

float FF_FN(ff_sum_f32)(const float *p, ptrdiff_t count) {
    ff_f16 a0 = 0, a1 = 0;
    ptrdiff_t i = 0;
    for (; i + 32 <= count; i += 32) {
        a0 += FF_LOAD(ff_f16, p + i);
        a1 += FF_LOAD(ff_f16, p + i + 16);
    }
    for (; i + 16 <= count; i += 16) a0 += FF_LOAD(ff_f16, p + i);
    a0 += a1;
    ff_f8 h = a0.lo + a0.hi;
    ff_f4 q = h.lo + h.hi;
    float s = (q.x + q.z) + (q.y + q.w);
    for (; i < count; i++) s += p[i];
    return s;
}

// Native-width vectors of the level (FF_VL lanes), for element-wise loops.
typedef float ff_vf __attribute__((ext_vector_type(FF_VL)));
typedef int32_t ff_vi __attribute__((ext_vector_type(FF_VL)));

// eʳ of c = k·ln 2 + r (c within the clamps of its callers): `*ki` gets k.
static inline __attribute__((always_inline)) ff_vf ff_exp_reduced_v(ff_vf c, ff_vi *ki) {
    const ff_vf t = c * 1.44269504f + 12582912.0f;
    const ff_vf k = t - 12582912.0f;
    const ff_vf r = c - k * 0.693359375f + k * 2.1219444e-4f;
    ff_vf p = 1.98756915e-4f;
    p = p * r + 1.39819995e-3f;
    p = p * r + 8.3334519e-3f;
    p = p * r + 4.16657959e-2f;
    p = p * r + 1.66666655e-1f;
    p = p * r + 5.00000012e-1f;
    *ki = (ff_vi)t - 0x4B400000;
    return p * r * r + r + 1.0f;
}

// eˣ of FF_VL lanes: x = k·ln 2 + r (ln 2 in two parts, Cody–Waite), eʳ by Cephes' degree-6
// polynomial for |r| ≤ ln 2 / 2, 2ᵏ built in exponent bits as 2ʲ·2ᵏ⁻ʲ (j = ⌊k/2⌋, so that
// k = 128 and −126 both fit); k = round(x / ln 2) read from the mantissa of x/ln 2 + 1.5·2²³.
// ∞ above 88.72, 0 below −87.3 (no subnormal results), NaN stays NaN.
static inline __attribute__((always_inline)) ff_vf ff_exp_v(ff_vf x) {
    ff_vf c = x < -87.3f ? -87.3f : x;
    c = c > 88.72f ? 88.72f : c;
    ff_vi ki;
    const ff_vf p = ff_exp_reduced_v(c, &ki);
    const ff_vi j = ki >> 1;
    const ff_vf v = p * (ff_vf)((j + 127) << 23) * (ff_vf)((ki - j + 127) << 23);
    ff_vf e = x > 88.72f ? __builtin_inff() : v;
    e = x < -87.3f ? 0.0f : e;
    return x != x ? x : e;
}

// The logistic function 1 / (1 + e⁻ˣ) with ff_exp_v's arithmetic on −x clamped to ±87.3,
// where 2ᵏ is one exponent field: equal to it on that range, without its overflow, NaN and
// infinity selects (a third of SiLU's time). Below −87.3 the result is 0, as e⁻ˣ's
// overflow gave; a NaN stays NaN through the clamps.
static inline __attribute__((always_inline)) ff_vf ff_logistic_v(ff_vf x) {
    ff_vf c = -x;
    c = c < -87.3f ? -87.3f : c;
    c = c > 87.3f ? 87.3f : c;
    ff_vi ki;
    const ff_vf p = ff_exp_reduced_v(c, &ki);
    const ff_vf s = 1.0f / (1.0f + p * (ff_vf)((ki + 127) << 23));
    return x < -87.3f ? 0.0f : s;
}

void FF_FN(ff_exp_f32)(const float *x, float *y, ptrdiff_t count) {
    ptrdiff_t i = 0;
    for (; i + FF_VL <= count; i += FF_VL) FF_STORE(y + i, ff_exp_v(FF_LOAD(ff_vf, x + i)));
    if (i < count) {
        // The tail through a zero-padded vector: the same arithmetic as the lanes before.
        float in[FF_VL] = {0}, out[FF_VL];
        __builtin_memcpy(in, x + i, (size_t)(count - i) * sizeof(float));
        FF_STORE(out, ff_exp_v(FF_LOAD(ff_vf, in)));
        __builtin_memcpy(y + i, out, (size_t)(count - i) * sizeof(float));
    }
}

void FF_FN(ff_sigmoid_f32)(const float *x, float *y, ptrdiff_t count) {
    ptrdiff_t i = 0;
    for (; i + FF_VL <= count; i += FF_VL) FF_STORE(y + i, ff_logistic_v(FF_LOAD(ff_vf, x + i)));
    if (i < count) {
        float in[FF_VL] = {0}, out[FF_VL];
        __builtin_memcpy(in, x + i, (size_t)(count - i) * sizeof(float));
        FF_STORE(out, ff_logistic_v(FF_LOAD(ff_vf, in)));
        __builtin_memcpy(y + i, out, (size_t)(count - i) * sizeof(float));
    }
}

void FF_FN(ff_prelu_rows_f32)(const float *x, const float *alpha, ptrdiff_t rows, ptrdiff_t c, float *y) {
    for (ptrdiff_t r = 0; r < rows; r++) {
        const float *xr = x + r * c;
        float *yr = y + r * c;
        // Eight channels per step, then the rest one by one (an overlapping last block would
        // apply the slope twice where y is x).
        ptrdiff_t ch = 0;
        for (; ch + 8 <= c; ch += 8) {
            const ff_f8 v = FF_LOAD(ff_f8, xr + ch), s = FF_LOAD(ff_f8, alpha + ch);
            FF_STORE(yr + ch, v < 0 ? v * s : v);
        }
        for (; ch < c; ch++) yr[ch] = xr[ch] < 0 ? xr[ch] * alpha[ch] : xr[ch];
    }
}

// SiLU, x·sigmoid(x), with ff_sigmoid_f32's arithmetic; a scalar goes through lane 0 of a
// vector (eˣ has only the vector form), so the tail equals the lanes before it.
static inline __attribute__((always_inline)) ff_vf ff_silu_v(ff_vf x) { return x * ff_logistic_v(x); }
static inline __attribute__((always_inline)) float ff_silu_s(float x) { return ff_silu_v((ff_vf)x)[0]; }

// One row of a convolution's output after its product: bias, then the activation, then an
// optional per-row affine (a folded BatchNormalization), in the order Conv.activate defines.
// `MODE` and `AFFINE` are constants where the body is inlined, so each combination is its own
// loop; lanes are independent, so the native-width loop and the scalar tail agree exactly.
#define FF_ACTIVATE_BODY(T, v, MODE, AFFINE)                              \
    do {                                                                \
        if ((MODE) == FF_ACTIVATE_HARD_SWISH) {                         \
            T t_ = (v) * (1.0f / 6.0f) + 0.5f;                          \
            t_ = t_ < 0 ? 0 : t_;                                       \
            t_ = t_ > 1 ? 1 : t_;                                       \
            (v) = (v) * t_;                                             \
        } else if ((MODE) == FF_ACTIVATE_SILU) {                        \
            (v) = _Generic((v), float: ff_silu_s, default: ff_silu_v)(v); \
        } else {                                                        \
            if ((MODE) == FF_ACTIVATE_SLOPE) (v) = (v) < 0 ? (v) * slope : (v); \
            (v) = (v) < lo ? lo : (v);                                  \
            (v) = (v) > hi ? hi : (v);                                  \
        }                                                               \
        if (AFFINE) (v) = (v) * a0 + a1;                                \
    } while (0)

static inline __attribute__((always_inline)) void ff_bias_activate_loop(
    float *r, ptrdiff_t count, float bias, const int mode, float slope, float lo, float hi, const int affine, float a0, float a1) {
    ptrdiff_t i = 0;
    for (; i + FF_VL <= count; i += FF_VL) {
        ff_vf v = FF_LOAD(ff_vf, r + i) + bias;
        FF_ACTIVATE_BODY(ff_vf, v, mode, affine);
        FF_STORE(r + i, v);
    }
    for (; i < count; i++) {
        float v = r[i] + bias;
        FF_ACTIVATE_BODY(float, v, mode, affine);
        r[i] = v;
    }
}

// Every row with the loop of its (mode, affine) pair, chosen once for the whole call.
#define FF_ROWS_LOOP(MODE, AFFINE)                                                                 \
    for (ptrdiff_t row = 0; row < rows; row++)                                                     \
        ff_bias_activate_loop(r + row * stride, count, a->bias ? a->bias[row] : 0, MODE,           \
                              a->slope ? a->slope[row] : 0, a->lower, a->upper, AFFINE,            \
                              (AFFINE) ? a->scale[row] : 1, (AFFINE) ? a->shift[row] : 0)

void FF_FN(ff_bias_activate_rows_f32)(float *r, ptrdiff_t rows, ptrdiff_t count, ptrdiff_t stride, const ff_row_activation *a) {
    const int affine = a->scale && a->shift;
    if (a->hard_swish) {
        if (affine) FF_ROWS_LOOP(FF_ACTIVATE_HARD_SWISH, 1);
        else FF_ROWS_LOOP(FF_ACTIVATE_HARD_SWISH, 0);
    } else if (a->silu) {
        if (affine) FF_ROWS_LOOP(FF_ACTIVATE_SILU, 1);
        else FF_ROWS_LOOP(FF_ACTIVATE_SILU, 0);
    } else if (a->slope) {
        if (affine) FF_ROWS_LOOP(FF_ACTIVATE_SLOPE, 1);
        else FF_ROWS_LOOP(FF_ACTIVATE_SLOPE, 0);
    } else {
        if (affine) FF_ROWS_LOOP(FF_ACTIVATE_CLAMP, 1);
        else FF_ROWS_LOOP(FF_ACTIVATE_CLAMP, 0);
    }
}

// One row: the rows kernel with this row's parameters.
void FF_FN(ff_bias_activate_f32)(float *r, ptrdiff_t count, float bias, int mode, float slope, float lo, float hi, const float *affine) {
    const ff_row_activation a = {
        &bias, mode == FF_ACTIVATE_SLOPE ? &slope : 0, affine ? affine : 0, affine ? affine + 1 : 0, lo, hi, mode == FF_ACTIVATE_HARD_SWISH,
        mode == FF_ACTIVATE_SILU};
    FF_FN(ff_bias_activate_rows_f32)(r, 1, count, count, &a);
}

void FF_FN(ff_resize_bilinear_row_f32)(const float *top, const float *bottom, const ptrdiff_t *lo, const ptrdiff_t *hi, const float *t, float dy,
                                       ptrdiff_t ow, ptrdiff_t c, float *restrict y) {
    // Each product rounded before the sums, left to right, as the Swift loop it replaced.
#pragma clang fp contract(off)
    for (ptrdiff_t ox = 0; ox < ow; ox++) {
        const float dx = t[ox];
        const float w00 = (1 - dy) * (1 - dx), w10 = dy * (1 - dx), w01 = (1 - dy) * dx, w11 = dy * dx;
        const float *a = top + lo[ox] * c, *b = bottom + lo[ox] * c, *e = top + hi[ox] * c, *d = bottom + hi[ox] * c;
        float *yo = y + ox * c;
        for (ptrdiff_t ch = 0; ch < c; ch++) yo[ch] = a[ch] * w00 + b[ch] * w10 + e[ch] * w01 + d[ch] * w11;
    }
}

// Peak multiply-add rate: twelve independent chains of native-width `a·m + c` (contracted to
// FMA where the level has it), enough to cover its latency on two ports. Returns a value of
// the chains so the loop is kept; `*flops` gets the operations done (a multiply-add is two).
float FF_FN(ff_fma_peak_f32)(ptrdiff_t iterations, double *flops) {
    const ff_vf m = 0.99999994f, c = 1e-8f;
    ff_vf a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, a6 = 7, a7 = 8, a8 = 9, a9 = 10, a10 = 11, a11 = 12;
    for (ptrdiff_t i = 0; i < iterations; i++) {
        a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
        a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
        a8 = a8 * m + c; a9 = a9 * m + c; a10 = a10 * m + c; a11 = a11 * m + c;
    }
    *flops = (double)iterations * 12 * FF_VL * 2;
    const ff_vf s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11));
    float t = 0;
    for (int k = 0; k < FF_VL; k++) t += s[k];
    return t;
}
