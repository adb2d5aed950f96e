#!/usr/bin/env python3
"""Reference frame rate for frameflow-bench's MediaPipe section: MediaPipe's own Python
solutions (mediapipe==0.10.21), frame by frame, with the options FrameFlow's rows use:

  face_detection  solutions.face_detection, model_selection=0 (face_detection_short_range_cpu)
  face_mesh       solutions.face_mesh, video mode, max_num_faces=1, refine_landmarks=True
                  (face_landmark_front_cpu with attention)
  hands           solutions.hands, video mode, max_num_hands=2, model_complexity=1
                  (hand_landmark_tracking_cpu)
  pose            solutions.pose, video mode, model_complexity=1, enable_segmentation=True,
                  smoothing on (pose_landmark_cpu)
  selfie_segmentation_0, selfie_segmentation_1
                  solutions.selfie_segmentation, model_selection=0 (general) or 1 (landscape)
                  (selfie_segmentation_cpu); every frame has a mask
  holistic        solutions.holistic, video mode, model_complexity=1, smooth_landmarks=True,
                  enable_segmentation=False, refine_face_landmarks=False
                  (holistic_landmark_cpu)
  holistic_seg_refine
                  the same with enable_segmentation=True (smoothed) and
                  refine_face_landmarks=True

Run with the MediaPipe reference environment (.build/venv-mediapipe/bin/python); the thread
count is set by the caller with CPU affinity (`taskset -c 0` for one core). One timed pass per
run, after a warm-up frame on a new solution, so each pass starts with a detection like
FrameFlow's new graph; the caller alternates runs with FrameFlow's passes and takes medians.

usage: reference_mediapipe.py SOLUTION FRAMES.rgb WIDTH HEIGHT
  → JSON {"ms": milliseconds per frame, "found": [frames with each output field, in order]}
     (holistic: pose, face, left hand, right hand[, mask])
"""
import json
import sys
import time

import mediapipe as mp
import numpy as np

solution, raw, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
frames = np.fromfile(raw, np.uint8).reshape(-1, h, w, 3)
HOLISTIC = ["pose_landmarks", "face_landmarks", "left_hand_landmarks", "right_hand_landmarks"]


def make():
    """The solution and the result fields counted as found."""
    s = mp.solutions
    if solution == "face_detection":
        return s.face_detection.FaceDetection(model_selection=0, min_detection_confidence=0.5), ["detections"]
    if solution == "face_mesh":
        return s.face_mesh.FaceMesh(static_image_mode=False, max_num_faces=1, refine_landmarks=True), ["multi_face_landmarks"]
    if solution == "hands":
        return s.hands.Hands(static_image_mode=False, max_num_hands=2, model_complexity=1), ["multi_hand_landmarks"]
    if solution == "pose":
        return s.pose.Pose(static_image_mode=False, model_complexity=1, enable_segmentation=True), ["pose_landmarks"]
    if solution in ("selfie_segmentation_0", "selfie_segmentation_1"):
        return s.selfie_segmentation.SelfieSegmentation(model_selection=int(solution[-1])), ["segmentation_mask"]
    if solution == "holistic":
        return (
            s.holistic.Holistic(
                static_image_mode=False, model_complexity=1, smooth_landmarks=True, enable_segmentation=False, refine_face_landmarks=False
            ),
            HOLISTIC,
        )
    if solution == "holistic_seg_refine":
        return (
            s.holistic.Holistic(
                static_image_mode=False,
                model_complexity=1,
                smooth_landmarks=True,
                enable_segmentation=True,
                smooth_segmentation=True,
                refine_face_landmarks=True,
            ),
            HOLISTIC + ["segmentation_mask"],
        )
    raise SystemExit(f"unknown solution {solution}")


sol, fields = make()
with sol:
    sol.process(frames[0])  # warm-up: the graph and the models
    found = [0] * len(fields)
    t = time.perf_counter()
    for f in frames:
        r = sol.process(f)
        for i, field in enumerate(fields):
            found[i] += getattr(r, field) is not None
    ms = (time.perf_counter() - t) * 1000 / len(frames)
print(json.dumps({"ms": ms, "found": found}))
