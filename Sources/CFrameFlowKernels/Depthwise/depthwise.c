#include "../Levels/ff_dispatch.h"

FF_DECLARE(void, ff_depthwise_rows, (const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y, float lo, float hi))
void ff_depthwise_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y, float lo, float hi) {
    FF_CALL(ff_depthwise_rows, (g, oy0, oy1, x, w, bias, y, lo, hi))
}

FF_DECLARE(void, ff_depthwise3x3_rows, (const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y, float lo, float hi))
void ff_depthwise3x3_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y, float lo, float hi) {
    FF_CALL(ff_depthwise3x3_rows, (g, oy0, oy1, x, w, bias, y, lo, hi))
}

FF_DECLARE(void, ff_depthwise_dilated_rows, (const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y))
void ff_depthwise_dilated_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y) {
    FF_CALL(ff_depthwise_dilated_rows, (g, oy0, oy1, x, w, bias, y))
}
