#!/usr/bin/env python3
"""Reference latencies for frameflow-bench's model section: onnxruntime (1 and 2 intra-op
threads) and LiteRT, on the inputs of .build/fixtures/models/<name>.input_0.pb.

usage: reference_models.py MODELS_DIR ITERATIONS   → JSON {name: {"ort1": ms, "ort2": ms} or {"litert1": ms, "litert2": ms}}
"""
import json
import sys
from timing import median_ms

import numpy as np
from onnx import numpy_helper, TensorProto

d, iters = sys.argv[1], int(sys.argv[2])


def load(name):
    t = TensorProto()
    t.ParseFromString(open(f"{d}/{name}.input_0.pb", "rb").read())
    return numpy_helper.to_array(t)


out = {}
import onnxruntime as ort
for name in ["pnet", "rnet", "onet", "ch_PP-OCRv4_det_infer"]:
    x = load(name)
    out[name] = {}
    for threads in (1, 2):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        s = ort.InferenceSession(f"{d}/{name}.onnx", so, providers=["CPUExecutionProvider"])
        feed = {s.get_inputs()[0].name: x}
        out[name][f"ort{threads}"] = median_ms(lambda: s.run(None, feed), iters)
from ai_edge_litert.interpreter import Interpreter
x = load("face_detection_short_range")
out["face_detection_short_range"] = {}
for threads in (1, 2):
    tfl = Interpreter(model_path=f"{d}/face_detection_short_range.tflite", num_threads=threads)
    tfl.allocate_tensors()
    i = tfl.get_input_details()[0]["index"]

    def run():
        tfl.set_tensor(i, x)
        tfl.invoke()

    out["face_detection_short_range"][f"litert{threads}"] = median_ms(run, iters)
print(json.dumps(out))
