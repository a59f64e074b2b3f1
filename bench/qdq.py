#!/usr/bin/python3
"""Writes the QDQ (QuantizeLinear / DequantizeLinear) int8 form of a float ONNX model, as ONNX
Runtime's static quantizer writes it (its Python quantizer is not installable here), with its
own calibration, so tfcc and ONNX Runtime can run the same int8 file.

  /usr/bin/python3 bench/qdq.py FLOAT.onnx OUT.onnx --tfcc TFCC --tfcc-run TFCC_RUN
                               [--samples N] [--seed S] [--work DIR] [--weight-bits 7|8]

What it writes (ONNX Runtime's defaults for QDQ, static, per channel):
  - every Conv (grouped ones too), Gemm and MatMul whose weight is an initializer takes its
    activation input through QuantizeLinear -> DequantizeLinear (uint8, per tensor,
    asymmetric over the calibrated range widened to hold 0) and its weight as an int8
    initializer through DequantizeLinear (symmetric, per output channel: scale max|w| / 127,
    rounded half to even; with --weight-bits 7, max|w| / 63 and values in [-63, 63], what
    ONNX Runtime's quantizer writes with reduce_range=True, the setting its documentation
    advises for CPUs without VNNI); its bias as int32 (scale = input scale x weight scale, zero point
    0) through DequantizeLinear;
  - the op's output (after a Relu or Clip that is its only consumer) goes through
    QuantizeLinear -> DequantizeLinear too, so a chain of layers passes uint8 between them
    (a graph output stays float);
  - everything else (pooling, Add, Softmax, ...) stays float, between DequantizeLinear and
    QuantizeLinear.
Calibration: the float model with every such activation added as a graph output is compiled
with tfcc and run on N random inputs (uniform in [-1, 1], as the benchmark's inputs); each
tensor's range is its min and max over them. Which tool computes the ranges does not matter to
the comparison: both systems then run the same file.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

QUANTIZED_OPS = ("Conv", "Gemm", "MatMul")


def weight_axis(node):
    """The output-channel axis of the node's weight: O of Conv's OIHW, N of Gemm's B (axis 0
    when transB, else 1), N of MatMul's [K, N]."""
    if node.op_type == "Conv":
        return 0
    if node.op_type == "Gemm":
        trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
        return 0 if trans_b else 1
    return 1


def activation_output(node, consumers):
    """The tensor a quantized op's output is requantized at: its Relu / Clip when that is the
    output's only consumer, else the output itself."""
    out = node.output[0]
    users = consumers.get(out, [])
    if len(users) == 1 and users[0].op_type in ("Relu", "Clip"):
        return users[0].output[0]
    return out


def calibrate(model, tensors, args):
    """min / max of each tensor over the calibration runs (tfcc-compiled float model)."""
    os.makedirs(args.work, exist_ok=True)
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    names = [o.name for o in probe.graph.output]
    for t in tensors:
        if t not in names:
            probe.graph.output.append(helper.make_tensor_value_info(t, TensorProto.FLOAT, None))
    order = [o.name for o in probe.graph.output]
    probe_path = os.path.join(args.work, "probe.onnx")
    so = os.path.join(args.work, "probe.so")
    onnx.save(probe, probe_path)
    subprocess.run([args.tfcc, probe_path, "-o", so], check=True)
    rng = np.random.default_rng(args.seed)
    lo = {t: np.inf for t in tensors}
    hi = {t: -np.inf for t in tensors}
    init_names = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in init_names]
    for k in range(args.samples):
        files = []
        for j, i in enumerate(inputs):
            shape = [d.dim_value if d.dim_value > 0 else 1 for d in i.type.tensor_type.shape.dim]
            path = os.path.join(args.work, "in%d.npy" % j)
            np.save(path, rng.uniform(-1.0, 1.0, size=shape).astype(np.float32))
            files += ["--input", path]
        out_dir = os.path.join(args.work, "out")
        subprocess.run([args.tfcc_run, so] + files + ["--output-dir", out_dir], check=True,
                       stdout=subprocess.DEVNULL)
        for t in tensors:
            a = np.load(os.path.join(out_dir, "output_%d.npy" % order.index(t)))
            lo[t] = min(lo[t], float(a.min()))
            hi[t] = max(hi[t], float(a.max()))
    return lo, hi


