#include "../Levels/ff_dispatch.h"

FF_DECLARE(void, ff_luminance_rgbx, (const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bgr))
void ff_luminance_rgbx(const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bgr) { FF_CALL(ff_luminance_rgbx, (src, dst, width, bgr)) }

FF_DECLARE(void, ff_sobel_row, (const uint8_t *up, const uint8_t *mid, const uint8_t *down, uint8_t *dst, ptrdiff_t width, int bpp, int channel, int32_t *scratch))
void ff_sobel_row(const uint8_t *up, const uint8_t *mid, const uint8_t *down, uint8_t *dst, ptrdiff_t width, int bpp, int channel, int32_t *scratch) {
    FF_CALL(ff_sobel_row, (up, mid, down, dst, width, bpp, channel, scratch))
}

FF_DECLARE(void, ff_sharpen_combine_row, (const uint8_t *s, const uint8_t *b, uint8_t *d, ptrdiff_t count, int alpha, float amount, int16_t amount_q10, int32_t threshold))
void ff_sharpen_combine_row(const uint8_t *s, const uint8_t *b, uint8_t *d, ptrdiff_t count, int alpha, float amount, int16_t amount_q10, int32_t threshold) {
    FF_CALL(ff_sharpen_combine_row, (s, b, d, count, alpha, amount, amount_q10, threshold))
}

FF_DECLARE(void, ff_blur_horizontal_row, (const uint8_t *pad, uint16_t *dst, ptrdiff_t row_len, const uint16_t *weights, int n, int bpp))
void ff_blur_horizontal_row(const uint8_t *pad, uint16_t *dst, ptrdiff_t row_len, const uint16_t *weights, int n, int bpp) {
    FF_CALL(ff_blur_horizontal_row, (pad, dst, row_len, weights, n, bpp))
}

FF_DECLARE(void, ff_blur_vertical_row, (const uint16_t *const *rows, const uint16_t *weights, int n, int total_bits, uint8_t *dst, ptrdiff_t row_len))
void ff_blur_vertical_row(const uint16_t *const *rows, const uint16_t *weights, int n, int total_bits, uint8_t *dst, ptrdiff_t row_len) {
    FF_CALL(ff_blur_vertical_row, (rows, weights, n, total_bits, dst, row_len))
}

FF_DECLARE(void, ff_color_adjust_row, (const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bpp, const float *k))
void ff_color_adjust_row(const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bpp, const float *k) { FF_CALL(ff_color_adjust_row, (src, dst, width, bpp, k)) }

FF_DECLARE(void, ff_lut_tetrahedral_row, (const ff_lut_tetrahedral *lut, const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bpp))
void ff_lut_tetrahedral_row(const ff_lut_tetrahedral *lut, const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bpp) {
    FF_CALL(ff_lut_tetrahedral_row, (lut, src, dst, width, bpp))
}

FF_DECLARE(void, ff_yuv420_rows_to_rgbx, (const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v, ptrdiff_t uv_stride, uint8_t *d0, uint8_t *d1, ptrdiff_t pairs, const int16_t *k, int bgr))
void ff_yuv420_rows_to_rgbx(const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v, ptrdiff_t uv_stride, uint8_t *d0, uint8_t *d1, ptrdiff_t pairs, const int16_t *k, int bgr) {
    FF_CALL(ff_yuv420_rows_to_rgbx, (y0, y1, u, v, uv_stride, d0, d1, pairs, k, bgr))
}

FF_DECLARE(void, ff_area_vertical_row, (const uint8_t *const *rows, const float *weights, int count, float *line, ptrdiff_t n))
void ff_area_vertical_row(const uint8_t *const *rows, const float *weights, int count, float *line, ptrdiff_t n) {
    FF_CALL(ff_area_vertical_row, (rows, weights, count, line, n))
}

