#!/usr/bin/env python3
"""Reference for frameflow-bench's batched-BlazeFace row: LiteRT (one thread) running the model
with its input resized to [N, 128, 128, 3], per frame (the batch's median time over N).

usage: reference_batch.py MODEL INPUT.pb ITERATIONS N [N ...]
  → JSON {"N": milliseconds per frame, ...}
"""
import json
import os
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter
from onnx import numpy_helper, TensorProto  # the fixture is a TensorProto

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import median_ms  # noqa: E402

model_path, input_path, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
proto = TensorProto()
with open(input_path, "rb") as f:
    proto.ParseFromString(f.read())
image = numpy_helper.to_array(proto).astype(np.float32)
out = {}
for n in (int(a) for a in sys.argv[4:]):
    it = Interpreter(model_path=model_path, num_threads=1)
    index = it.get_input_details()[0]["index"]
    it.resize_tensor_input(index, [n] + list(image.shape[1:]))
    it.allocate_tensors()
    it.set_tensor(index, np.repeat(image, n, axis=0))
    out[str(n)] = median_ms(it.invoke, iters) / n
print(json.dumps(out))
