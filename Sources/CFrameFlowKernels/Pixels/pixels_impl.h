// The image calculators' per-pixel loops, compiled once per level (see ../Levels/ff_level.h).
// Every kernel gives the same bytes at every level as the Swift formulas it replaced: products
// and sums are not contracted into FMAs (Swift rounds each), and the LUT's fused steps are
// explicit fma calls, as Swift's `addProduct` is.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)
#include <immintrin.h>
#endif
// Wide vectors between always-inlined helpers never cross a real call: no ABI to mind.
#pragma clang diagnostic ignored "-Wpsabi"

#define FF_PX_INLINE static inline __attribute__((always_inline))

typedef uint8_t ff_px_b16 __attribute__((ext_vector_type(16)));
typedef uint8_t ff_px_b32 __attribute__((ext_vector_type(32)));
typedef uint8_t ff_px_b4 __attribute__((ext_vector_type(4)));
typedef int16_t ff_px_s16 __attribute__((ext_vector_type(16)));
typedef int16_t ff_px_s32 __attribute__((ext_vector_type(32)));
typedef uint16_t ff_px_w16 __attribute__((ext_vector_type(16)));
typedef int32_t ff_px_i32 __attribute__((ext_vector_type(32)));
typedef uint32_t ff_px_u16 __attribute__((ext_vector_type(16)));
typedef uint32_t ff_px_u4 __attribute__((ext_vector_type(4)));

// MARK: shared helpers

/// ⌊x⌋ for 0 ≤ x < 2³¹: a truncating conversion (the baseline has no `roundps`).
FF_PX_INLINE ff_f16 ff_px_floor_nonneg(ff_f16 x) {
#if FF_LEVEL == FF_LEVEL_BASELINE
    return __builtin_convertvector(__builtin_convertvector(x, ff_i16), ff_f16);
#else
    return __builtin_elementwise_floor(x);
#endif
}

/// Swift's `Kernels.clamp255(Float)`: `min(max(v, 0), 255)` (Swift's argument order), rounded
/// to nearest by adding 1.5·2²³ and reading the low byte of the bits.
FF_PX_INLINE ff_px_u16 ff_px_clamp255(ff_f16 v) {
    v = 0 >= v ? 0 : v;
    v = 255 < v ? 255 : v;
    return (ff_px_u16)(v + 12582912.0f) & 0xFF;
}

// MARK: luminance

/// round(0.2125 r + 0.7154 g + 0.0721 b), halves up: ⌊s / 10000⌋ for s = 2125 r + 7154 g +
/// 721 b + 5000, as ⌊⌊s / 16⌋ / 625⌋ from an estimate low by at most one.
FF_PX_INLINE ff_px_u16 ff_px_luma(ff_px_u16 r, ff_px_u16 g, ff_px_u16 b) {
    ff_px_u16 x = (2125 * r + 7154 * g + 721 * b + 5000) >> 4;
    ff_px_u16 y = (x * 6710) >> 22;
    return y - (ff_px_u16)(x - y * 625 >= 625);
}

FF_PX_INLINE ff_px_u16 ff_px_luma_words(ff_px_u16 p, int bgr) {
    ff_px_u16 l = bgr ? ff_px_luma((p >> 16) & 0xFF, (p >> 8) & 0xFF, p & 0xFF)
                      : ff_px_luma(p & 0xFF, (p >> 8) & 0xFF, (p >> 16) & 0xFF);
    return (p & 0xFF000000u) | l | (l << 8) | (l << 16);
}

FF_PX_INLINE void ff_px_luminance(const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bgr) {
    ptrdiff_t x = 0;
    for (; x + 16 <= width; x += 16) FF_STORE(dst + 4 * x, ff_px_luma_words(FF_LOAD(ff_px_u16, src + 4 * x), bgr));
    if (x < width) {
        uint32_t t[16] = {0};
        __builtin_memcpy(t, src + 4 * x, 4 * (size_t)(width - x));
        FF_STORE(t, ff_px_luma_words(FF_LOAD(ff_px_u16, t), bgr));
        __builtin_memcpy(dst + 4 * x, t, 4 * (size_t)(width - x));
    }
}

void FF_FN(ff_luminance_rgbx)(const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bgr) {
    if (bgr) ff_px_luminance(src, dst, width, 1);
    else ff_px_luminance(src, dst, width, 0);
}

// MARK: Sobel

/// min(255, round(√s)) for 0 ≤ s, exactly: s clamped to 255.5², a bit-trick guess, two Newton
/// steps, rounded by the 1.5·2²³ addition.
FF_PX_INLINE ff_px_u16 ff_px_rounded_magnitude(ff_i16 ss) {
    ff_i16 m = 65280 < ss ? 65280 : ss;
    ff_f16 s = __builtin_convertvector(m, ff_f16);
    ff_f16 y = (ff_f16)(((ff_px_u16)s >> 1) + 0x1FBD1DF5u);
    y = 0.5f * (y + s / y);
    y = 0.5f * (y + s / y);
    return (ff_px_u16)(y + 12582912.0f) & 0xFF;
}

void FF_FN(ff_sobel_row)(const uint8_t *up, const uint8_t *mid, const uint8_t *down, uint8_t *dst, ptrdiff_t w, int bpp,
                         int channel, int32_t *scratch) {
    int32_t *sum = scratch, *diff = scratch + (w + 2);  // a + 2b + c and c − a per column, padded
    ptrdiff_t x = 0;
    if (bpp == 4) {
        uint32_t shift = 8 * (uint32_t)channel;
        for (; x + 16 <= w; x += 16) {
            ff_i16 a = (ff_i16)((FF_LOAD(ff_px_u16, up + 4 * x) >> shift) & 0xFF);
            ff_i16 b = (ff_i16)((FF_LOAD(ff_px_u16, mid + 4 * x) >> shift) & 0xFF);
            ff_i16 c = (ff_i16)((FF_LOAD(ff_px_u16, down + 4 * x) >> shift) & 0xFF);
            FF_STORE(sum + 1 + x, a + 2 * b + c);
            FF_STORE(diff + 1 + x, c - a);
        }
    }
    for (; x < w; x++) {
        int32_t a = up[bpp * x + channel], b = mid[bpp * x + channel], c = down[bpp * x + channel];
        sum[1 + x] = a + 2 * b + c;
        diff[1 + x] = c - a;
    }
    sum[0] = sum[1];
    sum[w + 1] = sum[w];
    diff[0] = diff[1];
    diff[w + 1] = diff[w];
    for (x = 0; x < w; x += 16) {
        ff_i16 gh, gv;
        if (x + 16 <= w) {
            gh = FF_LOAD(ff_i16, sum + x + 2) - FF_LOAD(ff_i16, sum + x);
            gv = FF_LOAD(ff_i16, diff + x) + 2 * FF_LOAD(ff_i16, diff + x + 1) + FF_LOAD(ff_i16, diff + x + 2);
        } else {
            int32_t h[16] = {0}, v[16] = {0};
            for (ptrdiff_t j = 0; j < w - x; j++) {
                h[j] = sum[x + j + 2] - sum[x + j];
                v[j] = diff[x + j] + 2 * diff[x + j + 1] + diff[x + j + 2];
            }
            gh = FF_LOAD(ff_i16, h);
            gv = FF_LOAD(ff_i16, v);
        }
        ff_px_u16 l = ff_px_rounded_magnitude(gh * gh + gv * gv);
        ptrdiff_t n = w - x < 16 ? w - x : 16;
        if (bpp == 4) {
            ff_px_u16 word = 0xFF000000u | l | (l << 8) | (l << 16);
            if (n == 16) FF_STORE(dst + 4 * x, word);
            else {
                uint32_t t[16];
                FF_STORE(t, word);
                __builtin_memcpy(dst + 4 * x, t, 4 * (size_t)n);
            }
        } else {
            uint32_t t[16];
            FF_STORE(t, l);
            for (ptrdiff_t j = 0; j < n; j++)
                for (int c = 0; c < bpp; c++) dst[bpp * (x + j) + c] = (uint8_t)t[j];
        }
    }
}

// MARK: unsharp mask

