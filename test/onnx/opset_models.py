#!/usr/bin/python3
"""ONNX models of opsets 18 to 21 (the changed signatures and new ops), graphs whose
nodes are out of order, If and Loop, for test/onnx/opsets.test; written with onnx_proto.py.
Each model's expected outputs are computed here with NumPy from ONNX's operator
definitions, not by tfcc:

    opset_models.py OUT_DIR                    # writes the models, inputs, expected outputs
    opset_models.py --check WANT_DIR GOT_DIR   # compares GOT_DIR/output_N.npy

OUT_DIR/<model>.onnx, <model>_in<K>.npy (its inputs) and <model>_want<N>.npy (output N).
`--check` compares float outputs within a relative error of 1e-5 (of the largest
magnitude) and integer outputs exactly, and prints one line per output.
Models named bad_*.onnx are invalid or unsupported; the test expects their errors.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_proto import (BOOL, FLOAT, INT8, INT64, attribute_float, attribute_graph,  # noqa: E402
                        attribute_int, attribute_ints, attribute_string,
                        attribute_tensor, graph_proto,
                        model_proto, node_proto, tensor_proto, value_info)

rng = np.random.default_rng(18)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# --- references -----------------------------------------------------------------------

def resize_linear_axis(x, axis, out, scale, mode):
    """ONNX Resize, mode linear, along one axis: source coordinate by `mode`, the two
    neighbours clamped to the edge."""
    n = x.shape[axis]
    dst = np.arange(out, dtype=np.float64)
    if mode == "half_pixel":
        src = (dst + 0.5) / scale - 0.5
    elif mode == "half_pixel_symmetric":
        offset = n / 2 * (1 - out / (scale * n))
        src = offset + (dst + 0.5) / scale - 0.5
    else:
        raise ValueError(mode)
    lo = np.floor(src).astype(np.int64)
    ratio = src - lo
    a = np.take(x, np.clip(lo, 0, n - 1), axis=axis)
    b = np.take(x, np.clip(lo + 1, 0, n - 1), axis=axis)
    shape = [1] * x.ndim
    shape[axis] = out
    ratio = ratio.reshape(shape)
    return a * (1 - ratio) + b * ratio


def quantize(x, scale, lo, hi):
    return np.clip(np.rint(x.astype(np.float64) / scale), lo, hi)


def gelu(x, approximate):
    x = x.astype(np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def softplus(x):
    return np.logaddexp(0, x.astype(np.float64))


# --- models ---------------------------------------------------------------------------
# Each returns (model bytes, [inputs], [expected outputs]).

def reduce18():
    x = randn(2, 3, 4)
    nodes = [
        node_proto("ReduceMean", ["x", "axis1"], ["mean"], "mean", [attribute_int("keepdims", 0)]),
        node_proto("ReduceMax", ["x", "last"], ["max"], "max"),
        node_proto("ReduceL2", ["x", "outer"], ["l2"], "l2"),
        node_proto("ReduceSumSquare", ["x"], ["sumsq"], "sumsq"),
        node_proto("ReduceMin", ["x"], ["same"], "noop", [attribute_int("noop_with_empty_axes", 1)]),
    ]
    inits = [tensor_proto("axis1", np.array([1], np.int64)),
             tensor_proto("last", np.array([-1], np.int64)),
             tensor_proto("outer", np.array([0, 2], np.int64))]
    outs = ["mean", "max", "l2", "sumsq", "same"]
    x64 = x.astype(np.float64)
    want = [x64.mean(axis=1), x64.max(axis=-1, keepdims=True),
            np.sqrt((x64 ** 2).sum(axis=(0, 2), keepdims=True)),
            (x64 ** 2).sum(keepdims=True), x64]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 3, 4])],
                        [value_info(o, FLOAT) for o in outs], inits, 18)
    return model, [x], want


def split18():
    x = randn(2, 7)
    nodes = [node_proto("Split", ["x"], ["a", "b", "c"], "split",
                        [attribute_int("axis", 1), attribute_int("num_outputs", 3)])]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 7])],
                        [value_info(o, FLOAT) for o in "abc"], [], 18)
    return model, [x], [x[:, 0:3], x[:, 3:6], x[:, 6:7]]


def pad18():
    x = randn(1, 2, 3, 3)
    nodes = [node_proto("Pad", ["x", "pads", "value", "axes"], ["y"], "pad")]
    inits = [tensor_proto("pads", np.array([1, 0, 2, 1], np.int64)),
             tensor_proto("value", np.array(0.5, np.float32)),
             tensor_proto("axes", np.array([2, -1], np.int64))]
    want = np.pad(x, [(0, 0), (0, 0), (1, 2), (0, 1)], constant_values=0.5)
    model = model_proto(nodes, [value_info("x", FLOAT, [1, 2, 3, 3])],
                        [value_info("y", FLOAT)], inits, 18)
    return model, [x], [want]


def pad19_wrap():
    """Pad mode wrap (opset 19): circular, as NumPy's mode="wrap"."""
    x = randn(2, 3)
    nodes = [node_proto("Pad", ["x", "pads"], ["y"], "pad", [attribute_string("mode", "wrap")])]
    inits = [tensor_proto("pads", np.array([1, 2, 0, 1], np.int64))]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 3])], [value_info("y", FLOAT)],
                        inits, 19)
    return model, [x], [np.pad(x, [(1, 0), (2, 1)], mode="wrap")]