FF_DECLARE(void, ff_area_horizontal_row, (const float *line, uint8_t *dst, ptrdiff_t width, int bpp, const ptrdiff_t *offsets, const float *weights, int taps))
void ff_area_horizontal_row(const float *line, uint8_t *dst, ptrdiff_t width, int bpp, const ptrdiff_t *offsets, const float *weights, int taps) {
    FF_CALL(ff_area_horizontal_row, (line, dst, width, bpp, offsets, weights, taps))
}

FF_DECLARE(void, ff_linear_vertical_row, (const uint16_t *q0, const uint16_t *q1, uint16_t wa, uint16_t wb, uint8_t *dst, ptrdiff_t n))
void ff_linear_vertical_row(const uint16_t *q0, const uint16_t *q1, uint16_t wa, uint16_t wb, uint8_t *dst, ptrdiff_t n) {
    FF_CALL(ff_linear_vertical_row, (q0, q1, wa, wb, dst, n))
}

FF_DECLARE(void, ff_warp_linear_row, (const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t channels, double fx0, double fy0, double dx, double dy, ptrdiff_t width, int replicate, uint8_t *dst))
void ff_warp_linear_row(const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t channels, double fx0, double fy0, double dx, double dy, ptrdiff_t width, int replicate, uint8_t *dst) {
    FF_CALL(ff_warp_linear_row, (base, stride, sw, sh, channels, fx0, fy0, dx, dy, width, replicate, dst))
}

FF_DECLARE(void, ff_bytes_to_floats, (const uint8_t *src, ptrdiff_t n, ptrdiff_t channels, const float *scale, const float *bias, float *dst))
void ff_bytes_to_floats(const uint8_t *src, ptrdiff_t n, ptrdiff_t channels, const float *scale, const float *bias, float *dst) {
    FF_CALL(ff_bytes_to_floats, (src, n, channels, scale, bias, dst))
}

FF_DECLARE(void, ff_linear_horizontal_f32, (const float *s, const ptrdiff_t *columns, const float *weights, ptrdiff_t n, float *row))
void ff_linear_horizontal_f32(const float *s, const ptrdiff_t *columns, const float *weights, ptrdiff_t n, float *row) {
    FF_CALL(ff_linear_horizontal_f32, (s, columns, weights, n, row))
}

FF_DECLARE(void, ff_linear_vertical_f32, (const float *top, const float *bottom, float b0, float b1, ptrdiff_t n, float *dst))
void ff_linear_vertical_f32(const float *top, const float *bottom, float b0, float b1, ptrdiff_t n, float *dst) {
    FF_CALL(ff_linear_vertical_f32, (top, bottom, b0, b1, n, dst))
}

FF_DECLARE(void, ff_warp_linear_axis, (const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t channels, double fx0, double dx, double fy0, double dy, ptrdiff_t width, ptrdiff_t height, int replicate, uint8_t *dst, int32_t *scratch))
void ff_warp_linear_axis(const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t channels, double fx0, double dx, double fy0, double dy, ptrdiff_t width, ptrdiff_t height, int replicate, uint8_t *dst, int32_t *scratch) {
    FF_CALL(ff_warp_linear_axis, (base, stride, sw, sh, channels, fx0, dx, fy0, dy, width, height, replicate, dst, scratch))
}

FF_DECLARE(void, ff_rgbx_rows_to_yuv420, (const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, ptrdiff_t pairs, int bgr))
void ff_rgbx_rows_to_yuv420(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, ptrdiff_t pairs, int bgr) {
    FF_CALL(ff_rgbx_rows_to_yuv420, (s0, s1, y0, y1, u, v, pairs, bgr))
}

FF_DECLARE(void, ff_gray_to_video_luma, (const uint8_t *src, uint8_t *dst, ptrdiff_t n))
void ff_gray_to_video_luma(const uint8_t *src, uint8_t *dst, ptrdiff_t n) { FF_CALL(ff_gray_to_video_luma, (src, dst, n)) }
