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
#include "depthwise_pixels.h"
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

// Channel blocks of ff_depthwise_pixels_rows: N lanes from starts[b], each block's weights
// packed as [bias, tap 0, …, tap kh·kw − 1] of N floats. A tap (ky, kx) of output pixel j
// reads p[ky] + (j·sw + kx)·xs. `np` pixels (a constant: 1, 2 or 4) and `nb` blocks at a
// time (2 where they fit) load each input vector once and keep np·nb independent sums in
// flight: one pixel's sum is a chain of dependent multiply-adds in tap order, as XNNPACK
// sums, and a single chain waits on its latency.
#if FF_VL >= 16
#define DWP_NP 4
#define DWP_NB 2
#else
#define DWP_NP 2  // sixteen ymm registers: more sums in flight spill
#define DWP_NB 1
#endif
#define DWP_BLOCKS(NAME, V, N)                                                                                          \
    static inline __attribute__((always_inline)) void NAME##_step(const float *const *p, ptrdiff_t xs, ptrdiff_t kh, ptrdiff_t kw,  \
                                                               ptrdiff_t sw, const float *wp, ptrdiff_t b, const ptrdiff_t *starts, \
                                                               float *yp, V lo, V hi, int np, int nb) {                          \
        const ptrdiff_t step = (1 + kh * kw) * N;                                                                        \
        V a[2][4];                                                                                                       \
        for (int i = 0; i < nb; i++)                                                                                     \
            for (int j = 0; j < np; j++) a[i][j] = FF_LOAD(V, wp + i * step);                                             \
        for (ptrdiff_t ky = 0; ky < kh; ky++)                                                                            \
            for (int i = 0; i < nb; i++) {                                                                               \
                const float *xr = p[ky] + starts[b + i], *wt = wp + i * step + (1 + ky * kw) * N;                        \
                V in[16];                                                                                                \
                const ptrdiff_t cols = (np - 1) * sw + kw;                                                               \
                for (ptrdiff_t q = 0; q < cols; q++) in[q] = FF_LOAD(V, xr + q * xs);                                     \
                for (ptrdiff_t kx = 0; kx < kw; kx++) {                                                                  \
                    const V wv = FF_LOAD(V, wt + kx * N);                                                                \
                    for (int j = 0; j < np; j++) a[i][j] += in[j * sw + kx] * wv;                                         \
                }                                                                                                        \
            }                                                                                                            \
        for (int i = 0; i < nb; i++)                                                                                     \
            for (int j = 0; j < np; j++) {                                                                               \
                V v = a[i][j] < lo ? lo : a[i][j];                                                                       \
                FF_STORE(yp + j * xs + starts[b + i], v > hi ? hi : v);                                                   \
            }                                                                                                            \
    }                                                                                                                    \
    static inline __attribute__((always_inline)) void NAME(const float *const *p, ptrdiff_t xs, ptrdiff_t kh, ptrdiff_t kw,        \
                                                        ptrdiff_t sw, const float *wp, ptrdiff_t b0, ptrdiff_t b1,               \
                                                        const ptrdiff_t *starts, float *yp, V lo, V hi, int np) {                \
        const ptrdiff_t step = (1 + kh * kw) * N;                                                                        \
        ptrdiff_t b = b0;                                                                                                \
        for (; b + DWP_NB <= b1; b += DWP_NB, wp += DWP_NB * step) NAME##_step(p, xs, kh, kw, sw, wp, b, starts, yp, lo, hi, np, DWP_NB); \
        for (; b < b1; b++, wp += step) NAME##_step(p, xs, kh, kw, sw, wp, b, starts, yp, lo, hi, np, 1);                   \
    }
DWP_BLOCKS(ff_dwp_pixels8, ff_f8, 8)
DWP_BLOCKS(ff_dwp_pixels16, ff_f16, 16)
#undef DWP_BLOCKS

// All channel blocks of NP pixels: `wide` blocks of 16 lanes, then the 8-lane ones up to
// `blocks` (ff_dwp_blocks).
#define DWP_ALL(NP, p, xs, kh, kw, sw, pack, wide, blocks, starts, yp, lo, hi)                                               \
    do {                                                                                                                      \
        ff_dwp_pixels16(p, xs, kh, kw, sw, pack, 0, wide, starts, yp, lo, hi, NP);                                            \
        if (wide < blocks) ff_dwp_pixels8(p, xs, kh, kw, sw, pack + wide * (1 + kh * kw) * 16, wide, blocks, starts, yp, lo, hi, NP); \
    } while (0)

