#ifndef CFRAMEFLOWKERNELS_H
#define CFRAMEFLOWKERNELS_H

// FrameFlow's innermost loops, compiled once per instruction-set level and chosen at run time
// from the CPU found (docs/architecture.md, "Kernels"). Everything above these loops is Swift.

#include <stddef.h>
#include <stdint.h>

/// Instruction-set levels, lowest first. On x86-64: the SSE2 baseline, AVX2 + FMA (x86-64-v3),
/// AVX-512 F/CD/BW/DQ/VL (x86-64-v4). Elsewhere (arm64 NEON) one level, the compiler's own.
#define FF_LEVEL_BASELINE 0
#define FF_LEVEL_AVX2 1
#define FF_LEVEL_AVX512 2

/// The highest level this CPU (and its operating system) can execute.
int ff_kernel_supported_level(void);

/// The level the kernels run at: the supported level, or a lower one named by the environment
/// variable `FRAMEFLOW_KERNELS` (`baseline`, `avx2`, `avx512`) read on first use.
int ff_kernel_level(void);

/// Sets the level for the calling thread only (-1: follow the process). Tests run each variant
/// with this so that other threads are not disturbed.
void ff_kernel_set_thread_level(int level);

/// The level kernels called from this thread run at (its own, else the process's).
int ff_kernel_thread_level(void);

/// A level's name: "baseline", "avx2", "avx512" (or "neon" on arm64).
const char *ff_kernel_level_name(int level);

/// OpenBLAS loaded before main in a namespace of its own (dlmopen), with the kernels for this
/// CPU, because another library had loaded it with others; NULL when none was needed.
void *ff_blas_private_handle(void);

#include "ff_vector_math.h"
#include "ff_gemm.h"
#include "ff_depthwise.h"
#include "ff_qgemm.h"
#include "ff_pooling.h"
#include "ff_pixels.h"
#include "ff_haar.h"
#include "ff_hog.h"

#endif