/// 32 bytes of the fixed-point combine: diff·2⁷ times amount in 1/1024ths, high half
/// (`pmulhw`), halved rounding up, added to the source, clamped; the source where
/// |diff| ≤ threshold; alpha lanes (every fourth byte) the source's when `alpha`.
FF_PX_INLINE ff_px_b32 ff_px_sharpen32(ff_px_b32 sb, ff_px_b32 bb, int16_t a, int16_t t, int alpha) {
    ff_px_s32 sv = __builtin_convertvector(sb, ff_px_s32), diff = sv - __builtin_convertvector(bb, ff_px_s32);
    ff_px_s32 twice = __builtin_convertvector((__builtin_convertvector(diff * 128, ff_px_i32) * a) >> 16, ff_px_s32);
    ff_px_s32 r = sv + ((twice + 1) >> 1);
    r = 0 >= r ? 0 : r;
    r = 255 < r ? 255 : r;
    ff_px_s32 o = ((diff > t) | (diff < -t)) ? r : sv;
    if (alpha) {
        const ff_px_s32 lanes = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        o = lanes != 0 ? sv : o;
    }
    return __builtin_convertvector(o, ff_px_b32);
}

/// 16 bytes of the float combine (amounts of 31 and more): s + amount·diff, clamped, rounded.
FF_PX_INLINE ff_px_b16 ff_px_sharpen16f(ff_px_b16 sb, ff_px_b16 bb, float amount, int32_t t, int alpha) {
    ff_i16 sv = __builtin_convertvector(sb, ff_i16), diff = sv - __builtin_convertvector(bb, ff_i16);
    ff_i16 r = (ff_i16)ff_px_clamp255(__builtin_convertvector(sv, ff_f16) + amount * __builtin_convertvector(diff, ff_f16));
    ff_i16 o = ((diff > t) | (diff < -t)) ? r : sv;
    if (alpha) {
        const ff_i16 lanes = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        o = lanes != 0 ? sv : o;
    }
    return __builtin_convertvector(o, ff_px_b16);
}

void FF_FN(ff_sharpen_combine_row)(const uint8_t *s, const uint8_t *b, uint8_t *d, ptrdiff_t n, int alpha, float amount,
                                   int16_t amount_q10, int32_t threshold) {
    ptrdiff_t i = 0;
    if (amount < 31) {
        int16_t t = (int16_t)(threshold > 32767 ? 32767 : threshold);
        for (; i + 32 <= n; i += 32)
            FF_STORE(d + i, ff_px_sharpen32(FF_LOAD(ff_px_b32, s + i), FF_LOAD(ff_px_b32, b + i), amount_q10, t, alpha));
        if (i < n) {
            uint8_t ts[32] = {0}, tb[32] = {0};
            __builtin_memcpy(ts, s + i, (size_t)(n - i));
            __builtin_memcpy(tb, b + i, (size_t)(n - i));
            FF_STORE(ts, ff_px_sharpen32(FF_LOAD(ff_px_b32, ts), FF_LOAD(ff_px_b32, tb), amount_q10, t, alpha));
            __builtin_memcpy(d + i, ts, (size_t)(n - i));
        }
    } else {
        for (; i + 16 <= n; i += 16)
            FF_STORE(d + i, ff_px_sharpen16f(FF_LOAD(ff_px_b16, s + i), FF_LOAD(ff_px_b16, b + i), amount, threshold, alpha));
        if (i < n) {
            uint8_t ts[16] = {0}, tb[16] = {0};
            __builtin_memcpy(ts, s + i, (size_t)(n - i));
            __builtin_memcpy(tb, b + i, (size_t)(n - i));
            FF_STORE(ts, ff_px_sharpen16f(FF_LOAD(ff_px_b16, ts), FF_LOAD(ff_px_b16, tb), amount, threshold, alpha));
            __builtin_memcpy(d + i, ts, (size_t)(n - i));
        }
    }
}

// MARK: Gaussian blur (8-bit fixed point)

void FF_FN(ff_blur_horizontal_row)(const uint8_t *pad, uint16_t *dst, ptrdiff_t row_len, const uint16_t *weights, int n, int bpp) {
    ptrdiff_t span = (row_len + 15) & ~(ptrdiff_t)15, i = 0;
    for (; i + 32 <= span; i += 32) {
        ff_px_w16 a0 = 0, a1 = 0;
        for (int t = 0; t < n; t++) {
            const uint8_t *p = pad + i + t * bpp;
            a0 += weights[t] * __builtin_convertvector(FF_LOAD(ff_px_b16, p), ff_px_w16);
            a1 += weights[t] * __builtin_convertvector(FF_LOAD(ff_px_b16, p + 16), ff_px_w16);
        }
        FF_STORE(dst + i, a0);
        FF_STORE(dst + i + 16, a1);
    }
    for (; i < span; i += 16) {
        ff_px_w16 a = 0;
        for (int t = 0; t < n; t++) a += weights[t] * __builtin_convertvector(FF_LOAD(ff_px_b16, pad + i + t * bpp), ff_px_w16);
        FF_STORE(dst + i, a);
    }
}

FF_PX_INLINE void ff_px_store_bytes(uint8_t *d, ff_px_b16 v, ptrdiff_t count) {
    if (count >= 16) FF_STORE(d, v);
    else {
        uint8_t t[16];
        FF_STORE(t, v);
        __builtin_memcpy(d, t, (size_t)count);
    }
}

void FF_FN(ff_blur_vertical_row)(const uint16_t *const *rows, const uint16_t *weights, int n, int total_bits, uint8_t *dst,
                                 ptrdiff_t row_len) {
    uint32_t half = total_bits > 0 ? 1u << (total_bits - 1) : 0;
    if (255u * (1u << total_bits) <= 65535u) {
        for (ptrdiff_t i = 0; i < row_len; i += 16) {
            ff_px_w16 acc = (uint16_t)half;
            for (int t = 0; t < n; t++) acc += weights[t] * FF_LOAD(ff_px_w16, rows[t] + i);
            ff_px_store_bytes(dst + i, __builtin_convertvector(acc >> (uint16_t)total_bits, ff_px_b16), row_len - i);
        }
    } else {
        for (ptrdiff_t i = 0; i < row_len; i += 16) {
            ff_px_u16 acc = half;
            for (int t = 0; t < n; t++)
                acc += (uint32_t)weights[t] * __builtin_convertvector(FF_LOAD(ff_px_w16, rows[t] + i), ff_px_u16);
            ff_px_store_bytes(dst + i, __builtin_convertvector(acc >> (uint32_t)total_bits, ff_px_b16), row_len - i);
        }
    }
}

// MARK: colour adjustment

/// The tone curve: round(clamp(v · scale + offset)), halves up.
FF_PX_INLINE ff_f16 ff_px_tone(ff_f16 v, float a, float b) {
    ff_f16 c = v * a + b;
    c = 0 >= c ? 0 : c;
    c = 255 < c ? 255 : c;
    return ff_px_floor_nonneg(c + 0.5f);
}

/// Sixteen pixels as words (bytes 0–2 colour, 3 kept).
FF_PX_INLINE ff_px_u16 ff_px_adjust16(ff_px_u16 p, const float *k) {
    ff_f16 c0 = ff_px_tone(__builtin_convertvector(p & 0xFF, ff_f16), k[0], k[1]);
    ff_f16 c1 = ff_px_tone(__builtin_convertvector((p >> 8) & 0xFF, ff_f16), k[0], k[1]);
    ff_f16 c2 = ff_px_tone(__builtin_convertvector((p >> 16) & 0xFF, ff_f16), k[0], k[1]);
    ff_f16 lum = k[3] * c0 + k[4] * c1 + k[5] * c2;
    float sat = k[2];
    ff_px_u16 o0 = ff_px_clamp255(lum + sat * (c0 - lum)), o1 = ff_px_clamp255(lum + sat * (c1 - lum));
    ff_px_u16 o2 = ff_px_clamp255(lum + sat * (c2 - lum));
    return o0 | (o1 << 8) | (o2 << 16) | (p & 0xFF000000u);
}

