#include "../Levels/ff_dispatch.h"

FF_DECLARE(float, ff_sum_f32, (const float *p, ptrdiff_t count))
float ff_sum_f32(const float *p, ptrdiff_t count) { FF_CALL(ff_sum_f32, (p, count)) }

FF_DECLARE(void, ff_exp_f32, (const float *x, float *y, ptrdiff_t count))
void ff_exp_f32(const float *x, float *y, ptrdiff_t count) { FF_CALL(ff_exp_f32, (x, y, count)) }

FF_DECLARE(void, ff_sigmoid_f32, (const float *x, float *y, ptrdiff_t count))
void ff_sigmoid_f32(const float *x, float *y, ptrdiff_t count) { FF_CALL(ff_sigmoid_f32, (x, y, count)) }

FF_DECLARE(void, ff_prelu_rows_f32, (const float *x, const float *alpha, ptrdiff_t rows, ptrdiff_t c, float *y))
void ff_prelu_rows_f32(const float *x, const float *alpha, ptrdiff_t rows, ptrdiff_t c, float *y) {
    FF_CALL(ff_prelu_rows_f32, (x, alpha, rows, c, y))
}

FF_DECLARE(void, ff_bias_activate_f32, (float *r, ptrdiff_t count, float bias, int mode, float slope, float lo, float hi, const float *affine))
void ff_bias_activate_f32(float *r, ptrdiff_t count, float bias, int mode, float slope, float lo, float hi, const float *affine) {
    FF_CALL(ff_bias_activate_f32, (r, count, bias, mode, slope, lo, hi, affine))
}

FF_DECLARE(void, ff_bias_activate_rows_f32, (float *r, ptrdiff_t rows, ptrdiff_t count, ptrdiff_t stride, const ff_row_activation *a))
void ff_bias_activate_rows_f32(float *r, ptrdiff_t rows, ptrdiff_t count, ptrdiff_t stride, const ff_row_activation *a) {
    FF_CALL(ff_bias_activate_rows_f32, (r, rows, count, stride, a))
}

FF_DECLARE(void, ff_resize_bilinear_row_f32, (const float *top, const float *bottom, const ptrdiff_t *lo, const ptrdiff_t *hi, const float *t, float dy, ptrdiff_t ow, ptrdiff_t c, float *y))
void ff_resize_bilinear_row_f32(const float *top, const float *bottom, const ptrdiff_t *lo, const ptrdiff_t *hi, const float *t, float dy, ptrdiff_t ow, ptrdiff_t c, float *y) {
    FF_CALL(ff_resize_bilinear_row_f32, (top, bottom, lo, hi, t, dy, ow, c, y))
}

FF_DECLARE(float, ff_fma_peak_f32, (ptrdiff_t iterations, double *flops))
float ff_fma_peak_f32(ptrdiff_t iterations, double *flops) { FF_CALL(ff_fma_peak_f32, (iterations, flops)) }
