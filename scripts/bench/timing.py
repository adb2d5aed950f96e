"""Shared timing for the reference benchmarks: one warm-up call, then the median of timed calls."""
import time


def median_ms(f, iters):
    """Calls f once to warm up, then iters times; returns the median wall time in milliseconds."""
    f()
    ts = []
    for _ in range(iters):
        t = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t) * 1000)
    ts.sort()
    return ts[len(ts) // 2]
