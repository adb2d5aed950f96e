// OpenBLAS's environment, prepared before main: a constructor runs on one thread, the only
// moment a library may change the environment (setenv races with getenv on other threads).
#define _GNU_SOURCE
#include "CFrameFlowKernels.h"
#include <stdlib.h>
#include <string.h>
#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>
#include <strings.h>

static void *ff_blas_private;

// OpenBLAS picks its kernels while it loads, from OPENBLAS_CORETYPE or its own CPU table (a
// Debian build that does not know the CPU falls back to SSE3 "Prescott" kernels). The variable
// is set here for the load GEMM.swift makes later; when another library has loaded OpenBLAS
// already with other kernels, a private copy is loaded now in a namespace of its own, with one
// thread (FrameFlow runs products on its own workers), for GEMM.swift to use.
__attribute__((constructor(102))) static void ff_blas_prepare(void) {
    const char *off = getenv("FRAMEFLOW_BLAS");
    if (off && !strcmp(off, "off")) return;
    const char *wanted = getenv("OPENBLAS_CORETYPE");
    if (!wanted) {
        int level = ff_kernel_supported_level();
        wanted = level == FF_LEVEL_AVX512 ? "SkylakeX" : level == FF_LEVEL_AVX2 ? "Haswell" : NULL;
        if (!wanted) return;
        setenv("OPENBLAS_CORETYPE", wanted, 0);
    }
    static const char *const names[] = {"libopenblas.so.0", "libopenblas.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *loaded = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (!loaded) continue;
        const char *(*core_name)(void) = (const char *(*)(void))dlsym(loaded, "openblas_get_corename");
        const char *core = core_name ? core_name() : NULL;
        if (core && strcasecmp(core, wanted) != 0) {
            const char *threads = getenv("OPENBLAS_NUM_THREADS");
            char *saved = threads ? strdup(threads) : NULL;
            setenv("OPENBLAS_NUM_THREADS", "1", 1);
            ff_blas_private = dlmopen(LM_ID_NEWLM, names[i], RTLD_NOW | RTLD_LOCAL);
            if (saved) {
                setenv("OPENBLAS_NUM_THREADS", saved, 1);
                free(saved);
            } else {
                unsetenv("OPENBLAS_NUM_THREADS");
            }
        }
        dlclose(loaded);
        return;
    }
}

void *ff_blas_private_handle(void) { return ff_blas_private; }
#else
void *ff_blas_private_handle(void) { return NULL; }
#endif
