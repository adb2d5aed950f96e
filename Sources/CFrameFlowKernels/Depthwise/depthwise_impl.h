// Depthwise convolution over NHWC images, compiled once per level (see
// ../Levels/ff_level.h). The Swift callers choose the kernel, split rows over threads and
// work out the window; these loops run the rows.

#define DW_ROW ff_dw_row8
#define DW_V ff_f8
#define DW_N 8
#include "depthwise_row.h"
#undef DW_ROW
#undef DW_V
#undef DW_N
#if FF_VL >= 16
#define DW_ROW ff_dw_row16
#define DW_V ff_f16
#define DW_N 16
#include "depthwise_row.h"
#undef DW_ROW
#undef DW_V
#undef DW_N
#endif

// One row with the filter size a constant for 3 × 3 and 5 × 5, so that the taps unroll.
#define FF_DW_SIZES(ROW)                                                                   \
    if (g->kh == 3 && g->kw == 3) ROW(g, oy, 3, 3, x, w, bias, y, lo, hi);                \
    else if (g->kh == 5 && g->kw == 5) ROW(g, oy, 5, 5, x, w, bias, y, lo, hi);           \
    else ROW(g, oy, g->kh, g->kw, x, w, bias, y, lo, hi);

void FF_FN(ff_depthwise_rows)(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                              float *y, float lo, float hi) {
    for (ptrdiff_t oy = oy0; oy < oy1; oy++) {
#if FF_VL >= 16
        // A whole 64-byte line per block where there are 16 channels or more.
        if (g->c >= 16) {
            FF_DW_SIZES(ff_dw_row16)
            continue;
        }
#endif
        FF_DW_SIZES(ff_dw_row8)
    }
}
#undef FF_DW_SIZES

// v clamped to lo...hi (NaN stays NaN); a macro: 8-float vector arguments of a function
// change the ABI at the baseline level.
#define ff_dw_clamp8(v, lo, hi) ({ ff_f8 c_ = (v); c_ = c_ < (lo) ? (lo) : c_; c_ > (hi) ? (hi) : c_; })

void FF_FN(ff_depthwise3x3_rows)(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                                 float *y, float lo_, float hi_) {
    const ff_f8 lo = lo_, hi = hi_;
    const ptrdiff_t c = g->c, gw = g->w, sw = g->sw, pl = g->pl, ow = g->ow, blocks = (c + 7) / 8;
    const ptrdiff_t in0 = g->inner0, in1 = g->inner1;
    for (ptrdiff_t oy = oy0; oy < oy1; oy++) {
        const ptrdiff_t iy0 = oy * g->sh - g->pt;
        int inside[3];
        for (int r = 0; r < 3; r++) inside[r] = iy0 + r >= 0 && iy0 + r < g->h;
        for (ptrdiff_t blk = 0; blk < blocks; blk++) {
            const ptrdiff_t ch = blk * 8 < c - 8 ? blk * 8 : c - 8;
            const ff_f8 b0 = bias ? FF_LOAD(ff_f8, bias + ch) : (ff_f8)0;
            // Taps of rows outside the image are zero, so those rows add nothing; they read
            // row 0 instead.
            ff_f8 t[9];
            for (int k = 0; k < 9; k++) t[k] = inside[k / 3] ? FF_LOAD(ff_f8, w + k * c + ch) : (ff_f8)0;
            const ff_f8 w0 = t[0], w1 = t[1], w2 = t[2], w3 = t[3], w4 = t[4], w5 = t[5], w6 = t[6], w7 = t[7], w8 = t[8];
            const float *r0 = x + (inside[0] ? iy0 : 0) * gw * c + ch;
            const float *r1 = x + (inside[1] ? iy0 + 1 : 0) * gw * c + ch;
            const float *r2 = x + (inside[2] ? iy0 + 2 : 0) * gw * c + ch;
            float *yr = y + oy * ow * c + ch;
            // One output column per step, one accumulator per filter row (three short chains),
            // the inputs from three pointers stepped along the rows: four columns per step
            // with the 36 addresses computed apart spilled the pointers and ran 1.4–1.7× slower.
            const ptrdiff_t sc = sw * c, o0 = (in0 * sw - pl) * c;
            const float *q0 = r0 + o0, *q1 = r1 + o0, *q2 = r2 + o0;
            float *yp = yr + in0 * c;
            for (ptrdiff_t ox = in0; ox < in1; ox++, q0 += sc, q1 += sc, q2 += sc, yp += c) {
                ff_f8 a = b0 + FF_LOAD(ff_f8, q0) * w0, b = FF_LOAD(ff_f8, q1) * w3, d = FF_LOAD(ff_f8, q2) * w6;
                a += FF_LOAD(ff_f8, q0 + c) * w1;
                b += FF_LOAD(ff_f8, q1 + c) * w4;
                d += FF_LOAD(ff_f8, q2 + c) * w7;
                a += FF_LOAD(ff_f8, q0 + 2 * c) * w2;
                b += FF_LOAD(ff_f8, q1 + 2 * c) * w5;
                d += FF_LOAD(ff_f8, q2 + 2 * c) * w8;
                FF_STORE(yp, ff_dw_clamp8(a + b + d, lo, hi));
            }
            // The border columns, tap by tap.
            for (ptrdiff_t o = 0; o < ow; o++) {
                if (o >= in0 && o < in1) continue;
                ff_f8 a = b0;
                for (ptrdiff_t kx = 0; kx < 3; kx++) {
                    const ptrdiff_t ix = o * sw - pl + kx;
                    if (ix < 0 || ix >= gw) continue;
                    a += FF_LOAD(ff_f8, r0 + ix * c) * t[kx];
                    a += FF_LOAD(ff_f8, r1 + ix * c) * t[3 + kx];
                    a += FF_LOAD(ff_f8, r2 + ix * c) * t[6 + kx];
                }
                FF_STORE(yr + o * c, ff_dw_clamp8(a, lo, hi));
            }
        }
    }
}
#undef ff_dw_clamp8