def resize18_axes():
    """Scales for H and W only (attribute 'axes')."""
    x = randn(1, 2, 3, 4)
    nodes = [node_proto("Resize", ["x", "", "scales"], ["y"], "resize",
                        [attribute_ints("axes", [2, 3]), attribute_string("mode", "linear")])]
    inits = [tensor_proto("scales", np.array([2.0, 1.5], np.float32))]
    want = resize_linear_axis(resize_linear_axis(x.astype(np.float64), 2, 6, 2.0, "half_pixel"),
                              3, 6, 1.5, "half_pixel")
    model = model_proto(nodes, [value_info("x", FLOAT, [1, 2, 3, 4])],
                        [value_info("y", FLOAT)], inits, 18)
    return model, [x], [want]


def resize18_policy():
    """sizes [8, 9] for a 4x6 image with keep_aspect_ratio_policy not_larger: one
    scale, min(8/4, 9/6) = 1.5, gives 6x9."""
    x = randn(1, 2, 4, 6)
    nodes = [node_proto("Resize", ["x", "", "", "sizes"], ["y"], "resize",
                        [attribute_ints("axes", [2, 3]), attribute_string("mode", "linear"),
                         attribute_string("keep_aspect_ratio_policy", "not_larger")])]
    inits = [tensor_proto("sizes", np.array([8, 9], np.int64))]
    want = resize_linear_axis(resize_linear_axis(x.astype(np.float64), 2, 6, 1.5, "half_pixel"),
                              3, 9, 1.5, "half_pixel")
    model = model_proto(nodes, [value_info("x", FLOAT, [1, 2, 4, 6])],
                        [value_info("y", FLOAT)], inits, 18)
    return model, [x], [want]


def resize19_symmetric(sizes=True):
    """half_pixel_symmetric (opset 19). With sizes, scale = out / in and it samples as
    half_pixel does (graph.resize); with scales whose output size is fractional (5 * 1.7
    = 8.5 -> 8) it centres the output elsewhere (the per-axis taps)."""
    x = randn(1, 1, 3, 5)
    attrs = [attribute_string("mode", "linear"),
             attribute_string("coordinate_transformation_mode", "half_pixel_symmetric")]
    if sizes:
        nodes = [node_proto("Resize", ["x", "", "", "sizes"], ["y"], "resize", attrs)]
        inits = [tensor_proto("sizes", np.array([1, 1, 6, 8], np.int64))]
        w_scale = 8 / 5
    else:
        nodes = [node_proto("Resize", ["x", "", "scales"], ["y"], "resize", attrs)]
        inits = [tensor_proto("scales", np.array([1, 1, 2.0, 1.7], np.float32))]
        w_scale = float(np.float32(1.7))
    want = resize_linear_axis(resize_linear_axis(x.astype(np.float64), 2, 6, 2.0,
                                                 "half_pixel_symmetric"),
                              3, 8, w_scale, "half_pixel_symmetric")
    model = model_proto(nodes, [value_info("x", FLOAT, [1, 1, 3, 5])],
                        [value_info("y", FLOAT)], inits, 19)
    return model, [x], [want]


