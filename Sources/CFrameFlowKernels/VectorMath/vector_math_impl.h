// Element-wise reductions, compiled once per level (see ../Levels/ff_level.h).

float FF_FN(ff_sum_f32)(const float *p, ptrdiff_t count) {
    ff_f16 a0 = 0, a1 = 0;
    ptrdiff_t i = 0;
    for (; i + 32 <= count; i += 32) {
        a0 += FF_LOAD(ff_f16, p + i);
        a1 += FF_LOAD(ff_f16, p + i + 16);
    }
    for (; i + 16 <= count; i += 16) a0 += FF_LOAD(ff_f16, p + i);
    a0 += a1;
    ff_f8 h = a0.lo + a0.hi;
    ff_f4 q = h.lo + h.hi;
    float s = (q.x + q.z) + (q.y + q.w);
    for (; i < count; i++) s += p[i];
    return s;
}
