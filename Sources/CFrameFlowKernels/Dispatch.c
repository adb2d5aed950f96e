// Finds the CPU's level once, at load, and lets the environment or a test lower it.
#include "CFrameFlowKernels.h"
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

int ff_process_level = FF_LEVEL_BASELINE;
_Thread_local int ff_thread_level = -1;
static int ff_supported = FF_LEVEL_BASELINE;

#if defined(__x86_64__)
// The level from CPUID, counting only register state the operating system saves (XGETBV):
// a CPU with AVX-512 under a kernel that does not save the ZMM registers runs AVX2.
static int ff_detect(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return FF_LEVEL_BASELINE;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1, f16c = (c >> 29) & 1;
    if (!osxsave || !avx) return FF_LEVEL_BASELINE;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0x6) != 0x6) return FF_LEVEL_BASELINE;  // XMM and YMM state
    if (__get_cpuid_max(0, 0) < 7) return FF_LEVEL_BASELINE;
    __cpuid_count(7, 0, a, b, c, d);
    int avx2 = (b >> 5) & 1, bmi1 = (b >> 3) & 1, bmi2 = (b >> 8) & 1;
    int level = FF_LEVEL_BASELINE;
    if (avx2 && fma && f16c && bmi1 && bmi2) level = FF_LEVEL_AVX2;
    int avx512 = ((b >> 16) & 1) && ((b >> 28) & 1) && ((b >> 17) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1);  // F CD DQ BW VL
    if (level == FF_LEVEL_AVX2 && avx512 && (lo & 0xE6) == 0xE6) level = FF_LEVEL_AVX512;  // opmask and ZMM state
    return level;
}
#else
static int ff_detect(void) { return FF_LEVEL_BASELINE; }
#endif

static int ff_level_named(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "baseline") || !strcmp(s, "portable") || !strcmp(s, "sse2")) return FF_LEVEL_BASELINE;
    if (!strcmp(s, "avx2")) return FF_LEVEL_AVX2;
    if (!strcmp(s, "avx512")) return FF_LEVEL_AVX512;
    return -1;
}

// Before Blas.c's constructor (102), which reads the level.
__attribute__((constructor(101))) static void ff_kernels_init(void) {
    ff_supported = ff_detect();
    ff_process_level = ff_supported;
    int wanted = ff_level_named(getenv("FRAMEFLOW_KERNELS"));
    if (wanted >= 0 && wanted < ff_supported) ff_process_level = wanted;
}

int ff_kernel_supported_level(void) { return ff_supported; }
int ff_kernel_level(void) { return ff_process_level; }

void ff_kernel_set_thread_level(int level) { ff_thread_level = level < 0 ? -1 : level > ff_supported ? ff_supported : level; }

int ff_kernel_thread_level(void) { return ff_thread_level >= 0 ? ff_thread_level : ff_process_level; }

const char *ff_kernel_level_name(int level) {
#if defined(__x86_64__)
    switch (level) {
    case FF_LEVEL_AVX512: return "avx512";
    case FF_LEVEL_AVX2: return "avx2";
    default: return "baseline";
    }
#elif defined(__aarch64__)
    (void)level;
    return "neon";
#else
    (void)level;
    return "baseline";
#endif
}