void FF_FN(ff_color_adjust_row)(const uint8_t *s, uint8_t *d, ptrdiff_t w, int bpp, const float *k) {
    ptrdiff_t x = 0;
    if (bpp == 4) {
        for (; x + 16 <= w; x += 16) FF_STORE(d + 4 * x, ff_px_adjust16(FF_LOAD(ff_px_u16, s + 4 * x), k));
    }
    while (x < w) {
        // Up to sixteen pixels widened to words, adjusted, narrowed back.
        ptrdiff_t m = w - x < 16 ? w - x : 16;
        uint32_t t[16] = {0};
        for (ptrdiff_t j = 0; j < m; j++) {
            const uint8_t *p = s + bpp * (x + j);
            t[j] = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (bpp == 4 ? (uint32_t)p[3] << 24 : 0);
        }
        FF_STORE(t, ff_px_adjust16(FF_LOAD(ff_px_u16, t), k));
        for (ptrdiff_t j = 0; j < m; j++) {
            uint8_t *q = d + bpp * (x + j);
            q[0] = (uint8_t)t[j];
            q[1] = (uint8_t)(t[j] >> 8);
            q[2] = (uint8_t)(t[j] >> 16);
            if (bpp == 4) q[3] = (uint8_t)(t[j] >> 24);
        }
        x += m;
    }
}

// MARK: 3-D LUT, tetrahedral

typedef double ff_px_d4 __attribute__((ext_vector_type(4)));
typedef int64_t ff_px_l4 __attribute__((ext_vector_type(4)));

/// a · b + c rounded once, as `fmaf`. Levels with FMA use the instruction; the baseline has
/// none (libm's `fmaf` there is a call per lane), so it rounds the exact double sum to odd and
/// then to float, which is exact (Boldo and Melquiond): a · b is exact in double, TwoSum gives
/// the sum's rounding error, and an inexact sum whose last bit is even moves one ulp toward
/// zero or stays, then gets its last bit set.
FF_PX_INLINE ff_f4 ff_px_fma4(ff_f4 a, ff_f4 b, ff_f4 c) {
#if FF_LEVEL == FF_LEVEL_BASELINE
    ff_px_d4 p = __builtin_convertvector(a, ff_px_d4) * __builtin_convertvector(b, ff_px_d4);
    ff_px_d4 q = __builtin_convertvector(c, ff_px_d4);
    ff_px_d4 s = p + q, bv = s - p;
    ff_px_d4 err = (p - (s - bv)) + (q - bv);
    ff_px_l4 inexact = err != 0, toward_zero = (err < 0) ^ (s < 0);
    ff_px_l4 bits = (ff_px_l4)s;
    bits = (bits + (inexact & toward_zero)) | (inexact & 1);
    return __builtin_convertvector((ff_px_d4)bits, ff_f4);
#else
    return __builtin_elementwise_fma(a, b, c);
#endif
}

/// The vertex table at a byte offset.
FF_PX_INLINE ff_f4 ff_px_entry(const ff_lut_tetrahedral *L, uint32_t offset) {
    return FF_LOAD(ff_f4, (const char *)L->table + offset);
}

/// The four weighted vertices: the base at byte offset `a`, the inner ones at `b`, `c`, and
/// the far corner; a product, then fused multiply-adds (`ff_px_fma4`).
FF_PX_INLINE ff_f4 ff_px_corners(const ff_lut_tetrahedral *L, uint32_t a, uint32_t b, uint32_t c, float w0, float w1, float w2,
                                  float w3) {
    ff_f4 v = ff_px_entry(L, a) * w0;
    v = ff_px_fma4(ff_px_entry(L, b), (ff_f4)w1, v);
    v = ff_px_fma4(ff_px_entry(L, c), (ff_f4)w2, v);
    v = ff_px_fma4(ff_px_entry(L, a + 16 * (uint32_t)L->far_offset), (ff_f4)w3, v);
    return v;
}

/// `corners` plus the source bytes × keep, clamped (NaN kept, as Swift's replace) and rounded.
FF_PX_INLINE ff_px_b4 ff_px_mix(const ff_lut_tetrahedral *L, uint32_t a, uint32_t b, uint32_t c, float w0, float w1, float w2,
                                 float w3, ff_f4 source) {
    ff_f4 v = ff_px_corners(L, a, b, c, w0, w1, w2, w3);
    ff_f4 keep = {L->keep[0], L->keep[1], L->keep[2], L->keep[3]};
    v = ff_px_fma4(source, keep, v);
    v = v < 0 ? 0 : v;
    v = v > 255 ? 255 : v;
    return __builtin_convertvector((ff_px_u4)(v + 12582912.0f), ff_px_b4);
}

/// One pixel from the per-code tables (the tails).
FF_PX_INLINE ff_px_b4 ff_px_graded(const ff_lut_tetrahedral *L, const uint8_t *p, ff_f4 source) {
    int r = p[L->cr], g = 256 + p[L->cg], b = 512 + p[L->cb];
    int32_t i = L->base[r] + L->base[g] + L->base[b];
    float fr = L->frac[r], fg = L->frac[g], fb = L->frac[b];
    uint32_t br, bg, bb;
    __builtin_memcpy(&br, &fr, 4);
    __builtin_memcpy(&bg, &fg, 4);
    __builtin_memcpy(&bb, &fb, 4);
    // Fractions are ≥ 0, so they order as their bit patterns (no float compare branches).
    int key = (int)((bg - br) >> 31) | (int)((bb - bg) >> 31) << 1 | (int)((bb - br) >> 31) << 2;
    float fs[4] = {fr, fg, fb, 0};
    const int32_t *ax = L->order + 4 * key;
    float f1 = fs[ax[0]], f2 = fs[ax[1]], f3 = fs[ax[2]];
    return ff_px_mix(L, (uint32_t)i << 4, (uint32_t)(i + L->step1[key]) << 4, (uint32_t)(i + L->step2[key]) << 4, 1 - f1, f1 - f2,
                     f2 - f3, f3, source);
}

/// The cell and fraction along one axis for sixteen pixel words (the code in byte `byte`):
/// x = code · scale − shift clamped to 0…top (NaN to 0), ⌊x⌋ at most top − 1, and the rest.
FF_PX_INLINE void ff_px_lattice(ff_px_u16 words, int byte, float scale, float shift, float top, ff_px_u16 *cell_out, ff_f16 *frac_out) {
    ff_px_u16 code = (words >> (uint32_t)(8 * byte)) & 255;
    ff_f16 v = (ff_f16)(code | 0x4B000000u) - 8388608.0f;
    ff_f16 x = v * scale - shift;
    x = x >= 0 ? x : 0;
    x = x > top ? top : x;
    ff_f16 cell = ff_px_floor_nonneg(x);
    cell = cell > top - 1 ? top - 1 : cell;
    *cell_out = (ff_px_u16)(cell + 8388608.0f) - 0x4B000000u;
    *frac_out = x - cell;
}

/// Sixteen 4-byte pixels: cells, fractions, tetrahedra and weights as 16-lane vectors, then
/// each pixel's four vertex loads and multiply-adds.
FF_PX_INLINE void ff_px_block16(const ff_lut_tetrahedral *L, const uint8_t *p, uint8_t *q) {
    ff_px_u16 words = FF_LOAD(ff_px_u16, p), ir, ig, ib;
    ff_f16 fr, fg, fb;
    ff_px_lattice(words, L->cr, L->scale[0], L->shift[0], L->top, &ir, &fr);
    ff_px_lattice(words, L->cg, L->scale[1], L->shift[1], L->top, &ig, &fg);
    ff_px_lattice(words, L->cb, L->scale[2], L->shift[2], L->top, &ib, &fb);
    uint32_t n = (uint32_t)L->n;
    ff_px_u16 base = ir + ig * n + ib * (n * n);
#define FF_MX(a, b) ((a) < (b) ? (b) : (a))
#define FF_MN(a, b) ((a) > (b) ? (b) : (a))
    ff_f16 f1 = FF_MX(fr, FF_MX(fg, fb)), f3 = FF_MN(fr, FF_MN(fg, fb)), f2 = FF_MX(FF_MN(fr, fg), FF_MN(FF_MX(fr, fg), fb));
    // The largest fraction's axis (ties to red, then green) is the first step; the smallest's
    // (ties to blue, then green) is left out of the second.
    ff_px_u16 s1 = n * n, min_stride = 1;
    s1 = fg >= fb ? (ff_px_u16)n : s1;
    s1 = fr >= FF_MX(fg, fb) ? (ff_px_u16)1 : s1;
    min_stride = fg <= fr ? (ff_px_u16)n : min_stride;
    min_stride = fb <= FF_MN(fr, fg) ? (ff_px_u16)(n * n) : min_stride;
#undef FF_MX
#undef FF_MN
    uint32_t i0[16], i1[16], i2[16];
    float w0[16], w1[16], w2[16], w3[16];
    FF_STORE(i0, base << 4);
    FF_STORE(i1, (base + s1) << 4);
    FF_STORE(i2, (base + (uint32_t)L->far_offset - min_stride) << 4);
    FF_STORE(w0, 1 - f1);
    FF_STORE(w1, f1 - f2);
    FF_STORE(w2, f2 - f3);
    FF_STORE(w3, f3);
    if (L->fast) {
        // Weights summing to 1 over entries in 0…255: no clamp, no blend; alpha from the source.
        for (int j = 0; j < 16; j++) {
            ff_f4 v = ff_px_corners(L, i0[j], i1[j], i2[j], w0[j], w1[j], w2[j], w3[j]);
            ff_px_b4 bytes = __builtin_convertvector((ff_px_u4)(v + 12582912.0f), ff_px_b4);
            uint32_t word, src;
            __builtin_memcpy(&word, &bytes, 4);
            __builtin_memcpy(&src, p + 4 * j, 4);
            word = (word & L->colour_mask) | (src & ~L->colour_mask);
            __builtin_memcpy(q + 4 * j, &word, 4);
        }
    } else {
        for (int j = 0; j < 16; j++) {
            ff_f4 source = __builtin_convertvector(FF_LOAD(ff_px_b4, p + 4 * j), ff_f4);
            ff_px_b4 o = ff_px_mix(L, i0[j], i1[j], i2[j], w0[j], w1[j], w2[j], w3[j], source);
            FF_STORE(q + 4 * j, o);
        }
    }
}