def bad_resize_size(sizes, x_shape=(1, 1, 4, 4)):
    """A Resize to `sizes` (nearest): too large in all, or along one axis, or from an
    empty dimension (undefined behaviour before it was refused; fuzz/onnx_import)."""
    nodes = [node_proto("Resize", ["x", "", "", "sizes"], ["y"], "resize")]
    inits = [tensor_proto("sizes", np.array(sizes, np.int64))]
    model = model_proto(nodes, [value_info("x", FLOAT, list(x_shape))],
                        [value_info("y", FLOAT)], inits, 13)
    return model, [], []


def bad_resize_scale():
    """A scale of 1e30: the output size is past int64 (undefined behaviour in the
    float-to-integer conversion before it was checked; found by fuzz/onnx_import)."""
    nodes = [node_proto("Resize", ["x", "", "scales"], ["y"], "resize")]
    inits = [tensor_proto("scales", np.array([1, 1e30, 1, 1], np.float32))]
    model = model_proto(nodes, [value_info("x", FLOAT, [1, 1, 3, 5])],
                        [value_info("y", FLOAT)], inits, 13)
    return model, [], []


def bad_resize_antialias():
    """antialias = 1 on a shrinking linear resize (opset 18)."""
    nodes = [node_proto("Resize", ["x", "", "scales"], ["y"], "resize",
                        [attribute_string("mode", "linear"), attribute_int("antialias", 1)])]
    inits = [tensor_proto("scales", np.array([1, 1, 0.5, 0.5], np.float32))]
    model = model_proto(nodes, [value_info("x", FLOAT, [1, 1, 4, 4])],
                        [value_info("y", FLOAT)], inits, 18)
    return model, [], []


def avgpool19():
    """AveragePool with dilations (opset 19)."""
    x = randn(1, 2, 7, 7)
    nodes = [node_proto("AveragePool", ["x"], ["y"], "pool",
                        [attribute_ints("kernel_shape", [2, 2]),
                         attribute_ints("dilations", [2, 2])])]
    x64 = x.astype(np.float64)
    want = (x64[:, :, 0:5, 0:5] + x64[:, :, 2:7, 0:5] + x64[:, :, 0:5, 2:7] +
            x64[:, :, 2:7, 2:7]) / 4
    model = model_proto(nodes, [value_info("x", FLOAT, [1, 2, 7, 7])],
                        [value_info("y", FLOAT)], [], 19)
    return model, [x], [want]


def group_norm(opset):
    """GroupNormalization, 6 channels in 3 groups: scale and bias per group at opset 18,
    per channel from opset 21."""
    x = randn(2, 6, 2, 3)
    per = 3 if opset < 21 else 6
    scale = (rng.uniform(0.5, 2, per)).astype(np.float32)
    bias = randn(per)
    nodes = [node_proto("GroupNormalization", ["x", "scale", "bias"], ["y"], "gn",
                        [attribute_int("num_groups", 3), attribute_float("epsilon", 1e-3)])]
    inits = [tensor_proto("scale", scale), tensor_proto("bias", bias)]
    g = x.astype(np.float64).reshape(2, 3, -1)
    n = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + 1e-3)
    if opset < 21:
        want = (n * scale.reshape(3, 1) + bias.reshape(3, 1)).reshape(x.shape)
    else:
        want = n.reshape(x.shape) * scale.reshape(6, 1, 1) + bias.reshape(6, 1, 1)
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 6, 2, 3])], [value_info("y", FLOAT)],
                        inits, opset)
    return model, [x], [want]


def qdq21(output_dtype=INT8, zero_point=False):
    """QuantizeLinear with output_dtype (opset 21) and no zero point: int8."""
    x = (randn(2, 5) * 8).astype(np.float32)
    q_inputs = ["x", "s"] + (["zp"] if zero_point else [])
    nodes = [node_proto("QuantizeLinear", q_inputs, ["q"], "quantize",
                        [attribute_int("output_dtype", output_dtype)]),
             node_proto("DequantizeLinear", ["q", "s"], ["d"], "dequantize")]
    inits = [tensor_proto("s", np.array(0.1, np.float32))]
    if zero_point:
        inits.append(tensor_proto("zp", np.array(0, np.uint8)))
    q = quantize(x, np.float32(0.1), -128, 127)
    want = [q.astype(np.int8), (q.astype(np.float32) * np.float32(0.1)).astype(np.float32)]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 5])],
                        [value_info("q", INT8), value_info("d", FLOAT)], inits, 21)
    return model, [x], want


