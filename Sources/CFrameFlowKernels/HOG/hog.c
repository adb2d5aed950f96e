#include "../Levels/ff_dispatch.h"

FF_DECLARE(void, ff_hog_resize, (const uint8_t *src, ptrdiff_t src_stride, int cn, uint8_t *dst, int dw, int dh, const int32_t *xofs, const int32_t *xw, const int32_t *yofs, const int32_t *yw))
void ff_hog_resize(const uint8_t *src, ptrdiff_t src_stride, int cn, uint8_t *dst, int dw, int dh, const int32_t *xofs, const int32_t *xw,
                   const int32_t *yofs, const int32_t *yw) {
    FF_CALL(ff_hog_resize, (src, src_stride, cn, dst, dw, dh, xofs, xw, yofs, yw))
}

FF_DECLARE(void, ff_hog_gradient, (const uint8_t *img, ptrdiff_t stride, int width, int height, int cn, int pad_x, int pad_y, const ff_hog_geometry *g, float *grad, uint8_t *qangle, float *scratch, int32_t *map_scratch))
void ff_hog_gradient(const uint8_t *img, ptrdiff_t stride, int width, int height, int cn, int pad_x, int pad_y, const ff_hog_geometry *g,
                     float *grad, uint8_t *qangle, float *scratch, int32_t *map_scratch) {
    FF_CALL(ff_hog_gradient, (img, stride, width, height, cn, pad_x, pad_y, g, grad, qangle, scratch, map_scratch))
}

FF_DECLARE(void, ff_hog_blocks, (const float *grad, const uint8_t *qangle, int grid_w, const ff_hog_geometry *g, int cache_x, int cache_y, int nx, int y0, int y1, float *out))
void ff_hog_blocks(const float *grad, const uint8_t *qangle, int grid_w, const ff_hog_geometry *g, int cache_x, int cache_y, int nx, int y0,
                   int y1, float *out) {
    FF_CALL(ff_hog_blocks, (grad, qangle, grid_w, g, cache_x, cache_y, nx, y0, y1, out))
}

FF_DECLARE(int, ff_hog_scan, (const float *blocks, int nx, const ff_hog_geometry *g, int cache_x, int cache_y, int win_stride_x, int win_stride_y, int nwx, int wy0, int wy1, const float *svm, double rho, double threshold, int32_t *hit_xy, double *hit_score))
int ff_hog_scan(const float *blocks, int nx, const ff_hog_geometry *g, int cache_x, int cache_y, int win_stride_x, int win_stride_y, int nwx,
                int wy0, int wy1, const float *svm, double rho, double threshold, int32_t *hit_xy, double *hit_score) {
    FF_CALL(ff_hog_scan, (blocks, nx, g, cache_x, cache_y, win_stride_x, win_stride_y, nwx, wy0, wy1, svm, rho, threshold, hit_xy, hit_score))
}
