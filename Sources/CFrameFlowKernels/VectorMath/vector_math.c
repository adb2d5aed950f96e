#include "../Levels/ff_dispatch.h"

FF_DECLARE(float, ff_sum_f32, (const float *p, ptrdiff_t count))
float ff_sum_f32(const float *p, ptrdiff_t count) { FF_CALL(ff_sum_f32, (p, count)) }
