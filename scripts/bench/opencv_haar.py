#!/usr/bin/env python3
"""OpenCV reference timings for frameflow-bench's cascade section.

usage: opencv_haar.py CASCADE RAW_GRAY WIDTH HEIGHT ITERATIONS
Prints JSON {"1": ms, "2": ms}: median detectMultiScale(1.1, 3) time with 1 and 2 threads.
"""
import json
import sys
from timing import median_ms

import cv2
import numpy as np

cascade, path, w, h, iters = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
img = np.fromfile(path, dtype=np.uint8).reshape(h, w)
cc = cv2.CascadeClassifier(cascade)
out = {}
for threads in (1, 2):
    cv2.setNumThreads(threads)
    out[str(threads)] = median_ms(lambda: cc.detectMultiScale(img, 1.1, 3), iters)
print(json.dumps(out))
