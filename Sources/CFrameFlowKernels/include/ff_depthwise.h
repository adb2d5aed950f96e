#ifndef FF_DEPTHWISE_H
#define FF_DEPTHWISE_H

#include <stddef.h>

/// A depthwise filter window over one NHWC image (multiplier 1): sizes, filter, strides,
/// dilations, padding before, and the output columns `inner0..<inner1` whose taps all lie
/// inside the image (`inner0 == inner1` when there are none).
typedef struct {
    ptrdiff_t h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, inner0, inner1;
} ff_dw_window;

/// Output rows `oy0..<oy1` of a depthwise convolution of any filter size (no dilation,
/// `c` ≥ 8): channel blocks (16 lanes at the AVX-512 level with 16 or more channels, else 8),
/// eight then four output columns per step, then the border columns with the filter columns
/// inside the image. `y = clamp(bias + Σ x·w, lo, hi)`; `bias` may be NULL.
void ff_depthwise_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                       float *y, float lo, float hi);

/// Output rows `oy0..<oy1` of a 3 × 3 depthwise convolution (no dilation, `c` ≥ 8): 8 channels
/// at a time with their nine taps in registers, one output column per step with one
/// accumulator per filter row.
void ff_depthwise3x3_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                          float *y, float lo, float hi);

/// Output rows `oy0..<oy1` of a depthwise convolution with any dilation (`c` ≥ 8): each output
/// pixel sums its taps inside the image, 32 channels at a time, then 8 (the last block
/// overlapping the one before). `bias` (c floats) is required; no clamp.
void ff_depthwise_dilated_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                               float *y);

#endif