// Output rows oy0 ..< oy1, all channels of a pixel before the next (whole cache lines): the
// inner columns several pixels at a time, then one by one, then the border columns.
static inline __attribute__((always_inline)) void ff_dwp_rows(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x,
                                                              const float *pack, ptrdiff_t wide, ptrdiff_t blocks, const ptrdiff_t *starts,
                                                              const float *zero, float *y, float lo, float hi, ptrdiff_t kh, ptrdiff_t kw) {
    const ptrdiff_t c = g->c;
    for (ptrdiff_t oy = oy0; oy < oy1; oy++) {
        const ptrdiff_t iy0 = oy * g->sh - g->pt;
        const float *rows[8];
        for (ptrdiff_t r = 0; r < kh; r++) rows[r] = iy0 + r >= 0 && iy0 + r < g->h ? x + (iy0 + r) * g->w * c : 0;
        float *yr = y + oy * g->ow * c;
        // Columns whose taps all lie inside: a pointer per filter row, stepping along the row
        // (a row outside the image reads the zeros and stays put).
        if (g->inner0 < g->inner1) {
            const ptrdiff_t sc = g->sw * c, ix0 = g->inner0 * g->sw - g->pl;
            const float *p[8];
            ptrdiff_t st[8];
            for (ptrdiff_t r = 0; r < kh; r++) {
                p[r] = rows[r] ? rows[r] + ix0 * c : zero;
                st[r] = rows[r] ? sc : 0;
            }
            ptrdiff_t ox = g->inner0;
            // DWP_NP pixels at a time at stride 1 or 2 (a constant, so that the inputs of a
            // filter row, at most 16 vectors, stay in registers).
#define DWP_STEPS(SW)                                                                      \
    for (; ox + DWP_NP <= g->inner1; ox += DWP_NP) {                                        \
        DWP_ALL(DWP_NP, p, c, kh, kw, SW, pack, wide, blocks, starts, yr + ox * c, lo, hi); \
        for (ptrdiff_t r = 0; r < kh; r++) p[r] += DWP_NP * st[r];                          \
    }
            if (g->sw == 1 && kw <= 13) DWP_STEPS(1)
            else if (g->sw == 2 && kw <= 10 && DWP_NB > 1) DWP_STEPS(2)
#undef DWP_STEPS
            for (; ox < g->inner1; ox++) {
                DWP_ALL(1, p, c, kh, kw, 1, pack, wide, blocks, starts, yr + ox * c, lo, hi);
                for (ptrdiff_t r = 0; r < kh; r++) p[r] += st[r];
            }
        }
        // The border columns: a pointer per tap, the zeros where it falls outside.
        for (ptrdiff_t ox = 0; ox < g->ow; ox++) {
            if (ox == g->inner0 && g->inner0 < g->inner1) {
                ox = g->inner1 - 1;
                continue;
            }
            const ptrdiff_t ix0 = ox * g->sw - g->pl;
            const float *p[64];
            for (ptrdiff_t r = 0; r < kh; r++)
                for (ptrdiff_t k = 0; k < kw; k++)
                    p[r * kw + k] = rows[r] && ix0 + k >= 0 && ix0 + k < g->w ? rows[r] + (ix0 + k) * c : zero;
            DWP_ALL(1, p, 0, kh * kw, 1, 1, pack, wide, blocks, starts, yr + ox * c, lo, hi);
        }
    }
}
#undef DWP_ALL
#undef DWP_NP
#undef DWP_NB

void FF_FN(ff_depthwise_pixels_rows)(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *pack, float *y,
                                     float lo, float hi) {
    const ptrdiff_t kh = g->kh, kw = g->kw;
    ptrdiff_t starts[g->c / 8 + 2], wide, blocks;
    ff_dwp_blocks(g->c, starts, &wide, &blocks);
    const float *zero = pack + blocks * (1 + kh * kw) * 16;
    // The filter size a constant for 3 × 3 and 5 × 5, so that the taps unroll.
    if (kh == 3 && kw == 3) ff_dwp_rows(g, oy0, oy1, x, pack, wide, blocks, starts, zero, y, lo, hi, 3, 3);
    else if (kh == 5 && kw == 5) ff_dwp_rows(g, oy0, oy1, x, pack, wide, blocks, starts, zero, y, lo, hi, 5, 5);
    else ff_dwp_rows(g, oy0, oy1, x, pack, wide, blocks, starts, zero, y, lo, hi, kh, kw);
}

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

// Lane pairs summed: [a0+a1, a2+a3, b0+b1, b2+b3, a4+a5, a6+a7, b4+b5, b6+b7] (vhaddps).
static inline __attribute__((always_inline)) ff_f8 ff_narrow_hadd(ff_f8 a, ff_f8 b) {
    return __builtin_shufflevector(a, b, 0, 2, 8, 10, 4, 6, 12, 14) + __builtin_shufflevector(a, b, 1, 3, 9, 11, 5, 7, 13, 15);
}

