#ifndef FF_QGEMM_H
#define FF_QGEMM_H

// Integer convolution for quantised (8-bit) models: activations and weights with their zero
// points already subtracted, held as int16 (a value of [-255, 255]), multiplied in pairs into
// exact int32 sums (AVX2's VPMADDWD: no intermediate can saturate), then requantised as
// onnxruntime does: float(sum + bias) · multiplier, clamped, rounded half to even, plus the
// output zero point.

#include <stddef.h>
#include <stdint.h>

/// Output channels per weight panel and pixels per activation panel.
#define FF_QGEMM_MR 4
#define FF_QGEMM_NR 16

/// What happens to each int32 sum of output channel c: q = clamp(round(float(sum + bias[c]) ·
/// multiplier[c]) + zero, lower, upper); stored as the float (q − dequant_zero) · dequant_scale
/// (dequant_scale 1 and dequant_zero 0 store q itself).
typedef struct {
    const int32_t *bias;
    const float *multiplier;
    float zero, lower, upper;
    float dequant_zero, dequant_scale;
} ff_qgemm_requant;

/// int16 values the weight panels of an m × k matrix take (k padded to even, m to FF_QGEMM_MR).
ptrdiff_t ff_qgemm_packed_weights_count(ptrdiff_t m, ptrdiff_t k);
/// int16 values the activation panels of a k × n matrix take (k padded to even, n to FF_QGEMM_NR).
ptrdiff_t ff_qgemm_packed_activations_count(ptrdiff_t k, ptrdiff_t n);

/// Packs the m × k weights `w` (row-major, int8 values with their zero points subtracted) into
/// panels of FF_QGEMM_MR rows, k in pairs.
void ff_qgemm_pack_weights(ptrdiff_t m, ptrdiff_t k, const int16_t *w, int16_t *packed);

/// Quantises `count` floats: clamp(round(x / scale) + zero, lower, upper) − zero, as int16.
void ff_quantize_shifted_i16(const float *x, ptrdiff_t count, float scale, float zero, float lower, float upper, int16_t *out);

/// Quantises and dequantises `count` floats: (clamp(round(x / scale) + zero, lower, upper) − zero) · scale.
void ff_fake_quantize_f32(const float *x, ptrdiff_t count, float scale, float zero, float lower, float upper, float *out);

/// im2col of one image's `c` int16 planes (h × w) for a kh × kw window (strides, dilations, top
/// and left padding; padded taps are 0) into activation panels: k = c·kh·kw rows in (c, ky, kx)
/// order, n = oh·ow columns. Only the panels [panel0, panel1) are written (for a split).
void ff_qgemm_pack_im2col(const int16_t *x, ptrdiff_t c, ptrdiff_t h, ptrdiff_t w, ptrdiff_t kh, ptrdiff_t kw, ptrdiff_t sh, ptrdiff_t sw,
    ptrdiff_t dh, ptrdiff_t dw, ptrdiff_t pt, ptrdiff_t pl, ptrdiff_t oh, ptrdiff_t ow, ptrdiff_t panel0, ptrdiff_t panel1, int16_t *packed);

/// C = W · X for the activation panels [panel0, panel1): W m × k packed by
/// ff_qgemm_pack_weights, X k × n packed by ff_qgemm_pack_im2col; each sum requantised by `r`
/// and stored as a float at c[row · ldc + column].
void ff_qgemm_multiply(ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const int16_t *w, const int16_t *x, ptrdiff_t panel0, ptrdiff_t panel1,
    const ff_qgemm_requant *r, float *c, ptrdiff_t ldc);

#endif