def activations20():
    """Gelu (opset 20) exact and tanh; Mish (opset 18)."""
    x = (randn(3, 8) * 3).astype(np.float32)
    nodes = [node_proto("Gelu", ["x"], ["exact"], "gelu"),
             node_proto("Gelu", ["x"], ["tanh"], "gelu_tanh",
                        [attribute_string("approximate", "tanh")]),
             node_proto("Mish", ["x"], ["mish"], "mish")]
    want = [gelu(x, "none"), gelu(x, "tanh"), x * np.tanh(softplus(x))]
    model = model_proto(nodes, [value_info("x", FLOAT, [3, 8])],
                        [value_info(o, FLOAT) for o in ["exact", "tanh", "mish"]], [], 20)
    return model, [x], want


def unsorted():
    """Nodes listed consumers first, as ONNX Runtime accepts: relu((x + 1) * 2)."""
    x = randn(2, 3)
    nodes = [node_proto("Relu", ["t1"], ["y"], "relu"),
             node_proto("Mul", ["t0", "two"], ["t1"], "mul"),
             node_proto("Add", ["x", "one"], ["t0"], "add")]
    inits = [tensor_proto("one", np.array(1.0, np.float32)),
             tensor_proto("two", np.array(2.0, np.float32))]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 3])], [value_info("y", FLOAT)],
                        inits, 17)
    return model, [x], [np.maximum((x.astype(np.float64) + 1) * 2, 0)]


def branches(then_out, else_out):
    """If branches over the outer x and initializer `two`: then x * 2 (or a constant
    [3] when then_out says so), else -x."""
    if then_out == "constant":
        then_nodes = [node_proto("Constant", [], ["t_out"], "then_const",
                                 [attribute_tensor("value",
                                                   np.array([1.0, 2.0, 3.0], np.float32))])]
    else:
        then_nodes = [node_proto("Mul", ["x", "two"], ["t_out"], "then_mul")]
    then_graph = graph_proto(then_nodes, [], [value_info("t_out", FLOAT)], [], "then")
    else_graph = graph_proto([node_proto("Neg", ["x"], ["e_out"], "else_neg")], [],
                             [value_info("e_out", FLOAT)], [], "else")
    return [attribute_graph("then_branch", then_graph),
            attribute_graph("else_branch", else_graph)]


def if_static():
    """The condition compares a static dimension (x's dim 1 == 3): known at import
    time, the then branch is taken."""
    x = randn(2, 3)
    nodes = [node_proto("Shape", ["x"], ["shape"], "shape"),
             node_proto("Gather", ["shape", "one_index"], ["dim1"], "dim1"),
             node_proto("Equal", ["dim1", "three"], ["cond"], "is_three"),
             node_proto("If", ["cond"], ["y"], "branch", branches("mul", "neg"))]
    inits = [tensor_proto("one_index", np.array(1, np.int64)),
             tensor_proto("three", np.array(3, np.int64)),
             tensor_proto("two", np.array(2.0, np.float32))]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 3])], [value_info("y", FLOAT)],
                        inits, 13)
    return model, [x], [x.astype(np.float64) * 2]


def if_runtime(cond):
    """The condition is a graph input: both branches run, the output selects."""
    x = randn(2, 3)
    nodes = [node_proto("If", ["c"], ["y"], "branch", branches("mul", "neg"))]
    inits = [tensor_proto("two", np.array(2.0, np.float32))]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 3]), value_info("c", BOOL, [1])],
                        [value_info("y", FLOAT)], inits, 13)
    want = x.astype(np.float64) * 2 if cond else -x.astype(np.float64)
    return model, [x, np.array([cond])], [want]


def bad_if_types():
    """A run-time condition whose branches yield [3] and [2, 3]."""
    nodes = [node_proto("If", ["c"], ["y"], "branch", branches("constant", "neg"))]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 3]), value_info("c", BOOL, [1])],
                        [value_info("y", FLOAT)], [], 13)
    return model, [], []


def bad_cycle():
    nodes = [node_proto("Neg", ["b"], ["a"], "first"), node_proto("Neg", ["a"], ["b"], "second"),
             node_proto("Add", ["x", "a"], ["y"], "out")]
    model = model_proto(nodes, [value_info("x", FLOAT, [2])], [value_info("y", FLOAT)], [], 13)
    return model, [], []


