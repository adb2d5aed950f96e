#ifndef FF_VECTOR_MATH_H
#define FF_VECTOR_MATH_H

#include <stddef.h>

/// The sum of `count` floats, in several vector accumulators.
float ff_sum_f32(const float *p, ptrdiff_t count);

/// `y[i] = eˣ` of `x[i]` for `count` floats (Cephes' polynomial; relative error ≈ 1e-7; ∞
/// above 88.72, 0 below −87.3, NaN stays NaN). `y` may be `x`.
void ff_exp_f32(const float *x, float *y, ptrdiff_t count);

/// `y[i] = 1 / (1 + e⁻ˣ)` of `x[i]` for `count` floats, eˣ as in `ff_exp_f32`. `y` may be `x`.
void ff_sigmoid_f32(const float *x, float *y, ptrdiff_t count);

/// PReLU over `rows` rows of `c` channels with one slope per channel: `y = x < 0 ? x·alpha : x`.
/// `y` may be `x`.
void ff_prelu_rows_f32(const float *x, const float *alpha, ptrdiff_t rows, ptrdiff_t c, float *y);

/// Activation modes of `ff_bias_activate_f32`.
#define FF_ACTIVATE_CLAMP 0
#define FF_ACTIVATE_SLOPE 1
#define FF_ACTIVATE_HARD_SWISH 2
#define FF_ACTIVATE_SILU 3

/// A convolution output row in place: `v = r[i] + bias`; then HardSwish `v·clamp(v/6 + ½, 0, 1)`
/// (mode 2), SiLU `v·sigmoid(v)` with `ff_sigmoid_f32`'s arithmetic (mode 3), or a negative
/// slope (mode 1) and a clamp to [lo, hi] (modes 0 and 1); then, when `affine` is not NULL,
/// `v·affine[0] + affine[1]`.
void ff_bias_activate_f32(float *r, ptrdiff_t count, float bias, int mode, float slope, float lo, float hi, const float *affine);

/// Per-row parameters of `ff_bias_activate_rows_f32`; each pointer holds one value a row, or is NULL.
typedef struct ff_row_activation {
    const float *bias;
    /// Negative values times the row's slope (mode 1); NULL: no slope (mode 0).
    const float *slope;
    /// The affine after the activation: both or neither.
    const float *scale, *shift;
    float lower, upper;
    /// HardSwish in place of the slope and clamp (mode 2).
    int hard_swish;
    /// SiLU in place of the slope and clamp (mode 3); not with `hard_swish`.
    int silu;
} ff_row_activation;

/// `ff_bias_activate_f32` on `rows` rows of `count` floats, `stride` apart, with row `i`'s
/// bias, slope and affine: a whole NCHW convolution output in one call.
void ff_bias_activate_rows_f32(float *r, ptrdiff_t rows, ptrdiff_t count, ptrdiff_t stride, const ff_row_activation *a);

/// One output row of an NHWC bilinear resize: pixel ox blends columns lo[ox] and hi[ox] of
/// rows `top` and `bottom` (`c` floats a pixel) with weights from t[ox] and `dy`:
/// a·(1−dy)(1−dx) + b·dy(1−dx) + e·(1−dy)dx + d·dy·dx, each product rounded (no FMA).
void ff_resize_bilinear_row_f32(const float *top, const float *bottom, const ptrdiff_t *lo, const ptrdiff_t *hi, const float *t, float dy,
                                ptrdiff_t ow, ptrdiff_t c, float *y);

/// The peak multiply-add rate's loop: `iterations` steps of twelve independent native-width
/// `a·m + c` chains (FMA where the level has it); `*flops` gets the operations done (two per
/// multiply-add and lane). Returns a value of the chains (so the loop is kept).
float ff_fma_peak_f32(ptrdiff_t iterations, double *flops);

#endif
