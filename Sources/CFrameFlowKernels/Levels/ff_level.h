// Included by the per-level translation units (`*_avx512.c`, `*_avx2.c`, `*_baseline.c`):
// FF_LEVEL is set before, and every function that follows is compiled for that level's
// instruction set; FF_FN(name) gives an exported kernel its level-suffixed name.
#include "CFrameFlowKernels.h"

#if !defined(FF_LEVEL)
#error "define FF_LEVEL before including ff_level.h"
#endif

#if defined(__x86_64__) && FF_LEVEL == FF_LEVEL_AVX512
#define FF_FN(name) name##_avx512
#define FF_VL 16
#pragma clang attribute push(__attribute__((target("avx512f,avx512cd,avx512bw,avx512dq,avx512vl,avx2,fma,f16c,bmi,bmi2,popcnt,lzcnt"))), apply_to = function)
#define FF_PUSHED 1
#elif defined(__x86_64__) && FF_LEVEL == FF_LEVEL_AVX2
#define FF_FN(name) name##_avx2
#define FF_VL 8
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c,bmi,bmi2,popcnt,lzcnt"))), apply_to = function)
#define FF_PUSHED 1
#elif FF_LEVEL == FF_LEVEL_BASELINE
#define FF_FN(name) name##_baseline
#define FF_VL 4
#else
#define FF_SKIP_LEVEL 1
#endif
#if defined(FF_SKIP_LEVEL)
#define FF_ACTIVE 0
#else
#define FF_ACTIVE 1
#endif

/// Float vectors of 4, 8 and 16 lanes: the compiler maps them onto the level's registers.
typedef float ff_f4 __attribute__((ext_vector_type(4)));
typedef float ff_f8 __attribute__((ext_vector_type(8)));
typedef float ff_f16 __attribute__((ext_vector_type(16)));
typedef int32_t ff_i8 __attribute__((ext_vector_type(8)));
typedef int32_t ff_i16 __attribute__((ext_vector_type(16)));

#define FF_LOAD(type, p) ({ type ff_v_; __builtin_memcpy(&ff_v_, (p), sizeof ff_v_); ff_v_; })
#define FF_STORE(p, v) ({ __typeof__(v) ff_v_ = (v); __builtin_memcpy((p), &ff_v_, sizeof ff_v_); })
