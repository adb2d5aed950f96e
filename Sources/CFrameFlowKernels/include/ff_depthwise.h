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

/// The floats `ff_depthwise_pixels_pack` writes for this window's filter.
ptrdiff_t ff_depthwise_pixels_packed_count(const ff_dw_window *g);

/// Packs a depthwise filter (`kh·kw` taps of `c` floats) and its bias (NULL: zeros) for
/// `ff_depthwise_pixels_rows`: per channel block, the bias then the taps, followed by the
/// zeros that taps outside the image read. The layout is the same at every level.
void ff_depthwise_pixels_pack(const ff_dw_window *g, const float *w, const float *bias, float *pack);

/// Output rows `oy0..<oy1` of a depthwise convolution (no dilation, `c` ≥ 8, filters up to
/// 8 × 8) pixel by pixel, all channels of a pixel before the next: whole cache lines of
/// input and output, the packed weights in L1. Channel blocks of 16 lanes, then 8 for a
/// remainder; at the AVX-512 level four output columns (stride 1 or 2) of two blocks per
/// step, below two columns of one block at stride 1, their inputs loaded once. `y =
/// clamp(bias + Σ x·w, lo, hi)`, summed in tap order, with `pack` from
/// `ff_depthwise_pixels_pack`.
void ff_depthwise_pixels_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *pack, float *y,
                              float lo, float hi);

/// Output rows `oy0..<oy1` of a depthwise convolution with any dilation (`c` ≥ 8): each output
/// pixel sums its taps inside the image, 32 channels at a time, then 8 (the last block
/// overlapping the one before). `bias` (c floats) is required; no clamp.
void ff_depthwise_dilated_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                               float *y);

/// Output rows `oy0..<oy1` of a full convolution into few channels (`outputs`, NHWC; the
/// filter `outputs × kh × kw × c`, TFLite's OHWI), with the depthwise kernels' window (its
/// inner columns: those whose taps all lie inside): per output pixel and channel, the taps
/// inside the image 8 input channels at a time, summed across the vector at the end; inner
/// columns eight pixels at a time where `c` is a multiple of 8. `bias` may be NULL; clamped to [lo, hi]. Where one output
/// channel would leave a matrix-product tile's columns seven-eighths empty.
void ff_conv_narrow_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                         ptrdiff_t outputs, float *y, float lo, float hi);

#endif
