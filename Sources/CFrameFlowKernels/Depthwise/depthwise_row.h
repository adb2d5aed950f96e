// One output row of ff_depthwise_rows in channel blocks of DW_N lanes of type DW_V, as the
// function DW_ROW; included once per block width by depthwise_impl.h.

static inline __attribute__((always_inline)) void DW_ROW(const ff_dw_window *g, ptrdiff_t oy, ptrdiff_t kh, ptrdiff_t kw, const float *x,
                                                          const float *w, const float *bias, float *y, float lo_, float hi_) {
    const DW_V lo = lo_, hi = hi_;
    const ptrdiff_t n = DW_N, c = g->c, sc = g->sw * c, gw = g->w, sw = g->sw, ow = g->ow;
    const ptrdiff_t in0 = g->inner0, in1 = g->inner1;
    const ptrdiff_t iy0 = oy * g->sh - g->pt;
    const ptrdiff_t ky0 = iy0 < 0 ? -iy0 : 0, ky1 = kh < g->h - iy0 ? kh : g->h - iy0;
    float *yr = y + oy * ow * c;
#define DW_ST(p, v) ({ DW_V s_ = (v); s_ = s_ < lo ? lo : s_; s_ = s_ > hi ? hi : s_; FF_STORE((p), s_); })
    for (ptrdiff_t ch = 0; ch < c; ch += n) {
        if (ch + n > c) ch = c - n;  // the last block overlaps the one before
        const DW_V b0 = bias ? FF_LOAD(DW_V, bias + ch) : (DW_V)0;
        // Offset of filter row 0, column 0 for output column 0 (may lie outside the image).
        const ptrdiff_t x0 = (iy0 * gw - g->pl) * c + ch;
        const float *w0 = w + ch;
        ptrdiff_t ox = in0;
        if (sw == 1 && kw <= 5) {
            // Stride 1 (kw a constant here): the 7 + kw input vectors of a filter row loaded
            // once for the eight columns (column j's tap kx reads input j + kx), so that the
            // step is not spent on addresses. The same sums in the same order as below.
            for (; ox + 8 <= in1; ox += 8) {
                DW_V acc[8];
                for (int j = 0; j < 8; j++) acc[j] = b0;
                for (ptrdiff_t ky = ky0; ky < ky1; ky++) {
                    const float *xr = x + (x0 + (ky * gw + ox) * c), *wr = w0 + ky * kw * c;
                    DW_V in[12];
                    for (ptrdiff_t i = 0; i < 7 + kw; i++) in[i] = FF_LOAD(DW_V, xr + i * c);
                    for (ptrdiff_t kx = 0; kx < kw; kx++) {
                        const DW_V wv = FF_LOAD(DW_V, wr + kx * c);
                        for (int j = 0; j < 8; j++) acc[j] += in[j + kx] * wv;
                    }
                }
                float *yp = yr + ox * c + ch;
                for (int j = 0; j < 8; j++) DW_ST(yp + j * c, acc[j]);
            }
        }
        for (; ox + 8 <= in1; ox += 8) {
            DW_V a0 = b0, a1 = b0, a2 = b0, a3 = b0, a4 = b0, a5 = b0, a6 = b0, a7 = b0;
            for (ptrdiff_t ky = ky0; ky < ky1; ky++) {
                const float *xr = x + (x0 + (ky * gw + ox * sw) * c), *wr = w0 + ky * kw * c;
                for (ptrdiff_t kx = 0; kx < kw; kx++) {
                    const DW_V wv = FF_LOAD(DW_V, wr + kx * c);
                    const float *xp = xr + kx * c;
                    a0 += FF_LOAD(DW_V, xp) * wv;
                    a1 += FF_LOAD(DW_V, xp + sc) * wv;
                    a2 += FF_LOAD(DW_V, xp + 2 * sc) * wv;
                    a3 += FF_LOAD(DW_V, xp + 3 * sc) * wv;
                    a4 += FF_LOAD(DW_V, xp + 4 * sc) * wv;
                    a5 += FF_LOAD(DW_V, xp + 5 * sc) * wv;
                    a6 += FF_LOAD(DW_V, xp + 6 * sc) * wv;
                    a7 += FF_LOAD(DW_V, xp + 7 * sc) * wv;
                }
            }
            float *yp = yr + ox * c + ch;
            DW_ST(yp, a0); DW_ST(yp + c, a1); DW_ST(yp + 2 * c, a2); DW_ST(yp + 3 * c, a3);
            DW_ST(yp + 4 * c, a4); DW_ST(yp + 5 * c, a5); DW_ST(yp + 6 * c, a6); DW_ST(yp + 7 * c, a7);
        }
        for (; ox + 4 <= in1; ox += 4) {
            DW_V a0 = b0, a1 = b0, a2 = b0, a3 = b0;
            for (ptrdiff_t ky = ky0; ky < ky1; ky++) {
                const float *xr = x + (x0 + (ky * gw + ox * sw) * c), *wr = w0 + ky * kw * c;
                for (ptrdiff_t kx = 0; kx < kw; kx++) {
                    const DW_V wv = FF_LOAD(DW_V, wr + kx * c);
                    const float *xp = xr + kx * c;
                    a0 += FF_LOAD(DW_V, xp) * wv;
                    a1 += FF_LOAD(DW_V, xp + sc) * wv;
                    a2 += FF_LOAD(DW_V, xp + 2 * sc) * wv;
                    a3 += FF_LOAD(DW_V, xp + 3 * sc) * wv;
                }
            }
            float *yp = yr + ox * c + ch;
            DW_ST(yp, a0); DW_ST(yp + c, a1); DW_ST(yp + 2 * c, a2); DW_ST(yp + 3 * c, a3);
        }
        // The columns left over inside, then the border columns (past the right border: the
        // left ones) with the filter columns that fall inside the image.
        for (ptrdiff_t col = ox; col < ow + in0; col++) {
            const ptrdiff_t o = col < ow ? col : col - ow;
            const ptrdiff_t ix0 = o * sw - g->pl;
            const ptrdiff_t kx0 = ix0 < 0 ? -ix0 : 0, kx1 = kw < gw - ix0 ? kw : gw - ix0;
            DW_V a = b0, b = 0;
            for (ptrdiff_t ky = ky0; ky < ky1; ky++) {
                const float *xr = x + (x0 + (ky * gw + o * sw) * c), *wr = w0 + ky * kw * c;
                ptrdiff_t kx = kx0;
                for (; kx + 2 <= kx1; kx += 2) {
                    a += FF_LOAD(DW_V, xr + kx * c) * FF_LOAD(DW_V, wr + kx * c);
                    b += FF_LOAD(DW_V, xr + (kx + 1) * c) * FF_LOAD(DW_V, wr + (kx + 1) * c);
                }
                if (kx < kx1) a += FF_LOAD(DW_V, xr + kx * c) * FF_LOAD(DW_V, wr + kx * c);
            }
            DW_ST(yr + o * c + ch, a + b);
        }
    }
#undef DW_ST
}
