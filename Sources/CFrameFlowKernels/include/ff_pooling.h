#ifndef FF_POOLING_H
#define FF_POOLING_H

#include <stddef.h>
#include "ff_depthwise.h"

/// Output rows `oy0..<oy1` of max (`is_max` ≠ 0) or average pooling over an NHWC image (the
/// window of `g`, dilation 1): the average counts only the taps inside the image; a window
/// wholly outside gives −∞ (max) or 0.
void ff_pool_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, int is_max, const float *x, float *y);

/// `t[i]` = the max (`is_max` ≠ 0) or sum of `rows` rows from `first` (`stride` floats apart)
/// at column `i`, for `i` in 0..<count (one NCHW pooling window's rows reduced to one).
void ff_reduce_rows_f32(float *t, const float *first, ptrdiff_t rows, ptrdiff_t stride, ptrdiff_t count, int is_max);

/// `y[l]` = the max of `t[2l]`, `t[2l + 1]` and, when `three` ≠ 0, `t[2l + 2]`, for `l` in
/// 0..<count: a stride-2 max window of width 2 or 3 along a row. Reads up to `t[2·count + 1]`
/// (`+ 2` with `three`), and in blocks of eight up to 16 floats past `t + 2l`, so the row needs
/// that much readable slack after it.
void ff_max_pairs_f32(const float *t, ptrdiff_t count, int three, float *y);

#endif
