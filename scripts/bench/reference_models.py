#!/usr/bin/env python3
"""Reference latencies for frameflow-bench's model section: onnxruntime (1 and 2 intra-op
threads) and LiteRT, on the inputs of .build/fixtures/models/<name>.input_0.pb (MediaPipe's
landmark and palm models: .build/fixtures/litert_ops/<name>.image.input_0.pb; the pose and selfie
models: .build/fixtures/litert_pose_selfie/, the selfie ones with Convolution2DTransposeBias as
TRANSPOSE_CONV).

usage: reference_models.py MODELS_DIR ITERATIONS [NAMES]   → JSON {name: {"ort1": ms, "ort2": ms} or {"litert1": ms, "litert2": ms}}
"""
import json
import pathlib
import sys
from timing import median_ms

import numpy as np
from onnx import numpy_helper, TensorProto

d, iters = sys.argv[1], int(sys.argv[2])
# NAMES (comma-separated, e.g. the int8 models of make_int8_fixtures.py): only these onnxruntime rows.
only = sys.argv[3].split(",") if len(sys.argv) > 3 else None


def load_file(path):
    t = TensorProto()
    t.ParseFromString(open(path, "rb").read())
    return numpy_helper.to_array(t)


def load(name):
    return load_file(f"{d}/{name}.input_0.pb")


out = {}
import onnxruntime as ort
for name in only or ["pnet", "rnet", "onet", "ch_PP-OCRv4_det_infer", "yolov8n", "yolov5nu", "yolo11n"]:
    x = load(name)
    out[name] = {}
    for threads in (1, 2):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        s = ort.InferenceSession(f"{d}/{name}.onnx", so, providers=["CPUExecutionProvider"])
        feed = {s.get_inputs()[0].name: x}
        out[name][f"ort{threads}"] = median_ms(lambda: s.run(None, feed), iters)
if only:
    print(json.dumps(out))
    sys.exit(0)
from ai_edge_litert.interpreter import Interpreter

# MediaPipe's landmark and palm models, on the photo crop of make_litert_op_fixtures.py.
fixtures = pathlib.Path(__file__).resolve().parents[2] / ".build/fixtures"
tflite = {"face_detection_short_range": (f"{d}/face_detection_short_range.tflite", f"{d}/face_detection_short_range.input_0.pb")}
for name, folder in [("face_landmark", "face_landmark"), ("hand_landmark_full", "hand_landmark"), ("hand_landmark_lite", "hand_landmark"),
                     ("palm_detection_full", "palm_detection"), ("palm_detection_lite", "palm_detection")]:
    tflite[name] = (f"{fixtures}/mediapipe/mediapipe/modules/{folder}/{name}.tflite", f"{fixtures}/litert_ops/{name}.image.input_0.pb")
# MediaPipe's pose and selfie segmentation models on the photo crop of
# make_litert_pose_selfie_fixtures.py; the selfie models with their custom
# Convolution2DTransposeBias rewritten as the builtin TRANSPOSE_CONV (LiteRT lacks the custom op).
pose_selfie = fixtures / "litert_pose_selfie"
for name, folder in [("pose_detection", "pose_detection"), ("pose_landmark_full", "pose_landmark"), ("selfie_segmentation", "selfie_segmentation"),
                     ("selfie_segmentation_landscape", "selfie_segmentation")]:
    model = pose_selfie / f"{name}.builtin_transpose_conv.tflite" if name.startswith("selfie") else fixtures / f"mediapipe/mediapipe/modules/{folder}/{name}.tflite"
    tflite[name] = (str(model), str(pose_selfie / f"{name}.image.input_0.pb"))
for name, (model, inp) in tflite.items():
    if not (pathlib.Path(model).exists() and pathlib.Path(inp).exists()):
        continue
    x = load_file(inp)
    out[name] = {}
    for threads in (1, 2):
        tfl = Interpreter(model_path=model, num_threads=threads)
        tfl.allocate_tensors()
        i = tfl.get_input_details()[0]["index"]

        def run():
            tfl.set_tensor(i, x)
            tfl.invoke()

        out[name][f"litert{threads}"] = median_ms(run, iters)
print(json.dumps(out))
