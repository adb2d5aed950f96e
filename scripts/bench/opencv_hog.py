#!/usr/bin/env python3
"""OpenCV reference for frameflow-bench's HOG section: the default people detector's
detectMultiScale (OpenCV's defaults) on the same frames.

usage: opencv_hog.py MODEL_XML THREADS PASSES FRAME.ppm...
Prints JSON {"1": ms, "THREADS": ms, "boxes": {frame: [[x, y, w, h], …]}}: milliseconds per
frame (median of PASSES passes over the frames) with 1 and THREADS threads, and the boxes.
"""
import json
import sys
import time

import cv2

model, threads, passes, paths = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
hog = cv2.HOGDescriptor()
assert hog.load(model), model
frames = [cv2.imread(p, cv2.IMREAD_COLOR) for p in paths]  # BGR, as the clip decodes
out = {"boxes": {p: sorted(list(map(int, b)) for b in hog.detectMultiScale(f)[0]) for p, f in zip(paths, frames)}}
for n in sorted({1, threads}):
    cv2.setNumThreads(n)
    times = []
    for _ in range(passes):
        t = time.perf_counter()
        for f in frames:
            hog.detectMultiScale(f)
        times.append((time.perf_counter() - t) * 1000 / len(frames))
    times.sort()
    out[str(n)] = times[len(times) // 2]
print(json.dumps(out))
