#include "../Levels/ff_dispatch.h"

FF_DECLARE(int, ff_haar_stumps, (const ff_haar_stump *stumps, const ff_haar_feature *features, const int32_t *stage_sizes, const float *stage_thresholds, int stages, const int32_t *sum, const int32_t *tilted, ptrdiff_t base, float vnf))
int ff_haar_stumps(const ff_haar_stump *stumps, const ff_haar_feature *features, const int32_t *stage_sizes, const float *stage_thresholds, int stages,
                   const int32_t *sum, const int32_t *tilted, ptrdiff_t base, float vnf) {
    FF_CALL(ff_haar_stumps, (stumps, features, stage_sizes, stage_thresholds, stages, sum, tilted, base, vnf))
}