void FF_FN(ff_lut_tetrahedral_row)(const ff_lut_tetrahedral *L, const uint8_t *s, uint8_t *d, ptrdiff_t w, int bpp) {
    ptrdiff_t x = 0;
    if (bpp == 4) {
        for (; x + 16 <= w; x += 16) ff_px_block16(L, s + 4 * x, d + 4 * x);
        for (; x < w; x++) {
            ff_f4 source = __builtin_convertvector(FF_LOAD(ff_px_b4, s + 4 * x), ff_f4);
            FF_STORE(d + 4 * x, ff_px_graded(L, s + 4 * x, source));
        }
        return;
    }
    // Three bytes a pixel: sixteen at a time widened to words, graded, narrowed back.
    uint8_t wide[64], graded[64];
    for (; x + 16 <= w; x += 16) {
        const uint8_t *p = s + 3 * x;
        for (int j = 0; j < 16; j++) {
            wide[4 * j] = p[3 * j];
            wide[4 * j + 1] = p[3 * j + 1];
            wide[4 * j + 2] = p[3 * j + 2];
            wide[4 * j + 3] = 0;
        }
        ff_px_block16(L, wide, graded);
        uint8_t *q = d + 3 * x;
        for (int j = 0; j < 16; j++) {
            q[3 * j] = graded[4 * j];
            q[3 * j + 1] = graded[4 * j + 1];
            q[3 * j + 2] = graded[4 * j + 2];
        }
    }
    for (; x < w; x++) {
        const uint8_t *p = s + 3 * x;
        ff_f4 source = {p[0], p[1], p[2], 0};
        ff_px_b4 o = ff_px_graded(L, p, source);
        d[3 * x] = o.x;
        d[3 * x + 1] = o.y;
        d[3 * x + 2] = o.z;
    }
}

// MARK: YUV 4:2:0 → RGBA

/// Q4 to a level: ((x + 8) >> 4) clamped to 0…255, in 16-bit lanes.
FF_PX_INLINE ff_px_s32 ff_px_q4_level(ff_px_s32 x) {
    x = (x + 8) >> 4;
    x = 0 >= x ? 0 : x;
    return 255 < x ? 255 : x;
}

/// Thirty-two pixels of one luma row with their sixteen chroma terms (each serving two).
FF_PX_INLINE void ff_px_yuv32(const uint8_t *yp, ff_px_s16 rc, ff_px_s16 gc, ff_px_s16 bc, const int16_t *k, int bgr, uint8_t *out) {
#define FF_PX_PAIRS(v) __builtin_shufflevector(v, v, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15)
    ff_px_s32 yv = (__builtin_convertvector(FF_LOAD(ff_px_b32, yp), ff_px_s32) - k[0]) * 64;
    ff_px_s32 y = __builtin_convertvector((__builtin_convertvector(yv, ff_px_i32) * k[1]) >> 16, ff_px_s32);
    ff_px_s32 r = ff_px_q4_level(y + FF_PX_PAIRS(rc)), g = ff_px_q4_level(y + FF_PX_PAIRS(gc)), b = ff_px_q4_level(y + FF_PX_PAIRS(bc));
#undef FF_PX_PAIRS
    typedef uint32_t u32x32 __attribute__((ext_vector_type(32)));
    u32x32 r32 = __builtin_convertvector(bgr ? b : r, u32x32), g32 = __builtin_convertvector(g, u32x32);
    u32x32 b32 = __builtin_convertvector(bgr ? r : b, u32x32);
    FF_STORE(out, r32 | (g32 << 8) | (b32 << 16) | 0xFF000000u);
}

FF_PX_INLINE void ff_px_yuv_rows(const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v, ptrdiff_t uv_stride,
                                 uint8_t *d0, uint8_t *d1, ptrdiff_t pairs, const int16_t *k, int bgr) {
    ptrdiff_t i = 0;
    for (; i + 16 <= pairs; i += 16) {
        ff_px_s16 us, vs;
        if (uv_stride == 2 && v == u + 1) {
            ff_px_b32 uv = FF_LOAD(ff_px_b32, u + 2 * i);
            us = __builtin_convertvector(__builtin_shufflevector(uv, uv, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), ff_px_s16);
            vs = __builtin_convertvector(__builtin_shufflevector(uv, uv, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), ff_px_s16);
        } else if (uv_stride == 1) {
            us = __builtin_convertvector(FF_LOAD(ff_px_b16, u + i), ff_px_s16);
            vs = __builtin_convertvector(FF_LOAD(ff_px_b16, v + i), ff_px_s16);
        } else {
            int16_t ut[16], vt[16];
            for (int j = 0; j < 16; j++) { ut[j] = u[(i + j) * uv_stride]; vt[j] = v[(i + j) * uv_stride]; }
            us = FF_LOAD(ff_px_s16, ut);
            vs = FF_LOAD(ff_px_s16, vt);
        }
        us = (us - 128) * 128;
        vs = (vs - 128) * 128;
        ff_i16 u32 = __builtin_convertvector(us, ff_i16), v32 = __builtin_convertvector(vs, ff_i16);
        ff_px_s16 rc = __builtin_convertvector((v32 * k[2]) >> 16, ff_px_s16);
        ff_px_s16 gc = 0 - __builtin_convertvector((u32 * k[3]) >> 16, ff_px_s16) - __builtin_convertvector((v32 * k[4]) >> 16, ff_px_s16);
        ff_px_s16 bc = __builtin_convertvector((u32 * k[5]) >> 16, ff_px_s16);
        ff_px_yuv32(y0 + 2 * i, rc, gc, bc, k, bgr, d0 + 8 * i);
        ff_px_yuv32(y1 + 2 * i, rc, gc, bc, k, bgr, d1 + 8 * i);
    }
    for (; i < pairs; i++) {
        int16_t uu = (int16_t)((u[i * uv_stride] - 128) * 128), vv = (int16_t)((v[i * uv_stride] - 128) * 128);
        int16_t rc = (int16_t)((vv * k[2]) >> 16), bc = (int16_t)((uu * k[5]) >> 16);
        int16_t gc = (int16_t)(0 - (int16_t)((uu * k[3]) >> 16) - (int16_t)((vv * k[4]) >> 16));
        const uint8_t *ys[4] = {y0 + 2 * i, y0 + 2 * i + 1, y1 + 2 * i, y1 + 2 * i + 1};
        uint8_t *os[4] = {d0 + 8 * i, d0 + 8 * i + 4, d1 + 8 * i, d1 + 8 * i + 4};
        for (int j = 0; j < 4; j++) {
            int16_t y = (int16_t)(((*ys[j] - k[0]) * 64 * k[1]) >> 16);
            int32_t c[3] = {(int16_t)(y + rc), (int16_t)(y + gc), (int16_t)(y + bc)};
            for (int m = 0; m < 3; m++) {
                int32_t x = (int16_t)(c[m] + 8) >> 4;
                c[m] = x < 0 ? 0 : x > 255 ? 255 : x;
            }
            uint32_t word = (uint32_t)(bgr ? c[2] : c[0]) | (uint32_t)c[1] << 8 | (uint32_t)(bgr ? c[0] : c[2]) << 16 | 0xFF000000u;
            __builtin_memcpy(os[j], &word, 4);
        }
    }
}

