#!/usr/bin/python3
"""float16 / bfloat16 ONNX models (test/onnx/half-precision.test) and their NumPy oracle.

    half_models.py write DIR   writes DIR/half.onnx, DIR/x.npy (float16) and
                               DIR/expected_{y,z}.npy
    half_models.py check DIR OUT_DIR
                               compares OUT_DIR/output_{0,1}.npy with the expectation
    half_models.py to-half SRC.onnx DST.onnx
                               SRC with every float initializer, Constant, Cast target,
                               input and output in FLOAT16 (what float16 converters of
                               float models write)

half.onnx: x FLOAT16 [2, 8]; W FLOAT16 [8, 4] as raw_data, B FLOAT16 [4] as int32_data (the
spec's typed form: one 16-bit pattern per int32), C a Constant node BFLOAT16 [4] as raw_data;
h = Relu(MatMul(x, W) + B) in float16; y = Cast(h, FLOAT) + Cast(C, FLOAT) (float32
output); z = Cast(y, FLOAT16) (float16 output). The oracle computes each op exactly (double)
and rounds its result once to the op's type, as ONNX's semantics and tfcc's say; a matmul
accumulated in float32 may round to the neighbouring float16 value, hence one float16 ulp of
tolerance. A decoding error (bytes, typed storage, the bfloat16 layout) is far larger.
"""
import sys

import numpy as np
import onnx
import onnx.numpy_helper
from onnx import TensorProto, helper


def bf16_bits(values):
    """float32 -> bfloat16 bit patterns, to nearest even."""
    u = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def data():
    rng = np.random.RandomState(3)
    x = rng.uniform(-2, 2, (2, 8)).astype(np.float16)
    w = rng.uniform(-1, 1, (8, 4)).astype(np.float16)
    b = rng.uniform(-1, 1, 4).astype(np.float16)
    c = bf16_bits(rng.uniform(-3, 3, 4))
    return x, w, b, c


def write(d):
    x, w, b, c = data()
    wt = helper.make_tensor("W", TensorProto.FLOAT16, w.shape, w.tobytes(), raw=True)
    bt = onnx.TensorProto(name="B", data_type=TensorProto.FLOAT16, dims=b.shape)
    bt.int32_data.extend(int(v) for v in b.view(np.uint16))
    ct = helper.make_tensor("C", TensorProto.BFLOAT16, c.shape, c.tobytes(), raw=True)
    nodes = [
        helper.make_node("Constant", [], ["c"], name="c_bf16", value=ct),
        helper.make_node("MatMul", ["x", "W"], ["m"], name="matmul"),
        helper.make_node("Add", ["m", "B"], ["a"], name="add_bias"),
        helper.make_node("Relu", ["a"], ["h"], name="relu"),
        helper.make_node("Cast", ["h"], ["h32"], name="to_float", to=TensorProto.FLOAT),
        helper.make_node("Cast", ["c"], ["c32"], name="c_to_float", to=TensorProto.FLOAT),
        helper.make_node("Add", ["h32", "c32"], ["y"], name="add_c"),
        helper.make_node("Cast", ["y"], ["z"], name="to_half", to=TensorProto.FLOAT16),
    ]
    graph = helper.make_graph(
        nodes, "half", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT16, [2, 4])],
        [wt, bt])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, f"{d}/half.onnx")
    np.save(f"{d}/x.npy", x)
    m = (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float16)
    h = np.maximum((m.astype(np.float64) + b).astype(np.float16), 0)
    y = (h.astype(np.float64) + bf16_values(c)).astype(np.float32)
    np.save(f"{d}/expected_y.npy", y)
    np.save(f"{d}/expected_z.npy", y.astype(np.float16))


def check(d, out):
    status = 0
    for i, name in enumerate("yz"):
        want = np.load(f"{d}/expected_{name}.npy")
        got = np.load(f"{out}/output_{i}.npy")
        if got.dtype != want.dtype or got.shape != want.shape:
            print(f"FAIL {name}: {got.dtype} {got.shape}, expected {want.dtype} {want.shape}")
            status = 1
            continue
        # one float16 ulp of each value (2^-10 relative), and float16's smallest normal
        tol = np.maximum(np.abs(want.astype(np.float64)) * 2.0**-10, 2.0**-14)
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        ok = bool(np.all(err <= tol))
        exact = int(np.sum(got == want))
        print(f"{'ok  ' if ok else 'FAIL'} {name} {got.dtype}: {exact} of {want.size} equal, "
              f"max error {err.max():.3g} (tolerance one float16 ulp)")
        status |= not ok
    return status


def to_half(src, dst):
    model = onnx.load(src)
    g = model.graph
    for i, init in enumerate(g.initializer):
        if init.data_type == TensorProto.FLOAT:
            a = onnx.numpy_helper.to_array(init).astype(np.float16)
            g.initializer[i].CopyFrom(onnx.numpy_helper.from_array(a, init.name))
    for node in g.node:
        for attr in node.attribute:
            if node.op_type == "Constant" and attr.name == "value" and \
                    attr.t.data_type == TensorProto.FLOAT:
                a = onnx.numpy_helper.to_array(attr.t).astype(np.float16)
                attr.t.CopyFrom(onnx.numpy_helper.from_array(a, attr.t.name))
            if node.op_type == "Cast" and attr.name == "to" and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.FLOAT16
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    onnx.save(model, dst)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "to-half":
        to_half(sys.argv[2], sys.argv[3])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
