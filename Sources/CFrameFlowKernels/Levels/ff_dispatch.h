// For the dispatching translation units: declares a kernel's per-level variants and calls the
// one for the current level (the calling thread's, else the process's).
#include "CFrameFlowKernels.h"

extern int ff_process_level;
extern _Thread_local int ff_thread_level;

static inline __attribute__((always_inline)) int ff_current_level(void) {
    int t = ff_thread_level;
    return t >= 0 ? t : ff_process_level;
}

#if defined(__x86_64__)
#define FF_DECLARE(ret, name, params) ret name##_avx512 params; ret name##_avx2 params; ret name##_baseline params;
#define FF_CALL(name, args)                                   \
    switch (ff_current_level()) {                             \
    case FF_LEVEL_AVX512: return name##_avx512 args;          \
    case FF_LEVEL_AVX2: return name##_avx2 args;              \
    default: return name##_baseline args;                     \
    }
#else
#define FF_DECLARE(ret, name, params) ret name##_baseline params;
#define FF_CALL(name, args) return name##_baseline args;
#endif
