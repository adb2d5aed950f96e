#define FF_LEVEL FF_LEVEL_AVX2
#include "../Levels/ff_level.h"
#if FF_ACTIVE
#include "qgemm_impl.h"
#endif
#include "../Levels/ff_level_end.h"
