#include "../Levels/ff_dispatch.h"

FF_DECLARE(void, ff_pool_rows, (const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, int is_max, const float *x, float *y))
void ff_pool_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, int is_max, const float *x, float *y) {
    FF_CALL(ff_pool_rows, (g, oy0, oy1, is_max, x, y))
}

FF_DECLARE(void, ff_reduce_rows_f32, (float *t, const float *first, ptrdiff_t rows, ptrdiff_t stride, ptrdiff_t count, int is_max))
void ff_reduce_rows_f32(float *t, const float *first, ptrdiff_t rows, ptrdiff_t stride, ptrdiff_t count, int is_max) {
    FF_CALL(ff_reduce_rows_f32, (t, first, rows, stride, count, is_max))
}

FF_DECLARE(void, ff_max_pairs_f32, (const float *t, ptrdiff_t count, int three, float *y))
void ff_max_pairs_f32(const float *t, ptrdiff_t count, int three, float *y) { FF_CALL(ff_max_pairs_f32, (t, count, three, y)) }
