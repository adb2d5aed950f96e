#!/usr/bin/env python3
"""Reference for frameflow-bench's Tasks section: MediaPipe's own Tasks Python API
(mediapipe==0.10.21, mp.tasks.vision) on the raw RGB frames FrameFlow is fed, with the options
FrameFlow's rows use:

  face_detector       FaceDetector, defaults (min_detection_confidence 0.5, suppression 0.3)
  face_landmarker     FaceLandmarker, num_faces 1, output_face_blendshapes and
                      output_facial_transformation_matrixes on
  hand_landmarker     HandLandmarker, num_hands 2
  gesture_recognizer  GestureRecognizer, num_hands 2 (canned and custom classifiers of the bundle)
  pose_landmarker     PoseLandmarker, num_poses 1, output_segmentation_masks on
  image_segmenter     ImageSegmenter (selfie_segmenter.tflite), confidence and category masks

Image mode: one task, one untimed call on the first frame, then every frame `repeat` times,
timed. Video mode: a task made for the pass, one untimed call on the first frame at timestamp
0, then every frame k in order at timestamp (k + 1) × INTERVAL_MS, timed (the landmarkers
track from frame to frame, running their detector only when tracking is lost).

The thread count is set by the caller with CPU affinity (`taskset -c 0` for one core);
MediaPipe runs its models on its default XNNPACK delegate. Run with .build/venv-mediapipe/bin/python.

usage: reference_tasks.py TASK MODEL image FRAMES.rgb WxH[,WxH...] REPEAT
       reference_tasks.py TASK MODEL video FRAMES.rgb WxH INTERVAL_MS
  FRAMES.rgb: the frames' rgb24 bytes one after another, rows top to bottom, no padding.
  → one JSON line {"ms": milliseconds per frame, "found": faces / hands / poses / masks summed
    over the timed frames, "frames": timed frames}
"""
import json
import sys
import time

import mediapipe as mp
import numpy as np
from mediapipe.tasks.python import vision
from mediapipe.tasks.python.core.base_options import BaseOptions


def setup(task, model, mode):
    """The task object and a function (image, timestamp_ms or None) -> how many it found."""
    running = vision.RunningMode.IMAGE if mode == "image" else vision.RunningMode.VIDEO
    base = BaseOptions(model_asset_path=model)
    if task == "face_detector":
        t = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(base_options=base, running_mode=running))
        count, image_call, video_call = (lambda r: len(r.detections)), t.detect, t.detect_for_video
    elif task == "face_landmarker":
        t = vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
            base_options=base, running_mode=running, num_faces=1, output_face_blendshapes=True,
            output_facial_transformation_matrixes=True))
        count, image_call, video_call = (lambda r: len(r.face_landmarks)), t.detect, t.detect_for_video
    elif task == "hand_landmarker":
        t = vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
            base_options=base, running_mode=running, num_hands=2))
        count, image_call, video_call = (lambda r: len(r.hand_landmarks)), t.detect, t.detect_for_video
    elif task == "gesture_recognizer":
        t = vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(
            base_options=base, running_mode=running, num_hands=2))
        count, image_call, video_call = (lambda r: len(r.hand_landmarks)), t.recognize, t.recognize_for_video
    elif task == "pose_landmarker":
        t = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
            base_options=base, running_mode=running, num_poses=1, output_segmentation_masks=True))
        count, image_call, video_call = (lambda r: len(r.pose_landmarks)), t.detect, t.detect_for_video
    elif task == "image_segmenter":
        t = vision.ImageSegmenter.create_from_options(vision.ImageSegmenterOptions(
            base_options=base, running_mode=running, output_confidence_masks=True, output_category_mask=True))
        count, image_call, video_call = (lambda r: 1 if r.confidence_masks else 0), t.segment, t.segment_for_video
    else:
        raise SystemExit(f"unknown task {task}")
    if mode == "image":
        return t, lambda im, ms: count(image_call(im))
    return t, lambda im, ms: count(video_call(im, ms))


def frames_of(raw, sizes):
    data = np.fromfile(raw, np.uint8)
    out, at = [], 0
    for w, h in sizes:
        n = w * h * 3
        if at + n > len(data):
            raise SystemExit(f"{raw}: {len(data)} bytes, too few for the sizes given")
        out.append(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(data[at:at + n].reshape(h, w, 3))))
        at += n
    if at != len(data):
        raise SystemExit(f"{raw}: {len(data) - at} bytes left over after the sizes given")
    return out


def size(text):
    w, h = text.split("x")
    return int(w), int(h)


def main():
    if len(sys.argv) != 7:
        raise SystemExit(__doc__)
    task, model, mode, raw = sys.argv[1:5]
    if mode == "image":
        sizes, repeat = [size(s) for s in sys.argv[5].split(",")], int(sys.argv[6])
        images = frames_of(raw, sizes)
        t, run = setup(task, model, mode)
        with t:
            run(images[0], None)  # warm-up: the graph and the models
            start = time.perf_counter()
            found = sum(run(im, None) for _ in range(repeat) for im in images)
            ms = (time.perf_counter() - start) * 1000
        frames = repeat * len(images)
    elif mode == "video":
        w, h = size(sys.argv[5])
        interval = int(sys.argv[6])
        count = np.fromfile(raw, np.uint8).size // (w * h * 3)
        images = frames_of(raw, [(w, h)] * count)
        t, run = setup(task, model, mode)
        with t:
            run(images[0], 0)  # warm-up
            start = time.perf_counter()
            found = sum(run(im, (k + 1) * interval) for k, im in enumerate(images))
            ms = (time.perf_counter() - start) * 1000
        frames = len(images)
    else:
        raise SystemExit(f"unknown mode {mode}: image or video")
    print(json.dumps({"ms": ms / frames, "found": found, "frames": frames}))


if __name__ == "__main__":
    main()