void FF_FN(ff_yuv420_rows_to_rgbx)(const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v, ptrdiff_t uv_stride,
                                   uint8_t *d0, uint8_t *d1, ptrdiff_t pairs, const int16_t *k, int bgr) {
    if (bgr) ff_px_yuv_rows(y0, y1, u, v, uv_stride, d0, d1, pairs, k, 1);
    else ff_px_yuv_rows(y0, y1, u, v, uv_stride, d0, d1, pairs, k, 0);
}

// MARK: area resize

void FF_FN(ff_area_vertical_row)(const uint8_t *const *rows, const float *weights, int count, float *line, ptrdiff_t n) {
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16) {
        ff_f16 acc = weights[0] * __builtin_convertvector(FF_LOAD(ff_px_b16, rows[0] + i), ff_f16);
        for (int k = 1; k < count; k++) acc = acc + weights[k] * __builtin_convertvector(FF_LOAD(ff_px_b16, rows[k] + i), ff_f16);
        FF_STORE(line + i, acc);
    }
    for (; i < n; i++) {
        float acc = weights[0] * (float)rows[0][i];
        for (int k = 1; k < count; k++) acc = acc + weights[k] * (float)rows[k][i];
        line[i] = acc;
    }
}

/// One 4-byte output pixel of the horizontal step: Σ weights · the line's pixels, in order.
FF_PX_INLINE ff_f4 ff_px_area_pixel(const float *line, const ptrdiff_t *offsets, const float *weights, int taps, ptrdiff_t x) {
    ff_f4 v = 0;
    const ptrdiff_t *o = offsets + x * taps;
    const float *w = weights + x * taps;
    for (int t = 0; t < taps; t++) v = v + w[t] * FF_LOAD(ff_f4, line + o[t]);
    return v;
}

void FF_FN(ff_area_horizontal_row)(const float *line, uint8_t *dst, ptrdiff_t width, int bpp, const ptrdiff_t *offsets,
                                   const float *weights, int taps) {
    if (bpp == 4) {
        // A whole pixel per 4-lane vector; four pixels joined in registers (no store and
        // reload), clamped and rounded together.
        ptrdiff_t x = 0;
        for (; x + 4 <= width; x += 4) {
            ff_f4 p0 = ff_px_area_pixel(line, offsets, weights, taps, x), p1 = ff_px_area_pixel(line, offsets, weights, taps, x + 1);
            ff_f4 p2 = ff_px_area_pixel(line, offsets, weights, taps, x + 2), p3 = ff_px_area_pixel(line, offsets, weights, taps, x + 3);
            ff_f8 lo = __builtin_shufflevector(p0, p1, 0, 1, 2, 3, 4, 5, 6, 7), hi = __builtin_shufflevector(p2, p3, 0, 1, 2, 3, 4, 5, 6, 7);
            ff_f16 v = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            FF_STORE(dst + 4 * x, __builtin_convertvector(ff_px_clamp255(v), ff_px_b16));
        }
        for (; x < width; x++) {
            ff_f4 p = ff_px_area_pixel(line, offsets, weights, taps, x);
            ff_f16 v = __builtin_shufflevector(p, p, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
            ff_px_b16 b = __builtin_convertvector(ff_px_clamp255(v), ff_px_b16);
            ff_px_b4 b4 = __builtin_shufflevector(b, b, 0, 1, 2, 3);
            FF_STORE(dst + 4 * x, b4);
        }
        return;
    }
    for (ptrdiff_t x = 0; x < width; x++) {
        for (int c = 0; c < bpp; c++) {
            float s = 0;
            for (int t = 0; t < taps; t++) s = s + weights[x * taps + t] * line[offsets[x * taps + t] + c];
            ff_f16 v = s;
            dst[x * bpp + c] = (uint8_t)ff_px_clamp255(v).x;
        }
    }
}

#if defined(__x86_64__)
/// 16 blended bytes from 16 values of each row: `pmulhuw`, the rounding add and shift, `packuswb`.
FF_PX_INLINE __m128i ff_px_blend16(const uint16_t *q0, const uint16_t *q1, __m128i ka, __m128i kb) {
    const __m128i half = _mm_set1_epi16(128);
    __m128i v[2];
    for (int k = 0; k < 2; k++) {
        __m128i a = _mm_loadu_si128((const __m128i *)(q0 + 8 * k)), b = _mm_loadu_si128((const __m128i *)(q1 + 8 * k));
        v[k] = _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(_mm_mulhi_epu16(a, ka), _mm_mulhi_epu16(b, kb)), half), 8);
    }
    return _mm_packus_epi16(v[0], v[1]);
}
#else
typedef uint16_t ff_px_w32 __attribute__((ext_vector_type(32)));
typedef uint32_t ff_px_d32 __attribute__((ext_vector_type(32)));

/// The high halves of 32 products `a·w` (each product narrowed before any sum, so that the
/// compiler sees the high-half multiply; a loop that adds first multiplies in 32 bits).
FF_PX_INLINE ff_px_w32 ff_px_mulhi(ff_px_w32 a, uint16_t w) {
    return __builtin_convertvector((__builtin_convertvector(a, ff_px_d32) * (uint32_t)w) >> 16, ff_px_w32);
}
#endif

void FF_FN(ff_linear_vertical_row)(const uint16_t *q0, const uint16_t *q1, uint16_t wa, uint16_t wb, uint8_t *dst, ptrdiff_t n) {
    if (!q1) {
        for (ptrdiff_t i = 0; i < n; i++) dst[i] = (uint8_t)((uint16_t)(q0[i] + 128) >> 8);
        return;
    }
    ptrdiff_t i = 0;
#if defined(__x86_64__)
    // 16 bytes per step in 128-bit registers: the compiler's own widening of this loop went
    // through 32-bit lanes and `vpmovwb` stores.
    const __m128i ka = _mm_set1_epi16((short)wa), kb = _mm_set1_epi16((short)wb);
    for (; i + 16 <= n; i += 16) _mm_storeu_si128((__m128i *)(dst + i), ff_px_blend16(q0 + i, q1 + i, ka, kb));
#else
    for (; i + 32 <= n; i += 32) {
        ff_px_w32 a, b;
        __builtin_memcpy(&a, q0 + i, 64);
        __builtin_memcpy(&b, q1 + i, 64);
        ff_px_b32 o = __builtin_convertvector((ff_px_mulhi(a, wa) + ff_px_mulhi(b, wb) + 128) >> 8, ff_px_b32);
        __builtin_memcpy(dst + i, &o, 32);
    }
#endif
    for (; i < n; i++) {
        uint16_t v = (uint16_t)(((uint32_t)q0[i] * wa) >> 16) + (uint16_t)(((uint32_t)q1[i] * wb) >> 16);
        dst[i] = (uint8_t)((uint16_t)(v + 128) >> 8);
    }
}

// ---- Sampling for model inputs and masks (ImageToTensorCalculator, TensorsToSegmentation)

/// `v` rounded to the nearest integer, halves to even, clamped to ±2³⁰ (NaN: −2³⁰): below
/// 2⁵¹, adding and subtracting 1.5·2⁵² rounds in the default mode without a library call.
/// Selects, not branches, so that loops over it vectorise.
FF_PX_INLINE double ff_px_round_even(double v) {
    v = v > -0x1p30 ? (v < 0x1p30 ? v : 0x1p30) : -0x1p30;
    return (v + 0x1.8p52) - 0x1.8p52;
}

/// `(f0 + i·d) · 32` rounded (`ff_px_round_even`) for `n` values of i from `i0`: a loop of its
/// own, so that it vectorises.
FF_PX_INLINE void ff_px_grid(double f0, double d, ptrdiff_t i0, ptrdiff_t n, int32_t *q) {
    for (ptrdiff_t i = 0; i < n; i++) q[i] = (int32_t)ff_px_round_even((f0 + (double)(i0 + i) * d) * 32);
}

