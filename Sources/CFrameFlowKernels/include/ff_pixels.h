#ifndef FF_PIXELS_H
#define FF_PIXELS_H

// The image calculators' per-pixel loops (FrameFlowCalculators/Image): byte for byte the
// formulas their Swift doc comments state, the same at every level.

#include <stddef.h>
#include <stdint.h>

/// Luminance of `width` 4-byte pixels (rgba8, or bgra8 when `bgr`): round(0.2125 R +
/// 0.7154 G + 0.0721 B), halves up, in R, G and B; alpha kept. `dst` may be `src`.
void ff_luminance_rgbx(const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bgr);

/// One row of Sobel edge magnitude, min(255, round(√(h² + v²))), on byte `channel` of
/// `bpp`-byte pixels (1, 3 or 4), edges replicated: `up`, `mid`, `down` are the rows above, at
/// and below (replicated at the image's top and bottom). The magnitude goes to every byte of
/// the pixel, alpha 255 for 4-byte pixels. `scratch`: 2 × (width + 2) ints.
void ff_sobel_row(const uint8_t *up, const uint8_t *mid, const uint8_t *down, uint8_t *dst, ptrdiff_t width, int bpp,
                  int channel, int32_t *scratch);

/// One row of the unsharp mask over `count` bytes: where |s − b| > `threshold`,
/// s + amount · (s − b) clamped, else s. Amounts below 31 in fixed point (`amount_q10`, the
/// amount in 1/1024ths: the high half of diff · 2⁷ · amount_q10, halved rounding up), others
/// in float. `alpha`: 4-byte pixels whose fourth byte is copied from `s`. `d` may be `b`.
void ff_sharpen_combine_row(const uint8_t *s, const uint8_t *b, uint8_t *d, ptrdiff_t count, int alpha, float amount,
                            int16_t amount_q10, int32_t threshold);

/// One padded source row filtered horizontally into 16-bit sums (wrapping):
/// dst[i] = Σ weights[t] · pad[i + t · bpp] for i below `row_len` rounded up to 16 (`pad`
/// holds that many bytes plus (n − 1) · bpp; `dst` that many sums).
void ff_blur_horizontal_row(const uint8_t *pad, uint16_t *dst, ptrdiff_t row_len, const uint16_t *weights, int n, int bpp);

/// One output row from `n` rows of horizontal sums: (2^(total_bits − 1) + Σ weights[t] ·
/// rows[t][i]) >> total_bits, in 16-bit lanes when 255 · 2^total_bits fits, else 32-bit.
/// Each row in `rows` holds `row_len` rounded up to 16 sums.
void ff_blur_vertical_row(const uint16_t *const *rows, const uint16_t *weights, int n, int total_bits, uint8_t *dst,
                          ptrdiff_t row_len);

/// Tone curve and saturation on `width` pixels of `bpp` bytes (3 or 4; colour in bytes 0–2,
/// byte 3 kept): c = round(clamp(v · k[0] + k[1])) per channel, L = k[3] c0 + k[4] c1 + k[5] c2,
/// out = round(clamp(L + k[2] · (c − L))).
void ff_color_adjust_row(const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bpp, const float *k);

/// A 3-D LUT prepared for tetrahedral interpolation (LUTCalculator builds it).
typedef struct ff_lut_tetrahedral {
    /// n³ entries of four floats (the colours in the pixel's byte order, × 255 × intensity).
    const float *table;
    /// Per axis (red, green, blue) 256 entries: each code's cell offset (in entries) and
    /// fraction, for the tails.
    const int32_t *base;
    const float *frac;
    /// Per ordering key (8): the entry offsets one and two steps from the cell's base, and the
    /// axes of the largest, middle and smallest fraction (4 ints each).
    const int32_t *step1, *step2, *order;
    /// The source's weight per byte (1 − intensity for colour, 1 for alpha).
    float keep[4];
    /// code · scale − shift is the lattice coordinate (per axis); top = n − 1.
    float scale[3], shift[3], top;
    /// Lattice size, the far corner's entry offset (1 + n + n²).
    int32_t n, far_offset;
    /// Byte positions of red, green and blue in a pixel.
    int32_t cr, cg, cb;
    /// The colour bytes of a little-endian pixel word.
    uint32_t colour_mask;
    /// Entries in 0…1 and intensity 1: no clamp or blend in the block path.
    int32_t fast;
} ff_lut_tetrahedral;

/// One row of `width` pixels (3 or 4 bytes) through `lut`.
void ff_lut_tetrahedral_row(const ff_lut_tetrahedral *lut, const uint8_t *src, uint8_t *dst, ptrdiff_t width, int bpp);

