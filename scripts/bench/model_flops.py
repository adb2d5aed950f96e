#!/usr/bin/env python3
"""Arithmetic of frameflow-bench's models: floating-point operations per run (a multiply-add
counts two), in total and in the convolutions alone, from the model files' own shapes.

ONNX models: onnx's shape inference on the bench input's shape, then Conv and ConvTranspose
(output elements × input channels per group × kernel taps), Gemm and MatMul (M·N·K).
TFLite models: LiteRT's tensor and op details: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV (and
MediaPipe's Convolution2DTransposeBias), FULLY_CONNECTED. Element-wise ops are not counted:
the figures are the work a convolution kernel does, the measure of its rate against the peak.

usage: model_flops.py NAME=MODEL[=INPUT.pb] ...   → JSON {name: {"total": flops, "conv": flops}}
"""
import json
import sys

import numpy as np


def onnx_flops(path, input_pb):
    import onnx
    from onnx import TensorProto, shape_inference

    m = onnx.load(path)
    if input_pb:  # the bench input's shape in place of the model's free dimensions
        t = TensorProto()
        t.ParseFromString(open(input_pb, "rb").read())
        dims = m.graph.input[0].type.tensor_type.shape.dim
        for d, v in zip(dims, t.dims):
            d.ClearField("dim_param")
            d.dim_value = v
    g = shape_inference.infer_shapes(m).graph
    shapes = {}
    for v in list(g.value_info) + list(g.input) + list(g.output):
        t = v.type.tensor_type
        if t.HasField("shape"):
            shapes[v.name] = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    total = conv = 0
    for n in g.node:
        if n.op_type in ("Conv", "ConvTranspose"):
            w, y = shapes.get(n.input[1]), shapes.get(n.output[0])
            if not w or not y or None in w or None in y:
                raise SystemExit(f"{path}: no shape for {n.name}")
            group = next((a.i for a in n.attribute if a.name == "group"), 1)
            if n.op_type == "Conv":
                f = 2 * int(np.prod(y)) * w[1] * int(np.prod(w[2:]))
            else:  # every input element times its filter (cin × cout/group × taps)
                x = shapes[n.input[0]]
                f = 2 * int(np.prod(x)) * w[1] * int(np.prod(w[2:]))
            total += f
            conv += f
        elif n.op_type in ("Gemm", "MatMul"):
            a, y = shapes.get(n.input[0]), shapes.get(n.output[0])
            if a and y and None not in a and None not in y:
                k = a[-1] if not (n.op_type == "Gemm" and any(at.name == "transA" and at.i for at in n.attribute)) else a[0]
                total += 2 * int(np.prod(y)) * k
    return total, conv


def tflite_flops(path):
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_path=path)
    it.allocate_tensors()
    shape = {t["index"]: [int(v) for v in t["shape"]] for t in it.get_tensor_details()}
    total = conv = 0
    for op in it._get_ops_details():
        name, ins, outs = op["op_name"], list(op["inputs"]), list(op["outputs"])
        if not outs or outs[0] < 0:
            continue
        y = shape[outs[0]]
        if name == "CONV_2D":  # filter O×H×W×I
            w = shape[ins[1]]
            f = 2 * int(np.prod(y)) * int(np.prod(w[1:]))
        elif name == "DEPTHWISE_CONV_2D":  # filter 1×H×W×C·multiplier
            w = shape[ins[1]]
            f = 2 * int(np.prod(y)) * w[1] * w[2]
        elif name == "TRANSPOSE_CONV":  # inputs: output shape, filter O×H×W×I, input
            w, x = shape[ins[1]], shape[ins[2]]
            f = 2 * int(np.prod(x)) * w[0] * w[1] * w[2]
        elif name == "Convolution2DTransposeBias":  # inputs: input, filter O×H×W×I, bias
            x, w = shape[ins[0]], shape[ins[1]]
            f = 2 * int(np.prod(x)) * w[0] * w[1] * w[2]
        elif name == "FULLY_CONNECTED":  # weights O×I
            w = shape[ins[1]]
            total += 2 * int(np.prod(y)) * w[-1]
            continue
        else:
            continue
        total += f
        conv += f
    return total, conv


out = {}
for arg in sys.argv[1:]:
    name, path, *rest = arg.split("=")
    try:
        t, c = tflite_flops(path) if path.endswith(".tflite") else onnx_flops(path, rest[0] if rest else None)
        out[name] = {"total": int(t), "conv": int(c)}
    except Exception as e:  # a model this script cannot read: no row figure, said on stderr
        print(f"{name}: {e}", file=sys.stderr)
print(json.dumps(out))