/// One output pixel of `ff_warp_linear_row` from its grid position (qx, qy) in 1/32 pixels.
FF_PX_INLINE void ff_px_warp_pixel(const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t C, ptrdiff_t qx, ptrdiff_t qy,
                                   int replicate, uint8_t *o) {
    const ptrdiff_t x0 = qx >> 5, y0 = qy >> 5;
    const int32_t ax = (int32_t)(qx & 31), ay = (int32_t)(qy & 31);
    const int32_t w00 = (32 - ax) * (32 - ay), w01 = ax * (32 - ay), w10 = (32 - ax) * ay, w11 = ax * ay;
    if (x0 >= 0 && y0 >= 0 && x0 + 1 < sw && y0 + 1 < sh) {
        const uint8_t *r0 = base + y0 * stride + x0 * C, *r1 = r0 + stride;
        if (C == 3) {
            // Each channel's taps summed as a scalar chain: vectorised across the taps
            // (byte inserts and a horizontal sum), the compiler's version ran 3× slower.
            int32_t s0 = r0[0] * w00, s1 = r0[1] * w00, s2 = r0[2] * w00;
            s0 += r0[3] * w01, s1 += r0[4] * w01, s2 += r0[5] * w01;
            s0 += r1[0] * w10, s1 += r1[1] * w10, s2 += r1[2] * w10;
            s0 += r1[3] * w11, s1 += r1[4] * w11, s2 += r1[5] * w11;
            o[0] = (uint8_t)((s0 + 512) >> 10), o[1] = (uint8_t)((s1 + 512) >> 10), o[2] = (uint8_t)((s2 + 512) >> 10);
        } else {
            for (ptrdiff_t c = 0; c < C; c++) o[c] = (uint8_t)((r0[c] * w00 + r0[C + c] * w01 + r1[c] * w10 + r1[C + c] * w11 + 512) >> 10);
        }
        return;
    }
    // Taps outside the image: zero, or the nearest edge pixel.
    if (!replicate && (x0 >= sw || y0 >= sh || x0 + 1 < 0 || y0 + 1 < 0)) {
        for (ptrdiff_t c = 0; c < C; c++) o[c] = 0;
        return;
    }
    const ptrdiff_t xs[2] = {x0, x0 + 1}, ys[2] = {y0, y0 + 1};
    const int32_t ws[4] = {w00, w01, w10, w11};
    for (ptrdiff_t c = 0; c < C; c++) {
        int32_t s = 512;
        for (int t = 0; t < 4; t++) {
            ptrdiff_t tx = xs[t & 1], ty = ys[t >> 1];
            const int inside = tx >= 0 && tx < sw && ty >= 0 && ty < sh;
            if (!inside && !replicate) continue;
            tx = tx < 0 ? 0 : tx >= sw ? sw - 1 : tx;
            ty = ty < 0 ? 0 : ty >= sh ? sh - 1 : ty;
            s += base[ty * stride + tx * C + c] * ws[t];
        }
        o[c] = (uint8_t)(s >> 10);
    }
}

#if defined(__x86_64__) && FF_LEVEL != FF_LEVEL_BASELINE
/// Eight RGB pixels of a bilinear warp: pixel i blends the two pixels at `top + off[i]` (left
/// and right taps, 8-byte gathers: two bytes to spare after the right one, or, where a lane
/// of `back` is all ones, two before the left one) and the two at `bottom + off[i]`, with the
/// weight pairs wx = wl | wr << 8 and wy = wt | wb << 16 (each pair summing to at most 32).
/// The horizontal blend is `pmaddubsw` on byte pairs, the vertical `pmaddwd` on word pairs:
/// wt·(p00·wl + p01·wr) + wb·(p10·wl + p11·wr), the scalar sum exactly.
FF_PX_INLINE void ff_px_warp8_rgb(const uint8_t *top, const uint8_t *bottom, __m256i off, __m256i wx, __m256i wy, __m256i back, uint8_t *o) {
    const __m256i round = _mm256_set1_epi32(512);
    // Per 8-byte lane R0 G0 B0 R1 G1 B1 · · → (R0, R1) (G0, G1) (B0, B1) (0, 0), and the weight
    // pair repeated to match.
    const __m256i spread = _mm256_setr_epi8(0, 3, 1, 4, 2, 5, -1, -1, 8, 11, 9, 12, 10, 13, -1, -1, 0, 3, 1, 4, 2, 5, -1, -1, 8, 11, 9, 12, 10, 13, -1, -1);
    const __m256i wspread = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, -1, -1, 8, 9, 8, 9, 8, 9, -1, -1, 0, 1, 0, 1, 0, 1, -1, -1, 8, 9, 8, 9, 8, 9, -1, -1);
    __m256i quads[2];
    for (int h = 0; h < 2; h++) {
        // Pixels 4h … 4h + 3, one per 8-byte lane (gathers measured faster than eight scalar
        // loads: docs/performance.md).
        const __m128i idx = h ? _mm256_extracti128_si256(off, 1) : _mm256_castsi256_si128(off);
        const __m256i t = _mm256_i32gather_epi64((const long long *)top, idx, 1);
        const __m256i b = _mm256_i32gather_epi64((const long long *)bottom, idx, 1);
        const __m256i early = _mm256_cvtepi32_epi64(h ? _mm256_extracti128_si256(back, 1) : _mm256_castsi256_si128(back));
        const __m256i from = _mm256_add_epi8(spread, _mm256_and_si256(early, _mm256_set1_epi64x(0x0000020202020202LL)));
        const __m256i kx = _mm256_shuffle_epi8(_mm256_cvtepu32_epi64(h ? _mm256_extracti128_si256(wx, 1) : _mm256_castsi256_si128(wx)), wspread);
        const __m256i ky = _mm256_cvtepu32_epi64(h ? _mm256_extracti128_si256(wy, 1) : _mm256_castsi256_si128(wy));
        const __m256i ht = _mm256_maddubs_epi16(_mm256_shuffle_epi8(t, from), kx);
        const __m256i hb = _mm256_maddubs_epi16(_mm256_shuffle_epi8(b, from), kx);
        // unpacklo holds the first pixel of each 16-byte lane, unpackhi the second.
        const __m256i lo = _mm256_madd_epi16(_mm256_unpacklo_epi16(ht, hb), _mm256_shuffle_epi32(ky, 0x00));
        const __m256i hi = _mm256_madd_epi16(_mm256_unpackhi_epi16(ht, hb), _mm256_shuffle_epi32(ky, 0xAA));
        quads[h] = _mm256_packus_epi32(_mm256_srai_epi32(_mm256_add_epi32(lo, round), 10), _mm256_srai_epi32(_mm256_add_epi32(hi, round), 10));
    }
    // Bytes R G B 0 per pixel in the order 0 1 4 5 | 2 3 6 7: put in order, drop the zeros.
    __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(quads[0], quads[1]), _MM_SHUFFLE(3, 1, 2, 0));
    const __m256i pack = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    bytes = _mm256_shuffle_epi8(bytes, pack);
    uint8_t lanes[32];
    _mm256_storeu_si256((__m256i *)lanes, bytes);
    __builtin_memcpy(o, lanes, 12);
    __builtin_memcpy(o + 12, lanes + 16, 12);
}
#endif