def uint8_params(lo, hi):
    """Scale and zero point of a uint8 range widened to hold 0."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zero_point = int(np.clip(np.round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zero_point)


def quantize(model, lo, hi, targets, consumers, weight_bits=8):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    new_nodes = []
    qdq = {}  # float tensor -> its dequantized copy

    def const(name, array):
        g.initializer.append(numpy_helper.from_array(array, name))
        return name

    def dequantized(t):
        if t not in qdq:
            s, z = uint8_params(lo[t], hi[t])
            const(t + "_scale", np.array(s, np.float32))
            const(t + "_zero_point", np.array(z, np.uint8))
            new_nodes.append(helper.make_node(
                "QuantizeLinear", [t, t + "_scale", t + "_zero_point"], [t + "_q"]))
            new_nodes.append(helper.make_node(
                "DequantizeLinear", [t + "_q", t + "_scale", t + "_zero_point"], [t + "_dq"]))
            qdq[t] = t + "_dq"
        return qdq[t]

    graph_outputs = {o.name for o in g.output}
    # A graph output keeps its float value (and name): it is not requantized.
    out_tensors = {activation_output(n, consumers) for n in targets} - graph_outputs
    for node in g.node:
        if node in targets:
            x, w = node.input[0], node.input[1]
            # An input rewired to a producer's dequantized output already.
            x = next((t for t, dq in qdq.items() if dq == x), x)
            node.input[0] = dequantized(x)
            axis = weight_axis(node)
            wf = numpy_helper.to_array(inits[w]).astype(np.float32)
            reduce = tuple(d for d in range(wf.ndim) if d != axis)
            qmax = 2 ** (weight_bits - 1) - 1
            ws = (np.abs(wf).max(axis=reduce) / float(qmax)).astype(np.float32)
            ws[ws == 0] = 1.0
            shape = [1] * wf.ndim
            shape[axis] = -1
            wq = np.clip(np.round(wf / ws.reshape(shape)), -qmax, qmax).astype(np.int8)
            const(w + "_int8", wq)
            const(w + "_scale", ws)
            const(w + "_zero_point", np.zeros(ws.shape, np.int8))
            new_nodes.append(helper.make_node(
                "DequantizeLinear", [w + "_int8", w + "_scale", w + "_zero_point"],
                [w + "_dq"], axis=axis))
            node.input[1] = w + "_dq"
            bias_index = 2
            if len(node.input) > bias_index and node.input[bias_index] in inits:
                b = node.input[bias_index]
                bf = numpy_helper.to_array(inits[b]).astype(np.float32)
                xs, _ = uint8_params(lo[x], hi[x])
                bs = (xs * ws).astype(np.float32)
                if bf.shape == bs.shape:
                    bq = np.round(bf / bs).astype(np.int32)
                    const(b + "_int32", bq)
                    const(b + "_scale", bs)
                    const(b + "_zero_point", np.zeros(bs.shape, np.int32))
                    new_nodes.append(helper.make_node(
                        "DequantizeLinear", [b + "_int32", b + "_scale", b + "_zero_point"],
                        [b + "_dq"], axis=0))
                    node.input[bias_index] = b + "_dq"
        new_nodes.append(node)
        for o in node.output:
            if o in out_tensors:
                dq = dequantized(o)
                # Every later reader takes the dequantized copy.
                for later in g.node:
                    if later is node:
                        continue
                    for k, name in enumerate(later.input):
                        if name == o and later.op_type != "QuantizeLinear":
                            later.input[k] = dq
    del g.node[:]
    g.node.extend(new_nodes)
    used = {i for n in g.node for i in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("float_model")
    p.add_argument("out")
    p.add_argument("--tfcc", required=True)
    p.add_argument("--tfcc-run", required=True)
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--work", default=None)
    p.add_argument("--weight-bits", type=int, default=8, choices=[7, 8])
    args = p.parse_args()
    args.work = args.work or args.out + ".calibration"
    model = onnx.load(args.float_model)
    consumers = {}
    for n in model.graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    inits = {i.name for i in model.graph.initializer}
    targets = [n for n in model.graph.node
               if n.op_type in QUANTIZED_OPS and len(n.input) > 1 and n.input[1] in inits]
    if not targets:
        sys.exit("qdq.py: nothing to quantize in %s" % args.float_model)
    outputs = {o.name for o in model.graph.output}
    tensors = sorted({n.input[0] for n in targets} |
                     ({activation_output(n, consumers) for n in targets} - outputs))
    lo, hi = calibrate(model, tensors, args)
    model = quantize(model, lo, hi, targets, consumers, args.weight_bits)
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    print("qdq.py: %s: %d ops quantized, %d activations calibrated on %d inputs"
          % (args.out, len(targets), len(tensors), args.samples))


if __name__ == "__main__":
    main()