/// Two rows of RGBA (or BGRA when `bgr`) from two luma rows and their chroma row, as
/// OpenCV's 16-bit path: `pairs` pixel pairs, each sharing one U and V sample (at
/// `u[i · uv_stride]`, `v[i · uv_stride]`). k: luma offset, luma scale (Q14), and the Cr→R,
/// Cb→G, Cr→G, Cb→B coefficients (Q13); y = hi16(((Y − k0) << 6) · k1), chroma terms
/// hi16(((C − 128) << 7) · coefficient), each channel ((y + term + 8) >> 4) clamped.
void ff_yuv420_rows_to_rgbx(const uint8_t *y0, const uint8_t *y1, const uint8_t *u, const uint8_t *v, ptrdiff_t uv_stride,
                            uint8_t *d0, uint8_t *d1, ptrdiff_t pairs, const int16_t *k, int bgr);

/// Area resize, vertical step: line[i] = Σ weights[k] · rows[k][i] over `count` rows, in
/// float, added in order.
void ff_area_vertical_row(const uint8_t *const *rows, const float *weights, int count, float *line, ptrdiff_t n);

/// Area resize, horizontal step: each output pixel's channel c is Σ weights[x·taps + t] ·
/// line[offsets[x·taps + t] + c] (offsets in floats), clamped and rounded to a byte.
void ff_area_horizontal_row(const float *line, uint8_t *dst, ptrdiff_t width, int bpp, const ptrdiff_t *offsets,
                            const float *weights, int taps);

/// Bilinear resize, vertical step: two horizontally resampled rows (1/256ths) blended,
/// dst[i] = (hi16(q0[i]·wa) + hi16(q1[i]·wb) + 128) >> 8, wa + wb = 65536. With `q1` NULL the
/// row alone: dst[i] = (q0[i] + 128) >> 8.
void ff_linear_vertical_row(const uint16_t *q0, const uint16_t *q1, uint16_t wa, uint16_t wb, uint8_t *dst, ptrdiff_t n);

/// One output row of a bilinear warp on OpenCV's 1/32-pixel grid (`warpAffine` /
/// `warpPerspective` with INTER_LINEAR on 8-bit images): output pixel x samples the image
/// (`sw` × `sh` pixels of `channels` bytes, rows `stride` bytes apart from `base`) at
/// q = round_half_even((f0 + x·d) · 32) on each axis, from (fx0, fy0) in steps of (dx, dy),
/// with weights (32 − q % 32, q % 32) per axis: (Σ p·w + 512) >> 10. Taps outside the image
/// read 0, or with `replicate` the nearest edge.
void ff_warp_linear_row(const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t channels, double fx0, double fy0, double dx,
                        double dy, ptrdiff_t width, int replicate, uint8_t *dst);

/// The whole `width` × `height` warp of `ff_warp_linear_row` when the rows and columns run along
/// the image's axes (dy of a row and dx of a column both 0): each column's taps and each row's
/// computed once, the same bytes. `scratch`: 7 · width int32s.
void ff_warp_linear_axis(const uint8_t *base, ptrdiff_t stride, ptrdiff_t sw, ptrdiff_t sh, ptrdiff_t channels, double fx0, double dx, double fy0,
                         double dy, ptrdiff_t width, ptrdiff_t height, int replicate, uint8_t *dst, int32_t *scratch);

/// dst[i] = src[i] · scale[i % channels] + bias[i % channels] for i < n, each product rounded
/// before the sum (no FMA), the same at every level.
void ff_bytes_to_floats(const uint8_t *src, ptrdiff_t n, ptrdiff_t channels, const float *scale, const float *bias, float *dst);

/// One row of a float bilinear resize, horizontal step: row[i] = s[columns[2i]] ·
/// weights[2i] + s[columns[2i + 1]] · weights[2i + 1] (no FMA).
void ff_linear_horizontal_f32(const float *s, const ptrdiff_t *columns, const float *weights, ptrdiff_t n, float *row);

/// The vertical step: dst[i] = top[i] · b0 + bottom[i] · b1 (no FMA).
void ff_linear_vertical_f32(const float *top, const float *bottom, float b0, float b1, ptrdiff_t n, float *dst);

/// Two rows of `2 · pairs` 4-byte pixels (rgba8, or bgra8 when `bgr`; the fourth byte
/// ignored) to BT.601 video-range YUV 4:2:0, an encoder's input: per pixel
/// Y = 16 + 219/255 · (0.299 R + 0.587 G + 0.114 B), and per 2 × 2 block, on the means of its
/// four pixels, U = 128 + 224/255 · (−0.1687 R − 0.3313 G + 0.5 B) and
/// V = 128 + 224/255 · (0.5 R − 0.4187 G − 0.0813 B), each rounded (Q20 coefficients).
void ff_rgbx_rows_to_yuv420(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                            ptrdiff_t pairs, int bgr);

/// The video-range luma of `n` grey bytes: 16 + 219/255 · L, rounded (`ff_rgbx_rows_to_yuv420`
/// with R = G = B = L).
void ff_gray_to_video_luma(const uint8_t *src, uint8_t *dst, ptrdiff_t n);

#endif