// The taps k0..<k1 of a window starting at input index i0 (taps d apart) inside 0..<size.
static inline __attribute__((always_inline)) void ff_dw_taps(ptrdiff_t i0, ptrdiff_t k, ptrdiff_t size, ptrdiff_t d, ptrdiff_t *k0, ptrdiff_t *k1) {
    if (d == 1) {
        *k0 = i0 < 0 ? -i0 : 0;
        ptrdiff_t e = size - i0 < k ? size - i0 : k;
        *k1 = e < 0 ? 0 : e;
        return;
    }
    *k0 = i0 >= 0 ? 0 : (-i0 + d - 1) / d;
    ptrdiff_t e = size - i0 <= 0 ? 0 : (size - 1 - i0) / d + 1;
    *k1 = e < k ? e : k;
}

void FF_FN(ff_depthwise_dilated_rows)(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                                      float *y) {
    const ptrdiff_t c = g->c, xStep = g->dw * c, yStep = g->dh * g->w * c, wStep = g->kw * c;
    for (ptrdiff_t oy = oy0; oy < oy1; oy++) {
        const ptrdiff_t iy0 = oy * g->sh - g->pt;
        ptrdiff_t ky0, ky1;
        ff_dw_taps(iy0, g->kh, g->h, g->dh, &ky0, &ky1);
        for (ptrdiff_t ox = 0; ox < g->ow; ox++) {
            const ptrdiff_t ix0 = ox * g->sw - g->pl;
            ptrdiff_t kx0, kx1;
            ff_dw_taps(ix0, g->kw, g->w, g->dw, &kx0, &kx1);
            float *yp = y + (oy * g->ow + ox) * c;
            const int any = ky0 < ky1 && kx0 < kx1;
            // The window's first tap inside the image, for channel 0.
            const ptrdiff_t xf = ((iy0 + ky0 * g->dh) * g->w + ix0 + kx0 * g->dw) * c, wf = (ky0 * g->kw + kx0) * c;
            ptrdiff_t blk = 0;
            // 32 channels at a time: four independent chains of multiply-adds.
            for (; blk + 32 <= c && any; blk += 32) {
                ff_f8 a0 = FF_LOAD(ff_f8, bias + blk), a1 = FF_LOAD(ff_f8, bias + blk + 8);
                ff_f8 a2 = FF_LOAD(ff_f8, bias + blk + 16), a3 = FF_LOAD(ff_f8, bias + blk + 24);
                const float *row = x + xf + blk, *wrow = w + wf + blk;
                for (ptrdiff_t ky = ky0; ky < ky1; ky++, row += yStep, wrow += wStep) {
                    const float *xp = row, *wp = wrow;
                    for (ptrdiff_t kx = kx0; kx < kx1; kx++, xp += xStep, wp += c) {
                        a0 += FF_LOAD(ff_f8, xp) * FF_LOAD(ff_f8, wp);
                        a1 += FF_LOAD(ff_f8, xp + 8) * FF_LOAD(ff_f8, wp + 8);
                        a2 += FF_LOAD(ff_f8, xp + 16) * FF_LOAD(ff_f8, wp + 16);
                        a3 += FF_LOAD(ff_f8, xp + 24) * FF_LOAD(ff_f8, wp + 24);
                    }
                }
                FF_STORE(yp + blk, a0);
                FF_STORE(yp + blk + 8, a1);
                FF_STORE(yp + blk + 16, a2);
                FF_STORE(yp + blk + 24, a3);
            }
            for (; blk < c; blk += 8) {
                const ptrdiff_t ch = blk < c - 8 ? blk : c - 8;
                ff_f8 a = FF_LOAD(ff_f8, bias + ch);
                if (any) {
                    const float *row = x + xf + ch, *wrow = w + wf + ch;
                    for (ptrdiff_t ky = ky0; ky < ky1; ky++, row += yStep, wrow += wStep) {
                        const float *xp = row, *wp = wrow;
                        for (ptrdiff_t kx = kx0; kx < kx1; kx++, xp += xStep, wp += c) a += FF_LOAD(ff_f8, xp) * FF_LOAD(ff_f8, wp);
                    }
                }
                FF_STORE(yp + ch, a);
            }
        }
    }
}