void FF_FN(ff_warp_linear_row)(const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t channels, double fx0, double fy0,
                               double dx, double dy, ptrdiff_t width, int replicate, uint8_t *dst) {
    const ptrdiff_t C = channels;
    int32_t qxs[256], qys[256];
#if defined(__x86_64__) && FF_LEVEL != FF_LEVEL_BASELINE
    // Eight pixels at a time from 32-bit offsets.
    const int gathers = C == 3 && sh > 1 && sw > 2 && stride * sh < INT32_MAX;
#endif
    for (ptrdiff_t x = 0; x < width; x += 256) {
        // The next 256 positions on both axes, computed ahead (a loop that vectorises).
        const ptrdiff_t n = width - x < 256 ? width - x : 256;
        ff_px_grid(fx0, dx, x, n, qxs);
        ff_px_grid(fy0, dy, x, n, qys);
        ptrdiff_t i = 0;
#if defined(__x86_64__) && FF_LEVEL != FF_LEVEL_BASELINE
        if (gathers) {
            // Every pixel eight at a time: each tap's position clamped to the image (replicate)
            // or its weight dropped outside it (zero), then the weights moved onto the pair of
            // neighbours (xc, xc + 1), (yc, yc + 1) inside the image that the gathers read.
            const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256(), k31 = _mm256_set1_epi32(31), k32 = _mm256_set1_epi32(32);
            const __m256i xmax = _mm256_set1_epi32((int32_t)sw - 1), ymax = _mm256_set1_epi32((int32_t)sh - 1);
            const __m256i xpair = _mm256_set1_epi32((int32_t)sw - 2), ypair = _mm256_set1_epi32((int32_t)sh - 2);
            const __m256i vstride = _mm256_set1_epi32((int32_t)stride), two = _mm256_set1_epi32(2);
#define FF_WARP_PAIR(q0, f, last, pair, lo, hi)                                                                     \
    do {                                                                                                            \
        const __m256i c_ = _mm256_min_epi32(_mm256_max_epi32(q0, zero), pair);                                     \
        __m256i l_ = q0, r_ = _mm256_add_epi32(q0, one);                                                           \
        if (replicate) {                                                                                            \
            l_ = _mm256_min_epi32(_mm256_max_epi32(l_, zero), last);                                               \
            r_ = _mm256_min_epi32(_mm256_max_epi32(r_, zero), last);                                               \
        }                                                                                                           \
        const __m256i wl_ = _mm256_sub_epi32(k32, f), c1_ = _mm256_add_epi32(c_, one);                            \
        lo = _mm256_add_epi32(_mm256_and_si256(_mm256_cmpeq_epi32(l_, c_), wl_), _mm256_and_si256(_mm256_cmpeq_epi32(r_, c_), f));   \
        hi = _mm256_add_epi32(_mm256_and_si256(_mm256_cmpeq_epi32(l_, c1_), wl_), _mm256_and_si256(_mm256_cmpeq_epi32(r_, c1_), f)); \
        q0 = c_;                                                                                                    \
    } while (0)
            for (; i + 8 <= n; i += 8) {
                const __m256i qx = _mm256_loadu_si256((const __m256i *)(qxs + i)), qy = _mm256_loadu_si256((const __m256i *)(qys + i));
                __m256i x0 = _mm256_srai_epi32(qx, 5), y0 = _mm256_srai_epi32(qy, 5), wx0, wx1, wy0, wy1;
                FF_WARP_PAIR(x0, _mm256_and_si256(qx, k31), xmax, xpair, wx0, wx1);
                FF_WARP_PAIR(y0, _mm256_and_si256(qy, k31), ymax, ypair, wy0, wy1);
                // A pair ending the row gathers from two bytes earlier, so as not to read past the image.
                const __m256i back = _mm256_cmpeq_epi32(x0, xpair);
                const __m256i off = _mm256_sub_epi32(_mm256_add_epi32(_mm256_mullo_epi32(y0, vstride), _mm256_add_epi32(x0, _mm256_add_epi32(x0, x0))),
                                                     _mm256_and_si256(back, two));
                const __m256i wx = _mm256_or_si256(wx0, _mm256_slli_epi32(wx1, 8)), wy = _mm256_or_si256(wy0, _mm256_slli_epi32(wy1, 16));
                ff_px_warp8_rgb(base, base + stride, off, wx, wy, back, dst + (x + i) * 3);
            }
#undef FF_WARP_PAIR
        }
#endif
        for (; i < n; i++) ff_px_warp_pixel(base, stride, sw, sh, C, qxs[i], qys[i], replicate, dst + (x + i) * C);
    }
}

void FF_FN(ff_bytes_to_floats)(const uint8_t *src, ptrdiff_t n, ptrdiff_t channels, const float *scale, const float *bias, float *dst) {
    // The per-channel factors repeated over 48 values (16 pixels of 3, 48 of 1, 12 of 4).
    float k[48], b[48];
    for (int j = 0; j < 48; j++) k[j] = scale[j % channels], b[j] = bias[j % channels];
    ptrdiff_t i = 0;
    if (48 % channels == 0)
        for (; i + 48 <= n; i += 48)
            for (int j = 0; j < 48; j++) dst[i + j] = (float)src[i + j] * k[j] + b[j];
    for (; i < n; i++) dst[i] = (float)src[i] * scale[i % channels] + bias[i % channels];
}

void FF_FN(ff_linear_horizontal_f32)(const float *s, const ptrdiff_t *columns, const float *weights, ptrdiff_t n, float *row) {
    for (ptrdiff_t i = 0; i < n; i++) row[i] = s[columns[2 * i]] * weights[2 * i] + s[columns[2 * i + 1]] * weights[2 * i + 1];
}

void FF_FN(ff_linear_vertical_f32)(const float *top, const float *bottom, float b0, float b1, ptrdiff_t n, float *dst) {
    for (ptrdiff_t i = 0; i < n; i++) dst[i] = top[i] * b0 + bottom[i] * b1;
}

// The axis-aligned warp: per column the two source offsets and weights, per row the two rows
// and weights, each clamped to the image (replicate) or given weight 0 outside (zero border).
FF_PX_INLINE void ff_px_axis_taps(double f0, double d, ptrdiff_t i, ptrdiff_t size, int replicate, ptrdiff_t *a, ptrdiff_t *b, int32_t *wa,
                                  int32_t *wb) {
    const ptrdiff_t q = (ptrdiff_t)ff_px_round_even((f0 + (double)i * d) * 32), i0 = q >> 5;
    const int32_t w1 = (int32_t)(q & 31);
    *wa = i0 >= 0 && i0 < size ? 32 - w1 : replicate ? 32 - w1 : 0;
    *wb = i0 + 1 >= 0 && i0 + 1 < size ? w1 : replicate ? w1 : 0;
    *a = i0 < 0 ? 0 : i0 >= size ? size - 1 : i0;
    *b = i0 + 1 < 0 ? 0 : i0 + 1 >= size ? size - 1 : i0 + 1;
}

void FF_FN(ff_warp_linear_axis)(const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t channels, double fx0, double dx, double fy0,
                                double dy, ptrdiff_t width, ptrdiff_t height, int replicate, uint8_t *dst, int32_t *scratch) {
    const ptrdiff_t C = channels;
    int32_t *off = scratch, *wx = scratch + 2 * width;
    for (ptrdiff_t x = 0; x < width; x++) {
        ptrdiff_t a, b;
        ff_px_axis_taps(fx0, dx, x, sw, replicate, &a, &b, &wx[2 * x], &wx[2 * x + 1]);
        off[2 * x] = (int32_t)(a * C), off[2 * x + 1] = (int32_t)(b * C);
    }
#if defined(__x86_64__) && FF_LEVEL != FF_LEVEL_BASELINE
    // RGB columns whose taps are neighbours inside the image with two bytes to spare (8-byte
    // gathers), eight in a row: `steps[x]` marks where such a run of eight starts, with the
    // columns' offsets and packed weight pairs (32 − ax) | ax << 8 beside.
    int32_t *steps = scratch + 4 * width, *voff = scratch + 5 * width, *vwx = scratch + 6 * width;
    if (C == 3)
        for (ptrdiff_t x = 0, run = 0; x < width; x++) {
            const int plain = off[2 * x + 1] == off[2 * x] + 3 && off[2 * x] + 8 <= sw * 3 && wx[2 * x] + wx[2 * x + 1] == 32;
            voff[x] = off[2 * x], vwx[x] = wx[2 * x] | wx[2 * x + 1] << 8, steps[x] = 0;
            run = plain ? run + 1 : 0;
            if (run == 8) steps[x - 7] = 1, run = 0;
        }
#endif
    for (ptrdiff_t y = 0; y < height; y++) {
        ptrdiff_t a, b;
        int32_t wy0, wy1;
        ff_px_axis_taps(fy0, dy, y, sh, replicate, &a, &b, &wy0, &wy1);
        const uint8_t *p0 = base + a * stride, *p1 = base + b * stride;
        uint8_t *o = dst + y * width * C;
        if (C == 3) {
#if defined(__x86_64__) && FF_LEVEL != FF_LEVEL_BASELINE
            const __m256i wy = _mm256_set1_epi32(wy0 | wy1 << 16);
#endif
            for (ptrdiff_t x = 0; x < width; x++, o += 3) {
#if defined(__x86_64__) && FF_LEVEL != FF_LEVEL_BASELINE
                if (steps[x]) {
                    ff_px_warp8_rgb(p0, p1, _mm256_loadu_si256((const __m256i *)(voff + x)), _mm256_loadu_si256((const __m256i *)(vwx + x)), wy,
                                    _mm256_setzero_si256(), o);
                    x += 7, o += 21;
                    continue;
                }
#endif
                const int32_t o0 = off[2 * x], o1 = off[2 * x + 1], u = wx[2 * x], v = wx[2 * x + 1];
                const int32_t h0 = p0[o0] * u + p0[o1] * v, h1 = p0[o0 + 1] * u + p0[o1 + 1] * v, h2 = p0[o0 + 2] * u + p0[o1 + 2] * v;
                const int32_t g0 = p1[o0] * u + p1[o1] * v, g1 = p1[o0 + 1] * u + p1[o1 + 1] * v, g2 = p1[o0 + 2] * u + p1[o1 + 2] * v;
                o[0] = (uint8_t)((h0 * wy0 + g0 * wy1 + 512) >> 10);
                o[1] = (uint8_t)((h1 * wy0 + g1 * wy1 + 512) >> 10);
                o[2] = (uint8_t)((h2 * wy0 + g2 * wy1 + 512) >> 10);
            }
        } else {
            for (ptrdiff_t x = 0; x < width; x++, o += C) {
                const int32_t o0 = off[2 * x], o1 = off[2 * x + 1], u = wx[2 * x], v = wx[2 * x + 1];
                for (ptrdiff_t c = 0; c < C; c++)
                    o[c] = (uint8_t)(((p0[o0 + c] * u + p0[o1 + c] * v) * wy0 + (p1[o0 + c] * u + p1[o1 + c] * v) * wy1 + 512) >> 10);
            }
        }
    }
}