def bad_split18():
    """num_outputs 4 for a dimension of 5: parts of 2, the last one empty."""
    nodes = [node_proto("Split", ["x"], ["a", "b", "c", "d"], "split",
                        [attribute_int("num_outputs", 4)])]
    model = model_proto(nodes, [value_info("x", FLOAT, [5])],
                        [value_info(o, FLOAT) for o in "abcd"], [], 18)
    return model, [], []


def bad_qdq21():
    """output_dtype INT8 with a uint8 zero point."""
    model, _, _ = qdq21(INT8, zero_point=True)
    return model, [], []


def bad_opset22():
    nodes = [node_proto("Relu", ["x"], ["y"], "act")]
    model = model_proto(nodes, [value_info("x", FLOAT, [2])], [value_info("y", FLOAT)], [], 22)
    return model, [], []


def loop_body(nodes, inputs, outputs, inits=()):
    return [attribute_graph("body", graph_proto(nodes, inputs, outputs, list(inits), "body"))]


def loop_for(trip_count=3, runtime_m=False):
    """for i in range(3): y = y * 2 + i, with every y kept (a scan output)."""
    x = randn(2, 3)
    body = loop_body(
        [node_proto("Cast", ["i"], ["fi"], "to_float", [attribute_int("to", FLOAT)]),
         node_proto("Mul", ["y_in", "two_b"], ["y2"], "double"),
         node_proto("Add", ["y2", "fi"], ["y_out"], "plus_i"),
         node_proto("Identity", ["c_in"], ["c_out"], "keep_going"),
         node_proto("Identity", ["y_out"], ["s_out"], "scan")],
        [value_info("i", INT64, []), value_info("c_in", BOOL, []),
         value_info("y_in", FLOAT, [2, 3])],
        [value_info("c_out", BOOL, []), value_info("y_out", FLOAT, [2, 3]),
         value_info("s_out", FLOAT, [2, 3])],
        [tensor_proto("two_b", np.array(2.0, np.float32))])
    nodes = [node_proto("Loop", ["m", "", "x"], ["y", "ys"], "loop", body)]
    inputs = [value_info("x", FLOAT, [2, 3])]
    inits = []
    if runtime_m:
        inputs.append(value_info("m", INT64, []))
    else:
        inits.append(tensor_proto("m", np.array(trip_count, np.int64)))
    model = model_proto(nodes, inputs, [value_info("y", FLOAT), value_info("ys", FLOAT)],
                        inits, 13)
    y, ys = x.astype(np.float64), []
    for i in range(min(trip_count, 16)):
        y = y * 2 + i
        ys.append(y)
    return model, [x], [y, np.stack(ys)]


def bad_loop_nested(distinct_names=True):
    """A Loop of 100 iterations around one of 3000 (y = y + 1 each): 300,000 unrolled
    nodes, more than the importer expands. Without distinct_names the inner body's
    inputs reuse the outer body's names, which ONNX forbids."""
    def body(inner, p):  # names prefixed by p: a subgraph may not reuse outer names
        nodes = ([node_proto("Loop", ["inner_m", "", p + "y_in"], [p + "y_out"], "inner", inner)]
                 if inner else
                 [node_proto("Add", [p + "y_in", "one_f"], [p + "y_out"], "step")])
        nodes.append(node_proto("Identity", [p + "c_in"], [p + "c_out"], p + "keep_going"))
        return loop_body(nodes, [value_info(p + "i", INT64, []),
                                 value_info(p + "c_in", BOOL, []),
                                 value_info(p + "y_in", FLOAT, [2])],
                         [value_info(p + "c_out", BOOL, []),
                          value_info(p + "y_out", FLOAT, [2])])
    nodes = [node_proto("Loop", ["outer_m", "", "x"], ["y"], "outer",
                        body(body(None, "in_" if distinct_names else ""), ""))]
    inits = [tensor_proto("outer_m", np.array(100, np.int64)),
             tensor_proto("inner_m", np.array(3000, np.int64)),
             tensor_proto("one_f", np.array(1.0, np.float32))]
    model = model_proto(nodes, [value_info("x", FLOAT, [2])], [value_info("y", FLOAT)],
                        inits, 13)
    return model, [], []


