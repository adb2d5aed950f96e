#if defined(FF_PUSHED)
#pragma clang attribute pop
#endif
#undef FF_PUSHED
#undef FF_FN
#undef FF_VL
#undef FF_SKIP_LEVEL
#undef FF_ACTIVE
#undef FF_LEVEL
