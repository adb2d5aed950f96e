#!/usr/bin/env python3
"""Reference frame rate for frameflow-bench's BlazeFace-graph section: the same model run
frame by frame through LiteRT from Python, OpenCV doing the letterbox resize, numpy the
anchors, decoding and weighted NMS (scripts/fixtures/blazeface_reference.py, the pipeline the
graph's tests compare with).

usage: reference_blazeface.py MODEL FRAMES.rgb WIDTH HEIGHT
  → JSON {"litert1": fps, "litert2": fps, "faces": frames with a face}
"""
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import blazeface_reference as ref  # noqa: E402

model_path, raw, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
frames = np.fromfile(raw, np.uint8).reshape(-1, h, w, 3)
out = {}
for threads in (1, 2):
    model = ref.load(model_path, threads)
    ref.detect(model, frames[0])  # warm-up
    best = 0.0
    for _ in range(3):  # the best of three passes, as frameflow-bench takes for the graph
        t = time.perf_counter()
        faces = sum(1 for f in frames if ref.detect(model, f))
        best = max(best, len(frames) / (time.perf_counter() - t))
    out[f"litert{threads}"] = best
    out["faces"] = faces
print(json.dumps(out))
