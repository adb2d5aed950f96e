#ifndef CFRAMEFLOWSUPPORT_H
#define CFRAMEFLOWSUPPORT_H

/// Asks the CPU to bring the cache line at `p` towards L1 (a hint: no fault, no effect on
/// results). Swift has no prefetch; this header is inlined where it is called.
static inline __attribute__((always_inline)) void ff_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

#endif
