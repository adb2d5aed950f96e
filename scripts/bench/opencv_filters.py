#!/usr/bin/env python3
"""OpenCV reference timings for frameflow-bench's filter table, on the same 1920×1080 frame.

usage: opencv_filters.py RAW_RGBA RAW_NV12 WIDTH HEIGHT ITERATIONS
Prints JSON: {"op": {"1": ms, "2": ms}} — median milliseconds with cv2.setNumThreads(1) and (2).
Operations (OpenCV's nearest equivalents):
  nv12_to_rgba   cvtColor COLOR_YUV2RGBA_NV12
  resize_linear  resize to 640×360 INTER_LINEAR
  resize_linear_720  resize to 1280×720 INTER_LINEAR (a 1.5× reduction: every pixel two taps)
  resize_area    resize to 640×360 INTER_AREA
  gaussian_5x5   GaussianBlur (5, 5), sigma from size
  unsharp        GaussianBlur (0, 0) sigma 1 + addWeighted(1 + a, −a)   (no threshold)
  sat_contrast   convertScaleAbs (contrast) + addWeighted with the grey image (saturation)
"""
import json
import sys
from timing import median_ms

import cv2
import numpy as np

rgba_path, nv12_path, w, h, iters = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rgba = np.fromfile(rgba_path, dtype=np.uint8).reshape(h, w, 4)
nv12 = np.fromfile(nv12_path, dtype=np.uint8).reshape(h * 3 // 2, w)


def sat_contrast(img):
    c = cv2.convertScaleAbs(img, alpha=1.2, beta=-0.1 * 255)
    g = cv2.cvtColor(cv2.cvtColor(c, cv2.COLOR_RGBA2GRAY), cv2.COLOR_GRAY2RGBA)
    return cv2.addWeighted(c, 1.3, g, -0.3, 0)


def unsharp(img):
    b = cv2.GaussianBlur(img, (0, 0), 1.0)
    return cv2.addWeighted(img, 1.8, b, -0.8, 0)


ops = {
    "nv12_to_rgba": lambda: cv2.cvtColor(nv12, cv2.COLOR_YUV2RGBA_NV12),
    "resize_linear": lambda: cv2.resize(rgba, (640, 360), interpolation=cv2.INTER_LINEAR),
    "resize_linear_720": lambda: cv2.resize(rgba, (1280, 720), interpolation=cv2.INTER_LINEAR),
    "resize_area": lambda: cv2.resize(rgba, (640, 360), interpolation=cv2.INTER_AREA),
    "gaussian_5x5": lambda: cv2.GaussianBlur(rgba, (5, 5), 0),
    "unsharp": lambda: unsharp(rgba),
    "sat_contrast": lambda: sat_contrast(rgba),
}
result = {}
for name, f in ops.items():
    result[name] = {}
    for threads in (1, 2):
        cv2.setNumThreads(threads)
        result[name][str(threads)] = median_ms(f, iters)
print(json.dumps(result))
