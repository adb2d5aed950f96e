#!/usr/bin/env python3
"""Reference frame rate for frameflow-bench's MediaPipe face detection section: MediaPipe's own
Python solution (mediapipe==0.10.21, `solutions.face_detection`, model_selection=0 — the
face_detection_short_range_cpu graph FrameFlow runs from the same .binarypb), frame by frame.

Run with the MediaPipe reference environment (.build/venv-mediapipe/bin/python); the thread
count is set by the caller with CPU affinity (`taskset -c 0` for one core).

usage: reference_mediapipe_face.py FRAMES.rgb WIDTH HEIGHT
  → JSON {"fps": best of three passes, "faces": frames with a face}
"""
import json
import sys
import time

import mediapipe as mp
import numpy as np

raw, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
frames = np.fromfile(raw, np.uint8).reshape(-1, h, w, 3)
best, faces = 0.0, 0
with mp.solutions.face_detection.FaceDetection(model_selection=0, min_detection_confidence=0.5) as fd:
    fd.process(frames[0])  # warm-up: the graph and the model
    for _ in range(3):
        t = time.perf_counter()
        faces = sum(1 for f in frames if fd.process(f).detections)
        best = max(best, len(frames) / (time.perf_counter() - t))
print(json.dumps({"fps": best, "faces": faces}))