def loop_while():
    """No trip count: the body's condition (i + 1 < 4, folded while importing) ends the
    loop after 4 iterations; y = x + 4 * 0.5."""
    x = randn(2, 3)
    body = loop_body(
        [node_proto("Add", ["i", "one"], ["next"], "next"),
         node_proto("Less", ["next", "four"], ["c_out"], "more"),
         node_proto("Add", ["y_in", "half"], ["y_out"], "step")],
        [value_info("i", INT64, []), value_info("c_in", BOOL, []),
         value_info("y_in", FLOAT, [2, 3])],
        [value_info("c_out", BOOL, []), value_info("y_out", FLOAT, [2, 3])])
    nodes = [node_proto("Loop", ["", "yes", "x"], ["y"], "loop", body)]
    inits = [tensor_proto("yes", np.array(True)), tensor_proto("one", np.array(1, np.int64)),
             tensor_proto("four", np.array(4, np.int64)),
             tensor_proto("half", np.array(0.5, np.float32))]
    model = model_proto(nodes, [value_info("x", FLOAT, [2, 3])], [value_info("y", FLOAT)],
                        inits, 13)
    return model, [x], [x.astype(np.float64) + 2]


MODELS = {
    "reduce18": reduce18, "split18": split18, "pad18": pad18, "pad19_wrap": pad19_wrap,
    "resize18_axes": resize18_axes, "resize18_policy": resize18_policy,
    "resize19_symmetric": resize19_symmetric, "avgpool19": avgpool19, "qdq21": qdq21,
    "activations20": activations20, "group_norm18": lambda: group_norm(18),
    "group_norm21": lambda: group_norm(21), "unsorted": unsorted, "if_static": if_static,
    "if_then": lambda: if_runtime(True), "if_else": lambda: if_runtime(False),
    "loop_for": loop_for, "loop_while": loop_while,
    "bad_loop_runtime": lambda: loop_for(runtime_m=True),
    "bad_loop_huge": lambda: loop_for(trip_count=1_000_000_000),
    "bad_loop_nested": bad_loop_nested,
    "bad_loop_shadow": lambda: bad_loop_nested(distinct_names=False),
    "resize19_symmetric_scales": lambda: resize19_symmetric(sizes=False),
    "bad_resize_antialias": bad_resize_antialias,
    "bad_resize_scale": bad_resize_scale,
    "bad_resize_huge": lambda: bad_resize_size([1, 1, 1 << 30, 1 << 30]),
    "bad_resize_long": lambda: bad_resize_size([1, 1, 1, 1 << 21]),
    "bad_resize_empty": lambda: bad_resize_size([1, 127, 3, 5], (1, 0, 3, 5)),
    "bad_if_types": bad_if_types, "bad_cycle": bad_cycle, "bad_split18": bad_split18,
    "bad_qdq21": bad_qdq21, "bad_opset22": bad_opset22,
}


def write(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, make in MODELS.items():
        model, inputs, wants = make()
        with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
            f.write(model)
        for k, x in enumerate(inputs):
            np.save(os.path.join(out_dir, f"{name}_in{k}.npy"), x)
        for n, w in enumerate(wants):
            if w.dtype == np.float64:
                w = w.astype(np.float32)
            np.save(os.path.join(out_dir, f"{name}_want{n}.npy"), w)


def check(want_prefix, got_dir):
    """Compares got_dir/output_N.npy with <want_prefix>_wantN.npy for every N."""
    n, failed = 0, False
    while os.path.exists(f"{want_prefix}_want{n}.npy"):
        want = np.load(f"{want_prefix}_want{n}.npy")
        got = np.load(os.path.join(got_dir, f"output_{n}.npy"))
        label = f"output {n} {got.dtype} {list(got.shape)}"
        if got.shape != want.shape or got.dtype != want.dtype:
            print(f"{label}: expected {want.dtype} {list(want.shape)}")
            failed = True
        elif want.dtype.kind == "f":
            err = np.max(np.abs(got.astype(np.float64) - want)) / max(np.max(np.abs(want)), 1e-30)
            ok = err <= 1e-5
            failed |= not ok
            print(f"{label}: {'close' if ok else 'DIFFERS'} (relative error {err:.1e})")
        else:
            ok = np.array_equal(got, want)
            failed |= not ok
            print(f"{label}: {'exact' if ok else 'DIFFERS'}")
        n += 1
    if n == 0:
        sys.exit(f"no {want_prefix}_want0.npy")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        write(sys.argv[1])
    else:
        sys.exit(__doc__)
