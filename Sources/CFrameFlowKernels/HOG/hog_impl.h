// HOG kernels, compiled once per level (see ../Levels/ff_level.h). Every float step is
// OpenCV's (hog.cpp, and cartToPolar's SIMD path with its fused multiply-adds) in its order;
// nothing else may be fused.
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Largest block (pixels) and block histogram (floats) the kernels take; Swift checks models.
#define FF_HOG_MAX_BLOCK_PX 1024

/// OpenCV's BORDER_REFLECT_101 index.
static inline int ff_hog_reflect101(int p, int len) {
    if (len == 1) return 0;
    do {
        p = p < 0 ? -p : 2 * len - 2 - p;
    } while ((unsigned)p >= (unsigned)len);
    return p;
}

/// One source row interpolated horizontally: a[c0]·w0 + a[c1]·w1 (at most 255·256, exact).
static inline void FF_FN(ff_hog_resize_row)(const uint8_t *a, int n, const int32_t *xofs, const int32_t *xw, uint16_t *out) {
    for (int x = 0; x < n; x++) out[x] = (uint16_t)(a[xofs[2 * x]] * xw[2 * x] + a[xofs[2 * x + 1]] * xw[2 * x + 1]);
}

/// Bilinear resize in fixed point (weights in 1/256). Each source row is interpolated
/// horizontally once and kept while consecutive destination rows need it; the vertical step
/// fits 32 bits (65280·256 + 32768), so it vectorizes, and the sums are the exact integers.
void FF_FN(ff_hog_resize)(const uint8_t *src, ptrdiff_t src_stride, int cn, uint8_t *dst, int dw, int dh, const int32_t *xofs,
                          const int32_t *xw, const int32_t *yofs, const int32_t *yw) {
    const int n = dw * cn;
    uint16_t *slot[2] = {malloc(sizeof(uint16_t) * (size_t)n), malloc(sizeof(uint16_t) * (size_t)n)};
    int tag[2] = {-1, -1};
    if (!slot[0] || !slot[1]) {  // out of memory: the plain loop, no buffers
        for (int y = 0; y < dh; y++) {
            const uint8_t *a = src + (ptrdiff_t)yofs[2 * y] * src_stride, *b = src + (ptrdiff_t)yofs[2 * y + 1] * src_stride;
            for (int x = 0; x < n; x++) {
                const int32_t c0 = xofs[2 * x], c1 = xofs[2 * x + 1];
                const int32_t top = a[c0] * xw[2 * x] + a[c1] * xw[2 * x + 1], bot = b[c0] * xw[2 * x] + b[c1] * xw[2 * x + 1];
                const int32_t v = (top * yw[2 * y] + bot * yw[2 * y + 1] + 32768) >> 16;
                dst[(ptrdiff_t)y * n + x] = (uint8_t)(v > 255 ? 255 : v);
            }
        }
        free(slot[0]);
        free(slot[1]);
        return;
    }
    for (int y = 0; y < dh; y++) {
        const int ra = yofs[2 * y], rb = yofs[2 * y + 1];
        const uint16_t *row[2];
        const int want[2] = {ra, rb};
        for (int k = 0; k < 2; k++) {
            const int r = want[k], other = want[1 - k];
            if (tag[0] == r) {
                row[k] = slot[0];
            } else if (tag[1] == r) {
                row[k] = slot[1];
            } else {  // refill a slot the other row does not occupy
                const int s = tag[0] == other ? 1 : 0;
                FF_FN(ff_hog_resize_row)(src + (ptrdiff_t)r * src_stride, n, xofs, xw, slot[s]);
                tag[s] = r;
                row[k] = slot[s];
            }
        }
        const uint16_t *pa = row[0], *pb = row[1];
        const int32_t y0 = yw[2 * y], y1 = yw[2 * y + 1];
        uint8_t *d = dst + (ptrdiff_t)y * n;
        for (int x = 0; x < n; x++) {
            const int32_t v = ((int32_t)pa[x] * y0 + (int32_t)pb[x] * y1 + 32768) >> 16;
            d[x] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
    free(slot[0]);
    free(slot[1]);
}

/// OpenCV's cartToPolar angle in degrees as its SIMD path computes it (fused polynomial).
static inline float ff_hog_atan_deg(float y, float x) {
    const float p1 = 0.9997878412794807f * (float)(180 / M_PI), p3 = -0.3258083974640975f * (float)(180 / M_PI);
    const float p5 = 0.1555786518463281f * (float)(180 / M_PI), p7 = -0.04432655554792128f * (float)(180 / M_PI);
    const float ax = fabsf(x), ay = fabsf(y);
    const float mn = ax < ay ? ax : ay, mx = ax > ay ? ax : ay;
    const float c = mn / (mx + (float)2.220446049250313080847e-16);
    const float cc = c * c;
    float a = fmaf(fmaf(fmaf(cc, p7, p5), cc, p3), cc, p1) * c;
    a = ax >= ay ? a : 90.f - a;
    a = x < 0 ? 180.f - a : a;
    a = y < 0 ? 360.f - a : a;
    return a;
}

/// The same by OpenCV's scalar path (rows shorter than its two vectors).
static inline float ff_hog_atan_deg_scalar(float y, float x) {
    const float p1 = 0.9997878412794807f * (float)(180 / M_PI), p3 = -0.3258083974640975f * (float)(180 / M_PI);
    const float p5 = 0.1555786518463281f * (float)(180 / M_PI), p7 = -0.04432655554792128f * (float)(180 / M_PI);
    const float ax = fabsf(x), ay = fabsf(y);
    float a, c, c2;
    if (ax >= ay) {
        c = ay / (ax + (float)2.220446049250313080847e-16);
        c2 = c * c;
        a = (((p7 * c2 + p5) * c2 + p3) * c2 + p1) * c;
    } else {
        c = ax / (ay + (float)2.220446049250313080847e-16);
        c2 = c * c;
        a = 90.f - (((p7 * c2 + p5) * c2 + p3) * c2 + p1) * c;
    }
    if (x < 0) a = 180.f - a;
    if (y < 0) a = 360.f - a;
    return a;
}

void FF_FN(ff_hog_gradient)(const uint8_t *img, ptrdiff_t stride, int width, int height, int cn, int pad_x, int pad_y,
                            const ff_hog_geometry *g, float *grad, uint8_t *qangle, float *scratch, int32_t *map_scratch) {
    const int gw = width + 2 * pad_x, gh = height + 2 * pad_y, nbins = g->nbins;
    float lut[256];
    for (int i = 0; i < 256; i++) lut[i] = g->gamma ? sqrtf((float)i) : (float)i;
    int32_t *xmap = map_scratch + 1, *ymap = map_scratch + gw + 3;
    for (int x = -1; x < gw + 1; x++) xmap[x] = ff_hog_reflect101(x - pad_x, width) * cn;
    for (int y = -1; y < gh + 1; y++) ymap[y] = ff_hog_reflect101(y - pad_y, height);
    float *dx = scratch, *dy = scratch + gw, *mag = scratch + 2 * gw, *ang = scratch + 3 * gw;
    const float angle_scale = g->signed_gradient ? (float)(nbins / (2.0 * M_PI)) : (float)(nbins / M_PI);
    const float to_rad = (float)(M_PI / 180);
    const int simd = gw >= 16;  // cartToPolar's vector path covers every element of rows this long
    const int quad_end = gw & ~3;  // OpenCV's SSE colour loop; its scalar tail breaks ties the other way
    // Source rows as gamma-mapped float planes over x = -1 … gw (reflected), each made once and
    // kept in one of four slots while the rows around it need it; the loops below then read
    // them in order (no per-pixel index maps, so they vectorize).
    const int pw = gw + 2, plane = pw * cn;
    float *slots = malloc(sizeof(float) * (size_t)plane * 4);
    int tags[4] = {-1, -1, -1, -1};
    if (!slots) return;  // out of memory: the caller's arrays stay zero (no hits), never a crash
    for (int y = 0; y < gh; y++) {
        const int want[3] = {ymap[y - 1], ymap[y], ymap[y + 1]};
        const float *rows[3];
        for (int k = 0; k < 3; k++) {
            int s = -1;
            for (int t = 0; t < 4; t++)
                if (tags[t] == want[k]) s = t;
            if (s < 0) {
                for (int t = 0; t < 4 && s < 0; t++)
                    if (tags[t] != want[0] && tags[t] != want[1] && tags[t] != want[2]) s = t;
                float *out = slots + (ptrdiff_t)s * plane;
                const uint8_t *src = img + (ptrdiff_t)want[k] * stride;
                for (int x = -1; x <= gw; x++)
                    for (int c = 0; c < cn; c++) out[c * pw + x + 1] = lut[src[xmap[x] + c]];
                tags[s] = want[k];
            }
            rows[k] = slots + (ptrdiff_t)s * plane;
        }
        const float *prev = rows[0], *row = rows[1], *next = rows[2];
        if (cn == 1) {
            for (int x = 0; x < gw; x++) {
                dx[x] = row[x + 2] - row[x];
                dy[x] = next[x + 1] - prev[x + 1];
            }
        } else {
            // OpenCV's SSE loop (x < quad_end) prefers channel 0, then 1, on equal magnitudes;
            // its scalar tail keeps channel 2 unless another is strictly larger.
            const float *r0 = row, *r1 = row + pw, *r2 = row + 2 * pw;
            const float *p0 = prev + 1, *p1 = prev + pw + 1, *p2 = prev + 2 * pw + 1;
            const float *n0 = next + 1, *n1 = next + pw + 1, *n2 = next + 2 * pw + 1;
#define FF_HOG_PICK(QUAD)                                                                       \
    {                                                                                           \
        const float dx0 = r0[x + 2] - r0[x], dy0 = n0[x] - p0[x];                               \
        const float dx1 = r1[x + 2] - r1[x], dy1 = n1[x] - p1[x];                               \
        const float dx2 = r2[x + 2] - r2[x], dy2 = n2[x] - p2[x];                               \
        const float m0 = dx0 * dx0 + dy0 * dy0, m1 = dx1 * dx1 + dy1 * dy1, m2 = dx2 * dx2 + dy2 * dy2; \
        const int v21 = QUAD ? m2 > m1 : !(m2 < m1); /* channel 2 over 1 */                     \
        const float bx = v21 ? dx2 : dx1, by = v21 ? dy2 : dy1, bm = v21 ? m2 : m1;             \
        const float qm = m2 > m1 ? m2 : m1;                                                     \
        const int v0 = QUAD ? !(qm > m0) : bm < m0; /* channel 0 over the better of 1, 2 */     \
        dx[x] = v0 ? dx0 : bx;                                                                  \
        dy[x] = v0 ? dy0 : by;                                                                  \
    }
            int x = 0;
            for (; x < quad_end; x++) FF_HOG_PICK(1)
            for (; x < gw; x++) FF_HOG_PICK(0)
#undef FF_HOG_PICK
        }
        if (simd) {
            for (int x = 0; x < gw; x++) mag[x] = sqrtf(fmaf(dx[x], dx[x], dy[x] * dy[x]));
            for (int x = 0; x < gw; x++) ang[x] = ff_hog_atan_deg(dy[x], dx[x]) * to_rad;
        } else {
            for (int x = 0; x < gw; x++) {
                mag[x] = sqrtf(dx[x] * dx[x] + dy[x] * dy[x]);
                ang[x] = ff_hog_atan_deg_scalar(dy[x], dx[x]) * to_rad;
            }
        }
        float *gp = grad + (ptrdiff_t)y * gw * 2;
        uint8_t *qp = qangle + (ptrdiff_t)y * gw * 2;
        for (int x = 0; x < gw; x++) {
            const float m = mag[x], a = ang[x] * angle_scale - 0.5f;
            const float fh = floorf(a);
            int h = (int)fh;
            const float f = a - fh;
            gp[2 * x] = m * (1.f - f);
            gp[2 * x + 1] = m * f;
            h = h < 0 ? h + nbins : h >= nbins ? h - nbins : h;
            const int h1 = h + 1;
            qp[2 * x] = (uint8_t)h;
            qp[2 * x + 1] = (uint8_t)(h1 < nbins ? h1 : 0);
        }
    }
    free(slots);
}

/// One block pixel's share: its offset in the block (grid pixels), up to four cell histograms
/// and their weights, and the Gaussian weight.
typedef struct {
    int32_t ofs;
    int32_t hist[4];
    float hw[4];
    float gw;
    float w[4];  // gw × hw[k], as OpenCV multiplies them
} ff_hog_pix;

/// OpenCV's per-pixel table, in its order: pixels touching one cell, then two, then four.
static int ff_hog_pixtable(const ff_hog_geometry *g, int grid_w, ff_hog_pix *out, int *c1, int *c2) {
    const int bw = g->block_w, bh = g->block_h, ncx = bw / g->cell_w, ncy = bh / g->cell_h, nbins = g->nbins;
    const float sigma = g->win_sigma, scale = 1.f / (sigma * sigma * 2);
    ff_hog_pix tmp[3][FF_HOG_MAX_BLOCK_PX];
    int n[3] = {0, 0, 0};
    const float hbh = bh * 0.5f, hbw = bw * 0.5f;
    for (int j = 0; j < bw; j++)
        for (int i = 0; i < bh; i++) {
            float di = (float)i - hbh, dj = (float)j - hbw;
            di *= di;
            dj *= dj;
            ff_hog_pix p;
            memset(&p, 0, sizeof p);
            p.gw = expf(-(di + dj) * scale);
            p.ofs = i * grid_w + j;
            float cx = (j + 0.5f) / g->cell_w - 0.5f, cy = (i + 0.5f) / g->cell_h - 0.5f;
            int x0 = (int)floorf(cx), y0 = (int)floorf(cy), x1 = x0 + 1, y1 = y0 + 1;
            cx -= (float)x0;
            cy -= (float)y0;
            int kind;
            if ((unsigned)x0 < (unsigned)ncx && (unsigned)x1 < (unsigned)ncx) {
                if ((unsigned)y0 < (unsigned)ncy && (unsigned)y1 < (unsigned)ncy) {
                    kind = 2;
                    p.hist[0] = (x0 * ncy + y0) * nbins, p.hw[0] = (1.f - cx) * (1.f - cy);
                    p.hist[1] = (x1 * ncy + y0) * nbins, p.hw[1] = cx * (1.f - cy);
                    p.hist[2] = (x0 * ncy + y1) * nbins, p.hw[2] = (1.f - cx) * cy;
                    p.hist[3] = (x1 * ncy + y1) * nbins, p.hw[3] = cx * cy;
                } else {
                    kind = 1;
                    if ((unsigned)y0 < (unsigned)ncy) y1 = y0, cy = 1.f - cy;
                    p.hist[0] = (x0 * ncy + y1) * nbins, p.hw[0] = (1.f - cx) * cy;
                    p.hist[1] = (x1 * ncy + y1) * nbins, p.hw[1] = cx * cy;
                }
            } else {
                if ((unsigned)x0 < (unsigned)ncx) x1 = x0, cx = 1.f - cx;
                if ((unsigned)y0 < (unsigned)ncy && (unsigned)y1 < (unsigned)ncy) {
                    kind = 1;
                    p.hist[0] = (x1 * ncy + y0) * nbins, p.hw[0] = cx * (1.f - cy);
                    p.hist[1] = (x1 * ncy + y1) * nbins, p.hw[1] = cx * cy;
                } else {
                    kind = 0;
                    if ((unsigned)y0 < (unsigned)ncy) y1 = y0, cy = 1.f - cy;
                    p.hist[0] = (x1 * ncy + y1) * nbins, p.hw[0] = cx * cy;
                }
            }
            for (int c = 0; c < 4; c++) p.w[c] = p.gw * p.hw[c];
            tmp[kind][n[kind]++] = p;
        }
    int k = 0;
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < n[t]; i++) out[k++] = tmp[t][i];
    *c1 = n[0];
    *c2 = n[0] + n[1];
    return k;
}

/// L2-Hys as OpenCV's SSE code sums it: four lanes, then pairs.
static void ff_hog_normalize(float *h, int sz, float thresh) {
    float ps[4] = {h[0] * h[0], h[1] * h[1], h[2] * h[2], h[3] * h[3]};
    int i;
    for (i = 4; i <= sz - 4; i += 4)
        for (int l = 0; l < 4; l++) ps[l] = ps[l] + h[i + l] * h[i + l];
    float sum = (ps[0] + ps[1]) + (ps[2] + ps[3]);
    for (; i < sz; i++) sum += h[i] * h[i];
    float scale = 1.f / (sqrtf(sum) + (float)sz * 0.1f);
    for (int l = 0; l < 4; l++) {
        float p = scale * h[l];
        p = p < thresh ? p : thresh;
        ps[l] = p * p;
        h[l] = p;
    }
    for (i = 4; i <= sz - 4; i += 4)
        for (int l = 0; l < 4; l++) {
            float p = h[i + l] * scale;
            p = p < thresh ? p : thresh;
            ps[l] = ps[l] + p * p;
            h[i + l] = p;
        }
    sum = (ps[0] + ps[1]) + (ps[2] + ps[3]);
    for (; i < sz; i++) {
        float p = h[i] * scale;
        h[i] = thresh < p ? thresh : p;
        sum += h[i] * h[i];
    }
    scale = 1.f / (sqrtf(sum) + 1e-3f);
    for (i = 0; i < sz; i++) h[i] *= scale;
}

void FF_FN(ff_hog_blocks)(const float *grad, const uint8_t *qangle, int grid_w, const ff_hog_geometry *g, int cache_x, int cache_y, int nx,
                          int y0, int y1, float *out) {
    ff_hog_pix pix[FF_HOG_MAX_BLOCK_PX];
    int c1, c2;
    const int c4 = ff_hog_pixtable(g, grid_w, pix, &c1, &c2);
    const int hs = (g->block_w / g->cell_w) * (g->block_h / g->cell_h) * g->nbins;
    const float thresh = g->l2hys_threshold;
    for (int by = y0; by < y1; by++)
        for (int bx = 0; bx < nx; bx++) {
            float *hist = out + ((ptrdiff_t)(by - y0) * nx + bx) * hs;
            memset(hist, 0, sizeof(float) * (size_t)hs);
            const ptrdiff_t base = (ptrdiff_t)by * cache_y * grid_w + (ptrdiff_t)bx * cache_x;
            const float *gp = grad + base * 2;
            const uint8_t *qp = qangle + base * 2;
            int k = 0;
            for (; k < c1; k++) {
                const ff_hog_pix *p = pix + k;
                const float *a = gp + 2 * p->ofs;
                const uint8_t *q = qp + 2 * p->ofs;
                float w = p->w[0];
                float *h = hist + p->hist[0];
                float t0 = h[q[0]] + a[0] * w, t1 = h[q[1]] + a[1] * w;
                h[q[0]] = t0;
                h[q[1]] = t1;
            }
            for (; k < c2; k++) {
                const ff_hog_pix *p = pix + k;
                const float *a = gp + 2 * p->ofs;
                const uint8_t *q = qp + 2 * p->ofs;
                for (int c = 0; c < 2; c++) {
                    float w = p->w[c];
                    float *h = hist + p->hist[c];
                    float t0 = h[q[0]] + a[0] * w, t1 = h[q[1]] + a[1] * w;
                    h[q[0]] = t0;
                    h[q[1]] = t1;
                }
            }
            for (; k < c4; k++) {
                const ff_hog_pix *p = pix + k;
                const float *a = gp + 2 * p->ofs;
                const uint8_t *q = qp + 2 * p->ofs;
                for (int c = 0; c < 4; c++) {
                    float w = p->w[c];
                    float *h = hist + p->hist[c];
                    float t0 = h[q[0]] + a[0] * w, t1 = h[q[1]] + a[1] * w;
                    h[q[0]] = t0;
                    h[q[1]] = t1;
                }
            }
            ff_hog_normalize(hist, hs, thresh);
        }
}

int FF_FN(ff_hog_scan)(const float *blocks, int nx, const ff_hog_geometry *g, int cache_x, int cache_y, int win_stride_x, int win_stride_y,
                       int nwx, int wy0, int wy1, const float *svm, double rho, double threshold, int32_t *hit_xy, double *hit_score) {
    const int hs = (g->block_w / g->cell_w) * (g->block_h / g->cell_h) * g->nbins;
    const int nbx = (g->win_w - g->block_w) / g->stride_x + 1, nby = (g->win_h - g->block_h) / g->stride_y + 1;
    const int sx = g->stride_x / cache_x, sy = g->stride_y / cache_y, wsx = win_stride_x / cache_x, wsy = win_stride_y / cache_y;
    const int nb = nbx * nby;
    int n = 0;
    for (int wy = wy0; wy < wy1; wy++) {
        const float *row = blocks + (ptrdiff_t)wy * wsy * nx * hs;
        int wx = 0;
        // Two windows side by side in one 8-lane vector: lanes 0–3 the first window's four
        // partial sums, 4–7 the second's, each in OpenCV's order.
        for (; wx + 1 < nwx; wx += 2) {
            double s0 = rho, s1 = rho;
            const float *w = svm;
            for (int j = 0; j < nb; j++, w += hs) {
                const int bx = j / nby, by = j % nby;
                const float *v0 = row + ((ptrdiff_t)by * sy * nx + (wx * wsx + bx * sx)) * hs, *v1 = v0 + (ptrdiff_t)wsx * hs;
                ff_f8 ps;
                ff_f4 w4 = FF_LOAD(ff_f4, w), a = FF_LOAD(ff_f4, v0), b = FF_LOAD(ff_f4, v1);
                ps = (ff_f8){w4.x, w4.y, w4.z, w4.w, w4.x, w4.y, w4.z, w4.w} * (ff_f8){a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
                int k;
                for (k = 4; k <= hs - 4; k += 4) {
                    w4 = FF_LOAD(ff_f4, w + k), a = FF_LOAD(ff_f4, v0 + k), b = FF_LOAD(ff_f4, v1 + k);
                    ps = ps + (ff_f8){a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w} * (ff_f8){w4.x, w4.y, w4.z, w4.w, w4.x, w4.y, w4.z, w4.w};
                }
                double t0 = ps[0] + ps[1], t1 = ps[2] + ps[3], u0 = ps[4] + ps[5], u1 = ps[6] + ps[7];
                s0 += t0 + t1;
                s1 += u0 + u1;
                for (; k < hs; k++) {
                    s0 += v0[k] * w[k];
                    s1 += v1[k] * w[k];
                }
            }
            if (s0 >= threshold) hit_xy[2 * n] = wx, hit_xy[2 * n + 1] = wy, hit_score[n++] = s0;
            if (s1 >= threshold) hit_xy[2 * n] = wx + 1, hit_xy[2 * n + 1] = wy, hit_score[n++] = s1;
        }
        for (; wx < nwx; wx++) {
            double s = rho;
            const float *w = svm;
            for (int bx = 0; bx < nbx; bx++)
                for (int by = 0; by < nby; by++, w += hs) {
                    const float *v = row + ((ptrdiff_t)by * sy * nx + (wx * wsx + bx * sx)) * hs;
                    float ps[4] = {w[0] * v[0], w[1] * v[1], w[2] * v[2], w[3] * v[3]};
                    int k;
                    for (k = 4; k <= hs - 4; k += 4)
                        for (int l = 0; l < 4; l++) ps[l] = ps[l] + v[k + l] * w[k + l];
                    double t0 = ps[0] + ps[1], t1 = ps[2] + ps[3];
                    s += t0 + t1;
                    for (; k < hs; k++) s += v[k] * w[k];
                }
            if (s >= threshold) hit_xy[2 * n] = wx, hit_xy[2 * n + 1] = wy, hit_score[n++] = s;
        }
    }
    return n;
}
