// Pooling, compiled once per level (see ../Levels/ff_level.h): NHWC windows (the TFLite
// ops) and the row passes of NCHW pooling (the ONNX ops).

void FF_FN(ff_pool_rows)(const ff_dw_window *g, ptrdiff_t oy0, ptrdiff_t oy1, int is_max, const float *x, float *y) {
    const ptrdiff_t c = g->c, gw = g->w;
    const float start = is_max ? -__builtin_inff() : 0.0f;
    for (ptrdiff_t oy = oy0; oy < oy1; oy++) {
        const ptrdiff_t y0 = oy * g->sh - g->pt;
        const ptrdiff_t ys = y0 > 0 ? y0 : 0, ye = y0 + g->kh < g->h ? y0 + g->kh : g->h;
        for (ptrdiff_t ox = 0; ox < g->ow; ox++) {
            const ptrdiff_t x0 = ox * g->sw - g->pl;
            const ptrdiff_t xs = x0 > 0 ? x0 : 0, xe = x0 + g->kw < gw ? x0 + g->kw : gw;
            float *yp = y + (oy * g->ow + ox) * c;
            if (ys >= ye || xs >= xe) {
                for (ptrdiff_t ch = 0; ch < c; ch++) yp[ch] = start;
                continue;
            }
            const float inv = 1.0f / (float)((ye - ys) * (xe - xs));
            const float *corner = x + (ys * gw + xs) * c;
            if (c >= 8) {
                // Eight channels per vector, the last block overlapping the one before.
                for (ptrdiff_t c0 = 0; c0 < c; c0 += 8) {
                    if (c0 + 8 > c) c0 = c - 8;
                    ff_f8 a = start;
                    const float *r = corner + c0;
                    for (ptrdiff_t iy = ys; iy < ye; iy++, r += gw * c) {
                        const float *q = r;
                        if (is_max) {
                            for (ptrdiff_t ix = xs; ix < xe; ix++, q += c) {
                                const ff_f8 v = FF_LOAD(ff_f8, q);
                                a = v > a ? v : a;
                            }
                        } else {
                            for (ptrdiff_t ix = xs; ix < xe; ix++, q += c) a += FF_LOAD(ff_f8, q);
                        }
                    }
                    FF_STORE(yp + c0, is_max ? a : a * inv);
                }
                continue;
            }
            for (ptrdiff_t ch = 0; ch < c; ch++) {
                float a = start;
                for (ptrdiff_t iy = ys; iy < ye; iy++) {
                    for (ptrdiff_t ix = xs; ix < xe; ix++) {
                        const float v = x[(iy * gw + ix) * c + ch];
                        a = is_max ? (v > a ? v : a) : a + v;
                    }
                }
                yp[ch] = is_max ? a : a * inv;
            }
        }
    }
}

void FF_FN(ff_reduce_rows_f32)(float *t, const float *first, ptrdiff_t rows, ptrdiff_t stride, ptrdiff_t count, int is_max) {
    if (rows < 1) rows = 1;
    ptrdiff_t i = 0;
    if (count >= 16) {
        // Sixteen lanes at a time, the last block overlapping the one before.
        for (; i < count; i += 16) {
            if (i + 16 > count) i = count - 16;
            const float *p = first + i;
            ff_f16 a = FF_LOAD(ff_f16, p);
            for (ptrdiff_t r = 1; r < rows; r++) {
                const ff_f16 b = FF_LOAD(ff_f16, p + r * stride);
                a = is_max ? (b > a ? b : a) : a + b;
            }
            FF_STORE(t + i, a);
        }
        return;
    }
    for (; i < count; i++) {
        float a = first[i];
        for (ptrdiff_t r = 1; r < rows; r++) {
            const float b = first[r * stride + i];
            a = is_max ? (b > a ? b : a) : a + b;
        }
        t[i] = a;
    }
}

void FF_FN(ff_max_pairs_f32)(const float *t, ptrdiff_t count, int three, float *y) {
    ptrdiff_t l = 0;
    for (; l + 8 <= count; l += 8) {
        const ff_f16 a = FF_LOAD(ff_f16, t + 2 * l);
        const ff_f8 even = __builtin_shufflevector(a, a, 0, 2, 4, 6, 8, 10, 12, 14);
        const ff_f8 odd = __builtin_shufflevector(a, a, 1, 3, 5, 7, 9, 11, 13, 15);
        ff_f8 m = odd > even ? odd : even;
        if (three) {
            const ff_f16 b = FF_LOAD(ff_f16, t + 2 * l + 2);
            const ff_f8 e2 = __builtin_shufflevector(b, b, 0, 2, 4, 6, 8, 10, 12, 14);
            m = e2 > m ? e2 : m;
        }
        FF_STORE(y + l, m);
    }
    for (; l < count; l++) {
        float m = t[2 * l + 1] > t[2 * l] ? t[2 * l + 1] : t[2 * l];
        if (three && t[2 * l + 2] > m) m = t[2 * l + 2];
        y[l] = m;
    }
}
