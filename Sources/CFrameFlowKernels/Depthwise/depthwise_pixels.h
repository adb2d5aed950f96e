// The channel blocks of ff_depthwise_pixels_rows, the same at every level (so that weights
// packed on one thread serve workers at any level): 16-lane blocks, then 8-lane ones for
// what is left. Included by depthwise.c and depthwise_impl.h.
#ifndef FF_DEPTHWISE_PIXELS_H
#define FF_DEPTHWISE_PIXELS_H
#include <stddef.h>

// starts[0..<wide] begin 16-lane blocks, starts[wide..<blocks] 8-lane ones; a last block may
// overlap the one before (channels are independent: the overlap writes the same values).
static inline void ff_dwp_blocks(ptrdiff_t c, ptrdiff_t *starts, ptrdiff_t *wide, ptrdiff_t *blocks) {
    ptrdiff_t n = 0;
    for (; n * 16 + 16 <= c; n++) starts[n] = n * 16;
    const ptrdiff_t r = c - n * 16;
    if (r > 8 && c >= 16) starts[n++] = c - 16;
    *wide = n;
    if (c < 16) {
        starts[n++] = 0;
        if (c > 8) starts[n++] = c - 8;
    } else if (r > 0 && r <= 8) {
        starts[n++] = c - 8;
    }
    *blocks = n;
}
// The zeros after the packed weights that taps outside the image read: four pixels at a
// time read (3·sw + kw) columns of c floats.
static inline ptrdiff_t ff_dwp_zeros(ptrdiff_t c, ptrdiff_t sw, ptrdiff_t kw) { return c * (3 * sw + kw) + 16; }
#endif
