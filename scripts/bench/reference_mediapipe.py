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

Run with the MediaPipe reference environment (.build/venv-mediapipe/bin/python); the thread
count is set by the caller with CPU affinity (`taskset -c 0` for one core). A tracking
solution is made anew for each pass, so each pass starts with a detection like FrameFlow's.

usage: reference_mediapipe.py SOLUTION FRAMES.rgb WIDTH HEIGHT
  → JSON {"fps": best of three passes, "found": frames with a face / hand / pose / mask}
"""
import json
import sys
import time

import mediapipe as mp
import numpy as np

solution, raw, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
frames = np.fromfile(raw, np.uint8).reshape(-1, h, w, 3)


def make():
    s = mp.solutions
    if solution == "face_detection":
        return s.face_detection.FaceDetection(model_selection=0, min_detection_confidence=0.5), "detections"
    if solution == "face_mesh":
        return s.face_mesh.FaceMesh(static_image_mode=False, max_num_faces=1, refine_landmarks=True), "multi_face_landmarks"
    if solution == "hands":
        return s.hands.Hands(static_image_mode=False, max_num_hands=2, model_complexity=1), "multi_hand_landmarks"
    if solution == "pose":
        return s.pose.Pose(static_image_mode=False, model_complexity=1, enable_segmentation=True), "pose_landmarks"
    if solution in ("selfie_segmentation_0", "selfie_segmentation_1"):
        return s.selfie_segmentation.SelfieSegmentation(model_selection=int(solution[-1])), "segmentation_mask"
    raise SystemExit(f"unknown solution {solution}")


best, found = 0.0, 0
for _ in range(3):
    sol, field = make()
    with sol:
        sol.process(frames[0])  # warm-up: the graph and the models
        t = time.perf_counter()
        found = sum(1 for f in frames if getattr(sol.process(f), field) is not None)
        best = max(best, len(frames) / (time.perf_counter() - t))
print(json.dumps({"fps": best, "found": found}))
