#include "../Levels/ff_dispatch.h"
#include "depthwise_pixels.h"

ptrdiff_t ff_depthwise_pixels_packed_count(const ff_dw_window *g) {
    ptrdiff_t starts[g->c / 8 + 2], wide, blocks;
    ff_dwp_blocks(g->c, starts, &wide, &blocks);
    return blocks * (1 + g->kh * g->kw) * 16 + ff_dwp_zeros(g->c, g->sw, g->kw);
}

void ff_depthwise_pixels_pack(const ff_dw_window *g, const float *w, const float *bias, float *pack) {
    const ptrdiff_t c = g->c, taps = g->kh * g->kw;
    ptrdiff_t starts[c / 8 + 2], wide, blocks;
    ff_dwp_blocks(c, starts, &wide, &blocks);
    float *p = pack;
    for (ptrdiff_t b = 0; b < blocks; b++) {
        const ptrdiff_t s = starts[b], lanes = b < wide ? 16 : 8;
        for (ptrdiff_t l = 0; l < lanes; l++) p[l] = bias ? bias[s + l] : 0;
        for (ptrdiff_t k = 0; k < taps; k++)
            for (ptrdiff_t l = 0; l < lanes; l++) p[(1 + k) * lanes + l] = w[k * c + s + l];
        p += (1 + taps) * lanes;
    }
    // Zeros for the taps outside the image, where ff_depthwise_pixels_rows looks for them:
    // past room for `blocks` 16-lane blocks.
    float *zero = pack + blocks * (1 + taps) * 16;
    for (ptrdiff_t i = 0; i < ff_dwp_zeros(c, g->sw, g->kw); i++) zero[i] = 0;
}

FF_DECLARE(void, ff_depthwise_rows, (const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y, float lo, float hi))
void ff_depthwise_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y, float lo, float hi) {
    FF_CALL(ff_depthwise_rows, (g, oy0, oy1, x, w, bias, y, lo, hi))
}

FF_DECLARE(void, ff_depthwise_pixels_rows, (const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *pack, float *y, float lo, float hi))
void ff_depthwise_pixels_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *pack, float *y, float lo, float hi) {
    FF_CALL(ff_depthwise_pixels_rows, (g, oy0, oy1, x, pack, y, lo, hi))
}

FF_DECLARE(void, ff_depthwise_dilated_rows, (const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y))
void ff_depthwise_dilated_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, float *y) {
    FF_CALL(ff_depthwise_dilated_rows, (g, oy0, oy1, x, w, bias, y))
}

FF_DECLARE(void, ff_conv_narrow_rows, (const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, ptrdiff_t outputs, float *y, float lo, float hi))
void ff_conv_narrow_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias, ptrdiff_t outputs, float *y, float lo, float hi) {
    FF_CALL(ff_conv_narrow_rows, (g, oy0, oy1, x, w, bias, outputs, y, lo, hi))
}