// The sum of a vector's lanes, in the order ff_narrow_eight sums them.
static inline __attribute__((always_inline)) float ff_narrow_sum(ff_f8 a) {
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// Output pixels ox ..< ox + 8 of row oy, every tap inside the image, c a multiple of 8: eight
// independent sums (one pixel's taps are a chain of dependent multiply-adds), reduced across
// their lanes together.
static inline __attribute__((always_inline)) void ff_narrow_eight(const ff_dw_window *g, const float *x, const float *w, const float *bias,
                                                                  ptrdiff_t outputs, float *y, float lo, float hi, ptrdiff_t iy0,
                                                                  ptrdiff_t oy, ptrdiff_t ox) {
    const ptrdiff_t c = g->c, K = g->kh * g->kw * c, xs = g->sw * c;
    float *yp = y + (oy * g->ow + ox) * outputs;
    for (ptrdiff_t o = 0; o < outputs; o++) {
        ff_f8 a[8];
        for (int j = 0; j < 8; j++) a[j] = 0;
        for (ptrdiff_t ky = 0; ky < g->kh; ky++)
            for (ptrdiff_t kx = 0; kx < g->kw; kx++) {
                const float *xp = x + ((iy0 + ky * g->dh) * g->w + ox * g->sw - g->pl + kx * g->dw) * c, *wp = w + o * K + (ky * g->kw + kx) * c;
                for (ptrdiff_t ch = 0; ch < c; ch += 8) {
                    const ff_f8 wv = FF_LOAD(ff_f8, wp + ch);
                    for (int j = 0; j < 8; j++) a[j] += FF_LOAD(ff_f8, xp + j * xs + ch) * wv;
                }
            }
        const ff_f8 u0 = ff_narrow_hadd(ff_narrow_hadd(a[0], a[1]), ff_narrow_hadd(a[2], a[3]));
        const ff_f8 u1 = ff_narrow_hadd(ff_narrow_hadd(a[4], a[5]), ff_narrow_hadd(a[6], a[7]));
        ff_f8 v = __builtin_shufflevector(u0, u1, 0, 1, 2, 3, 8, 9, 10, 11) + __builtin_shufflevector(u0, u1, 4, 5, 6, 7, 12, 13, 14, 15);
        v += bias ? bias[o] : 0;
        const ff_f8 lov = lo, hiv = hi;
        v = v < lov ? lov : v;
        v = v > hiv ? hiv : v;
        if (outputs == 1) {
            FF_STORE(yp, v);
        } else {
            for (int j = 0; j < 8; j++) yp[j * outputs + o] = v[j];
        }
    }
}

void FF_FN(ff_conv_narrow_rows)(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, const float *x, const float *w, const float *bias,
                                ptrdiff_t outputs, float *y, float lo, float hi) {
    const ptrdiff_t c = g->c, c8 = c / 8 * 8, K = g->kh * g->kw * c;
    for (ptrdiff_t oy = oy0; oy < oy1; oy++) {
        const ptrdiff_t iy0 = oy * g->sh - g->pt;
        ptrdiff_t ky0, ky1;
        ff_dw_taps(iy0, g->kh, g->h, g->dh, &ky0, &ky1);
        // Columns v0 ..< v1 eight at a time (whole vectors, every tap inside); the others one by one.
        const ptrdiff_t v0 = g->inner0, v1 = c8 == c && ky0 == 0 && ky1 == g->kh ? v0 + (g->inner1 - v0) / 8 * 8 : v0;
        for (ptrdiff_t ox = v0; ox < v1; ox += 8) ff_narrow_eight(g, x, w, bias, outputs, y, lo, hi, iy0, oy, ox);
        for (ptrdiff_t ox = 0; ox < g->ow; ox++) {
            if (ox == v0 && v1 > v0) {
                ox = v1 - 1;
                continue;
            }
            const ptrdiff_t ix0 = ox * g->sw - g->pl;
            ptrdiff_t kx0, kx1;
            ff_dw_taps(ix0, g->kw, g->w, g->dw, &kx0, &kx1);
            float *yp = y + (oy * g->ow + ox) * outputs;
            for (ptrdiff_t o = 0; o < outputs; o++) {
                // The taps inside the image, 8 channels at a time into one vector, the rest one by one.
                ff_f8 acc = 0;
                float tail = 0;
                for (ptrdiff_t ky = ky0; ky < ky1; ky++)
                    for (ptrdiff_t kx = kx0; kx < kx1; kx++) {
                        const float *xp = x + ((iy0 + ky * g->dh) * g->w + ix0 + kx * g->dw) * c, *wp = w + o * K + (ky * g->kw + kx) * c;
                        ptrdiff_t ch = 0;
                        for (; ch < c8; ch += 8) acc += FF_LOAD(ff_f8, xp + ch) * FF_LOAD(ff_f8, wp + ch);
                        for (; ch < c; ch++) tail += xp[ch] * wp[ch];
                    }
                float v = ff_narrow_sum(acc) + tail + (bias ? bias[o] : 0);
                v = v < lo ? lo : v;
                yp[o] = v > hi ? hi : v;
            }
        }
    }
}