// MARK: RGB → YUV 4:2:0, video range (an encoder's input)

/// BT.601 video-range luma of 8-bit R, G, B in Q20: 16 + 219/255 · (0.299 R + 0.587 G +
/// 0.114 B), rounded.
FF_PX_INLINE ff_i16 ff_px_video_luma(ff_i16 r, ff_i16 g, ff_i16 b) {
    return (269262 * r + 528618 * g + 102662 * b + (16 << 20) + (1 << 19)) >> 20;
}

/// Cb and Cr of sums of four pixels in Q20 (÷ 4 in the shift): 128 + 224/255 · the BT.601
/// rows, rounded. Each row's coefficients sum to 0, so grey gives 128 exactly.
FF_PX_INLINE ff_i16 ff_px_video_cb(ff_i16 r4, ff_i16 g4, ff_i16 b4) {
    return (-155423 * r4 - 305128 * g4 + 460551 * b4 + (128 << 22) + (1 << 21)) >> 22;
}
FF_PX_INLINE ff_i16 ff_px_video_cr(ff_i16 r4, ff_i16 g4, ff_i16 b4) {
    return (460551 * r4 - 385654 * g4 - 74897 * b4 + (128 << 22) + (1 << 21)) >> 22;
}

/// Byte `shift / 8` of each pixel word.
FF_PX_INLINE ff_i16 ff_px_channel(ff_px_u16 p, uint32_t shift) { return (ff_i16)((p >> shift) & 0xFF); }

/// The video-range luma of 16 pixel words, red at bit `rs`, blue at bit `bs`.
FF_PX_INLINE ff_px_b16 ff_px_video_luma_words(ff_px_u16 p, uint32_t rs, uint32_t bs) {
    return __builtin_convertvector(ff_px_video_luma(ff_px_channel(p, rs), ff_px_channel(p, 8), ff_px_channel(p, bs)), ff_px_b16);
}

FF_PX_INLINE void ff_px_rgbx_yuv420(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                                    ptrdiff_t pairs, int bgr) {
    const uint32_t rs = bgr ? 16 : 0, bs = bgr ? 0 : 16;
    ptrdiff_t i = 0;
    // 16 pairs (32 pixels of each row) at a time: luma per pixel, chroma per 2 × 2 block.
    for (; i + 16 <= pairs; i += 16) {
        const uint8_t *p0 = s0 + 8 * i, *p1 = s1 + 8 * i;
        ff_px_u16 a0 = FF_LOAD(ff_px_u16, p0), b0 = FF_LOAD(ff_px_u16, p0 + 64);
        ff_px_u16 a1 = FF_LOAD(ff_px_u16, p1), b1 = FF_LOAD(ff_px_u16, p1 + 64);
        FF_STORE(y0 + 2 * i, ff_px_video_luma_words(a0, rs, bs));
        FF_STORE(y0 + 2 * i + 16, ff_px_video_luma_words(b0, rs, bs));
        FF_STORE(y1 + 2 * i, ff_px_video_luma_words(a1, rs, bs));
        FF_STORE(y1 + 2 * i + 16, ff_px_video_luma_words(b1, rs, bs));
        ff_px_u16 e0 = __builtin_shufflevector(a0, b0, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        ff_px_u16 o0 = __builtin_shufflevector(a0, b0, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        ff_px_u16 e1 = __builtin_shufflevector(a1, b1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        ff_px_u16 o1 = __builtin_shufflevector(a1, b1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        ff_i16 r4 = ff_px_channel(e0, rs) + ff_px_channel(o0, rs) + ff_px_channel(e1, rs) + ff_px_channel(o1, rs);
        ff_i16 g4 = ff_px_channel(e0, 8) + ff_px_channel(o0, 8) + ff_px_channel(e1, 8) + ff_px_channel(o1, 8);
        ff_i16 b4 = ff_px_channel(e0, bs) + ff_px_channel(o0, bs) + ff_px_channel(e1, bs) + ff_px_channel(o1, bs);
        FF_STORE(u + i, __builtin_convertvector(ff_px_video_cb(r4, g4, b4), ff_px_b16));
        FF_STORE(v + i, __builtin_convertvector(ff_px_video_cr(r4, g4, b4), ff_px_b16));
    }
    // The rest one pair at a time, in lane 0 of the same formulas.
    for (; i < pairs; i++) {
        const uint8_t *p0 = s0 + 8 * i, *p1 = s1 + 8 * i;
        ff_px_u16 q = {0};
        q[0] = (uint32_t)p0[0] | (uint32_t)p0[1] << 8 | (uint32_t)p0[2] << 16;
        q[1] = (uint32_t)p0[4] | (uint32_t)p0[5] << 8 | (uint32_t)p0[6] << 16;
        q[2] = (uint32_t)p1[0] | (uint32_t)p1[1] << 8 | (uint32_t)p1[2] << 16;
        q[3] = (uint32_t)p1[4] | (uint32_t)p1[5] << 8 | (uint32_t)p1[6] << 16;
        ff_i16 r = ff_px_channel(q, rs), g = ff_px_channel(q, 8), b = ff_px_channel(q, bs);
        ff_i16 l = ff_px_video_luma(r, g, b);
        y0[2 * i] = (uint8_t)l[0];
        y0[2 * i + 1] = (uint8_t)l[1];
        y1[2 * i] = (uint8_t)l[2];
        y1[2 * i + 1] = (uint8_t)l[3];
        ff_i16 r4 = r[0] + r[1] + r[2] + r[3], g4 = g[0] + g[1] + g[2] + g[3], b4 = b[0] + b[1] + b[2] + b[3];
        u[i] = (uint8_t)ff_px_video_cb(r4, g4, b4)[0];
        v[i] = (uint8_t)ff_px_video_cr(r4, g4, b4)[0];
    }
}

void FF_FN(ff_rgbx_rows_to_yuv420)(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                                   ptrdiff_t pairs, int bgr) {
    if (bgr) ff_px_rgbx_yuv420(s0, s1, y0, y1, u, v, pairs, 1);
    else ff_px_rgbx_yuv420(s0, s1, y0, y1, u, v, pairs, 0);
}

void FF_FN(ff_gray_to_video_luma)(const uint8_t *src, uint8_t *dst, ptrdiff_t n) {
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16) {
        ff_i16 l = __builtin_convertvector(FF_LOAD(ff_px_b16, src + i), ff_i16);
        FF_STORE(dst + i, __builtin_convertvector(ff_px_video_luma(l, l, l), ff_px_b16));
    }
    for (; i < n; i++) {
        ff_i16 l = src[i];
        dst[i] = (uint8_t)ff_px_video_luma(l, l, l)[0];
    }
}
