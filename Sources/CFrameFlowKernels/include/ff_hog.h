#ifndef FF_HOG_H
#define FF_HOG_H

// Histograms of oriented gradients (FrameFlowCalculators/Detection): OpenCV 4.x's
// HOGDescriptor, with its float operations in its order, so detections and weights agree.

#include <stddef.h>
#include <stdint.h>

/// The geometry and normalization of a HOG descriptor (OpenCV's HOGDescriptor fields).
typedef struct ff_hog_geometry {
    int32_t win_w, win_h, block_w, block_h, stride_x, stride_y, cell_w, cell_h, nbins;
    int32_t gamma, signed_gradient;
    float win_sigma, l2hys_threshold;
} ff_hog_geometry;

/// Bilinear resize of 8-bit images with `cn` interleaved channels, bit-exact with OpenCV's
/// INTER_LINEAR_EXACT: `xofs`/`yofs` hold each destination column's/row's two source indices
/// (columns already times `cn`) and `xw`/`yw` their 8-bit weights (pairs summing to 256).
void ff_hog_resize(const uint8_t *src, ptrdiff_t src_stride, int cn, uint8_t *dst, int dw, int dh, const int32_t *xofs,
                   const int32_t *xw, const int32_t *yofs, const int32_t *yw);

/// Gradients of an image (1 channel, or 3 in OpenCV's B, G, R order) over a grid padded by
/// `pad_x`, `pad_y` on each side (pixels reflected, BORDER_REFLECT_101): per grid pixel the
/// magnitude split between its two orientation bins (`grad`, 2 floats) and the bins (`qangle`,
/// 2 bytes). `scratch` holds 4 × (width + 2·pad_x) floats plus width + 2·pad_x + 2 ints and
/// height + 2·pad_y + 2 ints.
void ff_hog_gradient(const uint8_t *img, ptrdiff_t stride, int width, int height, int cn, int pad_x, int pad_y,
                     const ff_hog_geometry *g, float *grad, uint8_t *qangle, float *scratch, int32_t *map_scratch);

/// Normalized block histograms at every `cache_x`, `cache_y` step of a gradient grid
/// `grid_w` wide, for blocks whose top-left lies in columns 0 ..< `nx`·cache_x and rows
/// `y0` ..< `y1` (indices in cache steps); block (bx, by) goes to `out` + (by·nx + bx)·hist_size.
void ff_hog_blocks(const float *grad, const uint8_t *qangle, int grid_w, const ff_hog_geometry *g, int cache_x, int cache_y,
                   int nx, int y0, int y1, float *out);

/// The linear SVM's score (rho + Σ w·x, OpenCV's summation order) of windows on rows
/// `wy0` ..< `wy1` and columns 0 ..< `nwx` of a level whose block histograms `blocks` came
/// from `ff_hog_blocks` (`nx` per row). Windows step `win_stride_x/y` grid pixels (multiples of
/// the cache steps). Scores ≥ `threshold` are written as (column, row, score) to `hits`; the
/// count is returned.
int ff_hog_scan(const float *blocks, int nx, const ff_hog_geometry *g, int cache_x, int cache_y, int win_stride_x,
                int win_stride_y, int nwx, int wy0, int wy1, const float *svm, double rho, double threshold, int32_t *hit_xy,
                double *hit_score);

#endif
