// Haar cascade window evaluation, compiled once per level (see ../Levels/ff_level.h). The
// float and double steps are OpenCV's and the Swift reference's, in their order, not fused.
#pragma STDC FP_CONTRACT OFF

/// One rectangle sum from four integral corners (Int32, wrapping as OpenCV's).
static inline __attribute__((always_inline)) int32_t ff_haar_rect(const int32_t *t, const ptrdiff_t *o) {
    return (int32_t)((uint32_t)t[o[0]] - (uint32_t)t[o[1]] - (uint32_t)t[o[2]] + (uint32_t)t[o[3]]);
}

int FF_FN(ff_haar_stumps)(const ff_haar_stump *stumps, const ff_haar_feature *features, const int32_t *stage_sizes,
                          const float *stage_thresholds, int stages, const int32_t *sum, const int32_t *tilted, ptrdiff_t base,
                          float vnf) {
    const int32_t *sw = sum + base;
    int k = 0;
    for (int si = 0; si < stages; si++) {
        double acc = 0;
        for (int j = 0, n = stage_sizes[si]; j < n; j++, k++) {
            const ff_haar_stump *st = stumps + k;
            const ff_haar_feature *f = features + st->feature;
            const int32_t *t = f->tilted ? tilted + base : sw;  // tilted exists when a feature is
            float r = f->w[0] * (float)ff_haar_rect(t, f->o) + f->w[1] * (float)ff_haar_rect(t, f->o + 4);
            if (f->w[2] != 0) r += f->w[2] * (float)ff_haar_rect(t, f->o + 8);
            float v = r * vnf;
            acc += (double)(v < st->threshold ? st->left : st->right);
        }
        if (acc < (double)stage_thresholds[si]) return -si;
    }
    return 1;
}
