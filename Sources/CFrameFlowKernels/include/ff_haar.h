#ifndef FF_HAAR_H
#define FF_HAAR_H

// Haar cascade evaluation (FrameFlowCalculators/Detection): the stump stages of one window.

#include <stddef.h>
#include <stdint.h>

/// A Haar feature on one pyramid level: three rectangles' integral offsets (four corners each,
/// relative to the window's top-left; the third unused when its weight is 0), their weights,
/// and whether they index the tilted integral.
typedef struct ff_haar_feature {
    ptrdiff_t o[12];
    float w[3];
    int32_t tilted;
} ff_haar_feature;

/// A one-split tree: the feature, its threshold, and the values left (below) and right.
typedef struct ff_haar_stump {
    int32_t feature;
    float threshold, left, right;
} ff_haar_stump;

/// The stages of a stump cascade on the window whose top-left integral index is `base`:
/// each stump adds left or right (as double) by whether its feature × `vnf` (the window's
/// inverse standard deviation) is below its threshold; a stage whose sum is below its
/// threshold rejects the window. Returns 1 when every stage passes, else −(rejecting stage).
int ff_haar_stumps(const ff_haar_stump *stumps, const ff_haar_feature *features, const int32_t *stage_sizes,
                   const float *stage_thresholds, int stages, const int32_t *sum, const int32_t *tilted, ptrdiff_t base,
                   float vnf);

#endif
