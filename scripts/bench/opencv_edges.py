#!/usr/bin/env python3
"""OpenCV reference for frameflow-bench: luminance + Sobel magnitude on the same pixels.

usage: opencv_edges.py RAW_RGBA WIDTH HEIGHT ITERATIONS
Prints the median milliseconds of: cvtColor(RGBA→GRAY), Sobel dx and dy (3×3, CV_32F,
replicated border), magnitude, saturate to 8 bits. One thread (cv2.setNumThreads(1)).
"""
import sys
from timing import median_ms

import cv2
import numpy as np

path, w, h, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cv2.setNumThreads(1)
rgba = np.fromfile(path, dtype=np.uint8).reshape(h, w, 4)


def edges(img):
    gray = cv2.cvtColor(img, cv2.COLOR_RGBA2GRAY)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE)
    return cv2.convertScaleAbs(cv2.magnitude(gx, gy))


print(f"{median_ms(lambda: edges(rgba), iters):.4f}")
