#ifndef FF_VECTOR_MATH_H
#define FF_VECTOR_MATH_H

#include <stddef.h>

/// The sum of `count` floats, in several vector accumulators.
float ff_sum_f32(const float *p, ptrdiff_t count);

#endif
