#!/usr/bin/env python3
"""Writes small TFLite models for tfcc's tests: JSON in the shape of tfcc's
declaration of the format (compiler/tflite/tflite_format.fbs, whose field ids
are TFLite's), turned into a .tflite FlatBuffer by flatc.

  tflite_models.py NAME -o OUT.tflite [--schema FBS] [--flatc FLATC]
  tflite_models.py --list [ops|errors]

`ops` models cover each operator tfcc converts and are checked against
LiteRT (test/tflite/real/check.sh); `errors` models break one rule each and
are checked by test/tflite/errors.test. Weights come from a fixed seed.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.join(HERE, "..", "..", "compiler", "tflite", "tflite_format.fbs")

NP_TYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT32": np.int32,
            "INT64": np.int64, "INT8": np.int8, "UINT8": np.uint8, "BOOL": np.bool_}


class Model:
    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.tensors, self.buffers, self.ops = [], [{}], []
        self.codes, self.inputs, self.outputs = [], [], []
        self.version = 3

    def tensor(self, name, shape, type="FLOAT32", data=None, **extra):
        t = {"name": name, "shape": list(shape), "type": type, "buffer": 0}
        if data is not None:
            raw = np.array(data, dtype=NP_TYPES[type], order="C")
            assert list(raw.shape) == list(shape), (name, raw.shape, shape)
            self.buffers.append({"data": list(raw.tobytes())})
            t["buffer"] = len(self.buffers) - 1
        t.update(extra)
        self.tensors.append(t)
        return len(self.tensors) - 1

    def input(self, name, shape, type="FLOAT32"):
        i = self.tensor(name, shape, type)
        self.inputs.append(i)
        return i

    def const(self, name, data, type="FLOAT32"):
        data = np.asarray(data)
        return self.tensor(name, data.shape, type, data)

    def weights(self, name, shape, scale=0.5):
        return self.const(name, self.rng.uniform(-scale, scale, shape))

    def code(self, builtin, custom=None, version=1):
        entry = {"builtin_code": builtin, "version": version}
        if builtin != "CUSTOM" and builtin in DEPRECATED_CODES:
            entry["deprecated_builtin_code"] = DEPRECATED_CODES[builtin]
        if custom:
            entry["custom_code"] = custom
        if entry not in self.codes:
            self.codes.append(entry)
        return self.codes.index(entry)

    def op(self, builtin, inputs, out_name, out_shape, options=None, options_type=None,
           out_type="FLOAT32", custom=None, custom_options=None, version=1, outputs=None):
        """Adds an operator; returns its output tensor (or the `outputs` list given)."""
        if outputs is None:
            outputs = [self.tensor(out_name, out_shape, out_type)]
        op = {"opcode_index": self.code(builtin, custom, version), "inputs": list(inputs),
              "outputs": list(outputs)}
        if options is not None:
            op["builtin_options_type"] = options_type
            op["builtin_options"] = options
        if custom_options is not None:
            op["custom_options"] = list(custom_options)
        self.ops.append(op)
        return outputs[0] if len(outputs) == 1 else outputs

    def output(self, *tensors):
        self.outputs.extend(tensors)

    def json(self):
        return {"version": self.version, "operator_codes": self.codes,
                "subgraphs": [{"tensors": self.tensors, "inputs": self.inputs,
                               "outputs": self.outputs, "operators": self.ops,
                               "name": "main"}],
                "description": "tfcc test model", "buffers": self.buffers}


# Codes below 127 are also written to the deprecated byte field, as TFLite's
# converter does (readers of older schemas look only there).
DEPRECATED_CODES = {name: code for code, name in enumerate([
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE", "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED",
    "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION",
    "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1",
    "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF",
    "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE",
    "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
    "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST",
    "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER",
    "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV",
    "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT",
    "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK",
    "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN",
    "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE",
    "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS",
    "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK",
    "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND",
    "HARD_SWISH"])}


def conv_options(padding, stride, act="NONE", dilation=(1, 1)):
    return {"padding": padding, "stride_h": stride[0], "stride_w": stride[1],
            "fused_activation_function": act, "dilation_h_factor": dilation[0],
            "dilation_w_factor": dilation[1]}


# --- models for the numerical checks against LiteRT ------------------------------------------

def ops_conv():
    m = Model(1)
    x = m.input("x", [1, 9, 9, 3])
    y = m.op("CONV_2D", [x, m.weights("k1", [4, 3, 3, 3]), m.weights("b1", [4])], "conv_same_s2",
             [1, 5, 5, 4], conv_options("SAME", (2, 2), "RELU6"), "Conv2DOptions")
    z = m.op("CONV_2D", [x, m.weights("k2", [5, 3, 2, 3]), m.weights("b2", [5])],
             "conv_valid_dilated",
             [1, 5, 8, 5], conv_options("VALID", (1, 1), "NONE", (2, 1)), "Conv2DOptions")
    d = m.op("DEPTHWISE_CONV_2D", [x, m.weights("dk", [1, 3, 3, 6]), m.weights("db", [6])],
             "depthwise_x2", [1, 9, 9, 6],
             dict(conv_options("SAME", (1, 1), "RELU"), depth_multiplier=2),
             "DepthwiseConv2DOptions")
    d2 = m.op("DEPTHWISE_CONV_2D", [x, m.weights("dk2", [1, 2, 2, 3]), m.weights("db2", [3])],
              "depthwise_s2",
              [1, 4, 4, 3], dict(conv_options("VALID", (2, 2), "RELU_N1_TO_1"),
                                 depth_multiplier=1), "DepthwiseConv2DOptions")
    # Grouped: the filter reads 1 of the input's 3 channels per output channel group.
    g = m.op("CONV_2D", [x, m.weights("kg", [6, 3, 3, 1]), m.weights("bg", [6])], "conv_grouped",
             [1, 9, 9, 6], conv_options("SAME", (1, 1)), "Conv2DOptions", version=6)
    m.output(y, z, d, d2, g)
    return m


def ops_transpose_conv():
    m = Model(2)
    x = m.input("x", [1, 5, 5, 4])
    shape = m.const("shape", np.array([1, 10, 10, 5]), "INT32")
    y = m.op("TRANSPOSE_CONV", [shape, m.weights("k", [5, 3, 3, 4]), x, m.weights("b", [5])],
             "tconv_same_s2", [1, 10, 10, 5],
             {"padding": "SAME", "stride_h": 2, "stride_w": 2}, "TransposeConvOptions",
             version=3)
    shape2 = m.const("shape2", np.array([1, 11, 13, 3]), "INT32")
    z = m.op("TRANSPOSE_CONV", [shape2, m.weights("k2", [3, 3, 5, 4]), x, -1],
             "tconv_valid", [1, 11, 13, 3],
             {"padding": "VALID", "stride_h": 2, "stride_w": 2}, "TransposeConvOptions")
    # MediaPipe's transposed convolution with bias (custom options: padding SAME = 1,
    # stride_w, stride_h).
    c = m.op("CUSTOM", [x, m.weights("k3", [2, 2, 2, 4]), m.weights("b3", [2])],
             "mediapipe_tconv", [1, 10, 10, 2], custom="Convolution2DTransposeBias",
             custom_options=struct.pack("<3i", 1, 2, 2))
    m.output(y, z, c)
    return m


def ops_dense_pool():
    m = Model(3)
    x = m.input("x", [2, 3, 4])
    fc = m.op("FULLY_CONNECTED", [x, m.weights("w", [5, 4]), m.weights("b", [5])], "fc",
              [6, 5], {"fused_activation_function": "RELU6"}, "FullyConnectedOptions")
    fc2 = m.op("FULLY_CONNECTED", [x, m.weights("w2", [3, 12]), -1], "fc_flat", [2, 3],
               {"fused_activation_function": "NONE"}, "FullyConnectedOptions")
    img = m.input("img", [1, 7, 7, 3])
    avg = m.op("AVERAGE_POOL_2D", [img], "avg_same", [1, 4, 4, 3],
               {"padding": "SAME", "stride_h": 2, "stride_w": 2, "filter_height": 3,
                "filter_width": 3, "fused_activation_function": "NONE"}, "Pool2DOptions")
    mx = m.op("MAX_POOL_2D", [img], "max_valid", [1, 3, 2, 3],
              {"padding": "VALID", "stride_h": 2, "stride_w": 3, "filter_height": 2,
               "filter_width": 2, "fused_activation_function": "RELU"}, "Pool2DOptions")
    a = m.input("a", [2, 3, 4])
    bm = m.op("BATCH_MATMUL", [x, a], "batch_matmul_adj_y", [2, 3, 3],
              {"adj_x": False, "adj_y": True}, "BatchMatMulOptions")
    m.output(fc, fc2, avg, mx, bm)
    return m


def ops_elementwise():
    m = Model(4)
    a = m.input("a", [1, 4, 4, 3])
    b = m.input("b", [1, 4, 4, 3])
    c = m.weights("c", [3])
    s = [1, 4, 4, 3]
    outs = [
        m.op("ADD", [a, c], "add_bcast", s, {"fused_activation_function": "RELU_N1_TO_1"},
             "AddOptions"),
        m.op("SUB", [a, b], "sub", s, {"fused_activation_function": "RELU"}, "SubOptions"),
        m.op("MUL", [a, b], "mul", s, {"fused_activation_function": "NONE"}, "MulOptions"),
    ]
    e = m.op("EXP", [b], "exp", s)
    outs += [
        e,
        m.op("DIV", [a, e], "div", s, {"fused_activation_function": "NONE"}, "DivOptions"),
        m.op("MAXIMUM", [a, b], "maximum", s),
        m.op("MINIMUM", [a, c], "minimum", s),
        m.op("SQUARED_DIFFERENCE", [a, b], "squared_difference", s),
        m.op("LOGISTIC", [a], "logistic", s),
        m.op("TANH", [a], "tanh", s),
        m.op("HARD_SWISH", [a], "hard_swish", s),
        m.op("RELU", [a], "relu", s),
        m.op("RELU6", [m.op("MUL", [a, m.const("four", np.array([4.0]))], "a4", s,
                             {"fused_activation_function": "NONE"}, "MulOptions")],
             "relu6", s),
        m.op("RELU_N1_TO_1", [a], "relu_n1_to_1", s),
        m.op("NEG", [a], "neg", s),
        m.op("ABS", [a], "abs", s),
        m.op("SQUARE", [a], "square", s),
        m.op("SQRT", [e], "sqrt", s),
        m.op("RSQRT", [e], "rsqrt", s),
        m.op("LOG", [e], "log", s),
        m.op("FLOOR", [a], "floor", s),
        m.op("CEIL", [a], "ceil", s),
        m.op("SIN", [a], "sin", s),
        m.op("COS", [a], "cos", s),
        m.op("LEAKY_RELU", [a], "leaky_relu", s, {"alpha": 0.1}, "LeakyReluOptions"),
        m.op("PRELU", [a, m.weights("alpha", [1, 1, 3])], "prelu", s),
        m.op("GELU", [a], "gelu", s, {"approximate": False}, "GeluOptions"),
        m.op("GELU", [a], "gelu_tanh", s, {"approximate": True}, "GeluOptions"),
        m.op("POW", [e, b], "pow", s),
        m.op("ROUND", [m.op("MUL", [a, m.const("three", np.array([3.0]))], "a3", s,
                            {"fused_activation_function": "NONE"}, "MulOptions")], "round", s),
        m.op("SIGN", [a], "sign", s),
    ]
    m.output(*outs)
    return m


def ops_shapes():
    m = Model(5)
    x = m.input("x", [2, 6, 8, 3])
    i32 = lambda name, v: m.const(name, np.array(v), "INT32")
    outs = [
        m.op("SOFTMAX", [x], "softmax_beta", [2, 6, 8, 3], {"beta": 0.5}, "SoftmaxOptions"),
        m.op("LOG_SOFTMAX", [x], "log_softmax", [2, 6, 8, 3]),
        m.op("CONCATENATION", [x, x], "concat", [2, 6, 8, 6],
             {"axis": -1, "fused_activation_function": "NONE"}, "ConcatenationOptions"),
        m.op("PAD", [x, i32("pads", [[0, 0], [1, 2], [2, 1], [0, 0]])], "pad", [2, 9, 11, 3]),
        m.op("PADV2", [x, i32("pads2", [[0, 1], [0, 0], [1, 0], [0, 2]]),
                       m.const("pad_value", np.array(-1.5))], "padv2", [3, 6, 9, 5]),
        m.op("MIRROR_PAD", [x, i32("pads3", [[0, 0], [2, 1], [1, 3], [0, 0]])], "mirror_pad",
             [2, 9, 12, 3], {"mode": "REFLECT"}, "MirrorPadOptions"),
        m.op("RESHAPE", [x, i32("new_shape", [2, -1, 3])], "reshape", [2, 48, 3]),
        m.op("TRANSPOSE", [x, i32("perm", [0, 3, 1, 2])], "transpose", [2, 3, 6, 8]),
        m.op("EXPAND_DIMS", [x, i32("expand_axis", 1)], "expand_dims", [2, 1, 6, 8, 3]),
        m.op("STRIDED_SLICE", [x, i32("begin", [0, 1, -7, 0]), i32("end", [0, 5, 8, 2]),
                               i32("strides", [1, 2, 3, 1])], "strided_slice", [2, 2, 3, 2],
             {"begin_mask": 1, "end_mask": 1}, "StridedSliceOptions"),
        m.op("STRIDED_SLICE", [x, i32("begin2", [1, 0, 2, 0]), i32("end2", [2, 9, 100, -1]),
                               i32("strides2", [1, 1, 2, 1])], "strided_slice_shrink",
             [6, 3, 2], {"shrink_axis_mask": 1, "end_mask": 0}, "StridedSliceOptions"),
        m.op("SLICE", [x, i32("slice_begin", [0, 1, 2, 0]), i32("slice_size", [-1, 3, 2, 2])],
             "slice", [2, 3, 2, 2]),
        m.op("GATHER", [x, i32("indices", [[4, 0], [1, 1], [5, 3]])], "gather", [2, 3, 2, 8, 3],
             {"axis": 1}, "GatherOptions"),
        m.op("MEAN", [x, i32("mean_axes", [1, 2])], "mean", [2, 1, 1, 3], {"keep_dims": True},
             "ReducerOptions"),
        m.op("SUM", [x, i32("sum_axes", [-1])], "sum", [2, 6, 8], {"keep_dims": False},
             "ReducerOptions"),
        m.op("REDUCE_MAX", [x, i32("max_axes", [1])], "reduce_max", [2, 8, 3],
             {"keep_dims": False}, "ReducerOptions"),
        m.op("REDUCE_MIN", [x, i32("min_axes", [0, 3])], "reduce_min", [1, 6, 8, 1],
             {"keep_dims": True}, "ReducerOptions"),
    ]
    sq = m.op("SQUEEZE", [outs[-4]], "squeeze", [2, 3], {"squeeze_dims": [1, 2]},
              "SqueezeOptions")
    outs.append(sq)
    split = m.op("SPLIT", [i32("split_axis", 1), x], None, None, {"num_splits": 3},
                 "SplitOptions", outputs=[m.tensor("split_%d" % i, [2, 2, 8, 3]) for i in range(3)])
    splitv = m.op("SPLIT_V", [x, i32("size_splits", [1, -1, 2]), i32("splitv_axis", 2)], None,
                  None, {"num_splits": 3}, "SplitVOptions",
                  outputs=[m.tensor("splitv_%d" % i, [2, 6, n, 3]) for i, n in
                           enumerate([1, 5, 2])])
    pack = m.op("PACK", [split[0], split[2]], "pack", [2, 2, 2, 8, 3],
                {"values_count": 2, "axis": 1}, "PackOptions")
    unpack = m.op("UNPACK", [x], None, None, {"num": 2, "axis": 0}, "UnpackOptions",
                  outputs=[m.tensor("unpack_%d" % i, [6, 8, 3]) for i in range(2)])
    d2s = m.op("DEPTH_TO_SPACE", [m.op("CONCATENATION", [x, x, x, x], "x4", [2, 6, 8, 12],
                                       {"axis": 3}, "ConcatenationOptions")],
               "depth_to_space", [2, 12, 16, 3], {"block_size": 2}, "DepthToSpaceOptions")
    s2d = m.op("SPACE_TO_DEPTH", [x], "space_to_depth", [2, 3, 4, 12], {"block_size": 2},
               "SpaceToDepthOptions")
    cast = m.op("CAST", [x], "cast_to_int32", [2, 6, 8, 3], out_type="INT32")
    arg = m.op("ARG_MAX", [x, i32("argmax_axis", 3)], "arg_max", [2, 6, 8],
               {"output_type": "INT32"}, "ArgMaxOptions", out_type="INT32")
    m.output(*outs, *split, *splitv, pack, *unpack, d2s, s2d, cast, arg)
    return m


def ops_resize():
    m = Model(6)
    x = m.input("x", [1, 4, 5, 2])
    i32 = lambda name, v: m.const(name, np.array(v), "INT32")
    outs = [
        m.op("RESIZE_BILINEAR", [x, i32("s1", [8, 10])], "bilinear_half_pixel", [1, 8, 10, 2],
             {"align_corners": False, "half_pixel_centers": True}, "ResizeBilinearOptions"),
        m.op("RESIZE_BILINEAR", [x, i32("s2", [7, 3])], "bilinear", [1, 7, 3, 2],
             {"align_corners": False, "half_pixel_centers": False}, "ResizeBilinearOptions"),
        m.op("RESIZE_NEAREST_NEIGHBOR", [x, i32("s3", [9, 7])], "nearest_half_pixel",
             [1, 9, 7, 2], {"align_corners": False, "half_pixel_centers": True},
             "ResizeNearestNeighborOptions"),
        m.op("RESIZE_NEAREST_NEIGHBOR", [x, i32("s4", [3, 11])], "nearest", [1, 3, 11, 2],
             {"align_corners": False, "half_pixel_centers": False},
             "ResizeNearestNeighborOptions"),
    ]
    m.output(*outs)
    return m


def ops_dequantize():
    """Weights stored as float16 and as int8 / uint8 with scales, through DEQUANTIZE."""
    m = Model(7)
    x = m.input("x", [1, 6, 6, 3])
    k16 = m.const("k_f16", m.rng.uniform(-0.5, 0.5, [4, 3, 3, 3]), "FLOAT16")
    k = m.op("DEQUANTIZE", [k16], "k_dequantized", [4, 3, 3, 3], version=3)
    y = m.op("CONV_2D", [x, k, m.weights("b", [4])], "conv_f16_weights", [1, 6, 6, 4],
             conv_options("SAME", (1, 1)), "Conv2DOptions")
    q = m.tensor("w_i8", [5, 3], "INT8", m.rng.integers(-127, 128, [5, 3]),
                 quantization={"scale": [0.02], "zero_point": [3]})
    w = m.op("DEQUANTIZE", [q], "w_dequantized", [5, 3], version=2)
    u = m.tensor("w_u8", [5, 3], "UINT8", m.rng.integers(0, 256, [5, 3]),
                 quantization={"scale": [0.01], "zero_point": [128]})
    wu = m.op("DEQUANTIZE", [u], "wu_dequantized", [5, 3])
    v = m.input("v", [2, 3])
    fc = m.op("FULLY_CONNECTED", [v, w, -1], "fc_i8_weights", [2, 5],
              {"fused_activation_function": "NONE"}, "FullyConnectedOptions")
    fcu = m.op("FULLY_CONNECTED", [v, wu, -1], "fc_u8_weights", [2, 5],
               {"fused_activation_function": "NONE"}, "FullyConnectedOptions")
    m.output(y, fc, fcu)
    return m


def quantized(m, name, shape, scale, zero_point, type="INT8"):
    """An activation tensor quantized per tensor."""
    return m.tensor(name, shape, type,
                    quantization={"scale": [scale], "zero_point": [zero_point]})


def int8_weights(m, name, shape, axis, input_scale):
    """Symmetric int8 weights, one scale per index of `axis`, and the int32 bias of
    their output channels (scale input_scale * weight scale, as TFLite requires)."""
    w = m.rng.uniform(-0.5, 0.5, shape)
    scales = np.abs(w).max(axis=tuple(d for d in range(len(shape)) if d != axis)) / 127
    q = np.round(w / scales.reshape([-1 if d == axis else 1 for d in range(len(shape))]))
    wt = m.tensor(name, shape, "INT8", q.astype(np.int8),
                  quantization={"scale": scales.tolist(), "zero_point": [0] * len(scales),
                                "quantized_dimension": axis})
    bias_scales = (input_scale * scales).tolist()
    b = m.tensor(name + "_bias", [len(scales)], "INT32",
                 m.rng.integers(-2000, 2000, [len(scales)]),
                 quantization={"scale": bias_scales, "zero_point": [0] * len(scales)})
    return wt, b


def ops_int8():
    """A full-integer model as TFLite's converter writes one: float input and
    outputs, QUANTIZE / DEQUANTIZE at the edges, int8 activations (per-tensor scale
    and zero point), int8 weights per output channel, int32 biases."""
    m = Model(8)
    x = m.input("x", [1, 8, 8, 3])
    xq = m.op("QUANTIZE", [x], None, None, outputs=[quantized(m, "x_q", [1, 8, 8, 3], 0.02, -5)])
    w, b = int8_weights(m, "conv_w", [4, 3, 3, 3], 0, 0.02)
    c = m.op("CONV_2D", [xq, w, b], None, None, conv_options("SAME", (1, 1), "RELU"),
             "Conv2DOptions", outputs=[quantized(m, "conv_q", [1, 8, 8, 4], 0.03, -128)],
             version=3)
    dw, db = int8_weights(m, "dw_w", [1, 3, 3, 4], 3, 0.03)
    d = m.op("DEPTHWISE_CONV_2D", [c, dw, db], None, None,
             dict(conv_options("SAME", (2, 2)), depth_multiplier=1), "DepthwiseConv2DOptions",
             outputs=[quantized(m, "dw_q", [1, 4, 4, 4], 0.02, 3)], version=3)
    p = m.op("AVERAGE_POOL_2D", [c], None, None,
             {"padding": "VALID", "stride_h": 2, "stride_w": 2, "filter_height": 2,
              "filter_width": 2, "fused_activation_function": "NONE"}, "Pool2DOptions",
             outputs=[quantized(m, "pool_q", [1, 4, 4, 4], 0.03, -128)], version=2)
    a = m.op("ADD", [d, p], None, None, {"fused_activation_function": "NONE"}, "AddOptions",
             outputs=[quantized(m, "add_q", [1, 4, 4, 4], 0.04, -10)], version=2)
    r = m.op("RESHAPE", [a, m.const("flat", np.array([1, 64]), "INT32")], None, None,
             outputs=[quantized(m, "flat_q", [1, 64], 0.04, -10)])
    fw, fb = int8_weights(m, "fc_w", [5, 64], 0, 0.04)
    f = m.op("FULLY_CONNECTED", [r, fw, fb], None, None,
             {"fused_activation_function": "NONE"}, "FullyConnectedOptions",
             outputs=[quantized(m, "fc_q", [1, 5], 0.05, 2)], version=5)
    out_add = m.op("DEQUANTIZE", [a], "add", [1, 4, 4, 4], version=2)
    out_fc = m.op("DEQUANTIZE", [f], "fc", [1, 5], version=2)
    m.output(out_add, out_fc)
    return m


def ops_int8_head():
    """int8 LOGISTIC and SOFTMAX (outputs of scale 1/256, zero point -128, as TFLite
    requires) after an int8 dense layer."""
    m = Model(10)
    x = m.input("x", [2, 6])
    xq = m.op("QUANTIZE", [x], None, None, outputs=[quantized(m, "x_q", [2, 6], 0.03, 4)])
    fw, fb = int8_weights(m, "fc_w", [7, 6], 0, 0.03)
    f = m.op("FULLY_CONNECTED", [xq, fw, fb], None, None,
             {"fused_activation_function": "NONE"}, "FullyConnectedOptions",
             outputs=[quantized(m, "logits_q", [2, 7], 0.02, 1)], version=5)
    sig = m.op("LOGISTIC", [f], None, None,
               outputs=[quantized(m, "sigmoid_q", [2, 7], 1 / 256, -128)], version=2)
    soft = m.op("SOFTMAX", [f], None, None, {"beta": 1.0}, "SoftmaxOptions",
                outputs=[quantized(m, "softmax_q", [2, 7], 1 / 256, -128)], version=2)
    m.output(m.op("DEQUANTIZE", [sig], "sigmoid", [2, 7], version=2),
             m.op("DEQUANTIZE", [soft], "softmax", [2, 7], version=2))
    return m


OPS = {"conv": ops_conv, "transpose_conv": ops_transpose_conv, "dense_pool": ops_dense_pool,
       "elementwise": ops_elementwise, "shapes": ops_shapes, "resize": ops_resize,
       "dequantize": ops_dequantize, "int8": ops_int8, "int8_head": ops_int8_head}


# --- models that break one rule each (test/tflite/errors.test) --------------------------------

def one_conv(m=None):
    m = m or Model(9)
    x = m.input("x", [1, 4, 4, 2])
    y = m.op("CONV_2D", [x, m.weights("k", [3, 1, 1, 2]), -1], "y", [1, 4, 4, 3],
             conv_options("SAME", (1, 1)), "Conv2DOptions")
    m.output(y)
    return m, x, y


def err_unsupported_op():
    m = Model()
    x = m.input("x", [2, 3])
    m.output(m.op("LSTM", [x], "lstm_out", [2, 3]))
    return m


def err_custom_op():
    m = Model()
    x = m.input("x", [2, 3])
    m.output(m.op("CUSTOM", [x], "mystery_out", [2, 3], custom="Frobnicate"))
    return m


def err_options_type():
    m = Model()
    x = m.input("x", [1, 4, 4, 2])
    m.output(m.op("CONV_2D", [x, m.weights("k", [3, 1, 1, 2]), -1], "y", [1, 4, 4, 3],
                  {"padding": "SAME"}, "Pool2DOptions"))
    return m


def err_buffer_size():
    m, _, _ = one_conv()
    m.buffers[1]["data"] = m.buffers[1]["data"][:-4]
    return m


def err_tensor_index():
    m, _, _ = one_conv()
    m.ops[0]["inputs"][1] = 42
    return m


def err_declared_shape():
    m, _, y = one_conv()
    m.tensors[y]["shape"] = [1, 4, 4, 5]
    return m


def err_schema_version():
    m, _, _ = one_conv()
    m.version = 2
    return m


def err_float16_weights():
    m = Model()
    x = m.input("x", [1, 4, 4, 2])
    k = m.const("k_f16", np.ones([3, 1, 1, 2]), "FLOAT16")
    m.output(m.op("CONV_2D", [x, k, -1], "y", [1, 4, 4, 3], conv_options("SAME", (1, 1)),
                  "Conv2DOptions"))
    return m


def err_activation():
    m = Model()
    x = m.input("x", [1, 4, 4, 2])
    m.output(m.op("CONV_2D", [x, m.weights("k", [3, 1, 1, 2]), -1], "y", [1, 4, 4, 3],
                  conv_options("SAME", (1, 1), "SIGN_BIT"), "Conv2DOptions"))
    return m


def err_ellipsis():
    m = Model()
    x = m.input("x", [2, 3])
    i32 = lambda name, v: m.const(name, np.array(v), "INT32")
    m.output(m.op("STRIDED_SLICE", [x, i32("b", [0, 0]), i32("e", [1, 1]), i32("s", [1, 1])],
                  "sliced", [1, 1], {"ellipsis_mask": 1}, "StridedSliceOptions"))
    return m


def err_align_corners():
    m = Model()
    x = m.input("x", [1, 2, 2, 1])
    m.output(m.op("RESIZE_BILINEAR", [x, m.const("size", np.array([4, 4]), "INT32")],
                  "resized", [1, 4, 4, 1], {"align_corners": True}, "ResizeBilinearOptions"))
    return m


def err_symmetric_pad():
    m = Model()
    x = m.input("x", [3, 3])
    m.output(m.op("MIRROR_PAD", [x, m.const("p", np.array([[1, 1], [1, 1]]), "INT32")],
                  "padded", [5, 5], {"mode": "SYMMETRIC"}, "MirrorPadOptions"))
    return m


def err_runtime_dequantize():
    m = Model()
    x = m.input("x", [2, 3], "INT8")
    m.output(m.op("DEQUANTIZE", [x], "dq", [2, 3]))
    return m


def err_quantized_input():
    m = Model()
    x = quantized(m, "x_q", [2, 3], 0.1, 0)
    m.inputs.append(x)
    m.output(m.op("DEQUANTIZE", [x], "dq", [2, 3]))
    return m


def err_quantization_scales():
    m = Model()
    x = m.input("x", [2, 3])
    w = m.tensor("w", [4, 3], "INT8", np.ones([4, 3]),
                 quantization={"scale": [0.1, 0.2], "zero_point": [0, 0],
                               "quantized_dimension": 0})
    wf = m.op("DEQUANTIZE", [w], "w_f", [4, 3])
    m.output(m.op("FULLY_CONNECTED", [x, wf, -1], "y", [2, 4],
                  {"fused_activation_function": "NONE"}, "FullyConnectedOptions"))
    return m


def err_runtime_size():
    m = Model()
    x = m.input("x", [1, 2, 2, 1])
    s = m.input("size", [2], "INT32")
    m.output(m.op("RESIZE_BILINEAR", [x, s], "resized", [1, 4, 4, 1],
                  {"half_pixel_centers": True}, "ResizeBilinearOptions"))
    return m


def err_sparse():
    m, _, _ = one_conv()
    m.tensors[1]["sparsity"] = {}
    return m


def err_string_input():
    m = Model()
    x = m.input("text", [2], "STRING")
    m.output(x)
    return m


def err_undefined_input():
    m = Model()
    x = m.input("x", [2, 3])
    orphan = m.tensor("orphan", [2, 3])
    m.output(m.op("ADD", [x, orphan], "sum", [2, 3], {"fused_activation_function": "NONE"},
                  "AddOptions"))
    return m


def err_negative_dim():
    m, _, y = one_conv()
    m.tensors[y]["shape"] = [1, -4, 4, 3]
    return m


def err_huge_tensor():
    m, x, _ = one_conv()
    m.tensors[x]["shape"] = [1 << 20, 1 << 20, 1 << 20, 2]
    return m


def err_buffer_index():
    m, _, _ = one_conv()
    m.tensors[1]["buffer"] = 99
    return m


def err_buffer_offset():
    m, _, _ = one_conv()
    m.buffers[1] = {"offset": 1 << 40, "size": 24}
    return m


def err_no_subgraph():
    m, _, _ = one_conv()
    model = m.json()
    model["subgraphs"] = []
    m.json = lambda: model
    return m


def err_subgraph_index():
    m, _, _ = one_conv()
    m.outputs = [7]
    return m


def err_opcode_index():
    m, _, _ = one_conv()
    m.ops[0]["opcode_index"] = 5
    return m


def err_defined_twice():
    m = Model()
    x = m.input("x", [2, 3])
    y = m.op("RELU", [x], "y", [2, 3])
    m.op("TANH", [x], None, None, outputs=[y])
    m.output(y)
    return m


def err_scale_zero():
    m = Model()
    x = m.input("x", [2, 3])
    q = quantized(m, "x_q", [2, 3], 0.0, 0)
    m.op("QUANTIZE", [x], None, None, outputs=[q])
    m.output(m.op("DEQUANTIZE", [q], "y", [2, 3]))
    return m


def err_zero_point_weights():
    """A weight zero point of -2^63 (found by fuzz/tflite_import: the dequantized value
    overflowed int64)."""
    m = Model()
    x = m.input("x", [2, 3])
    w = m.tensor("w", [4, 3], "INT8", np.ones([4, 3]),
                 quantization={"scale": [0.1], "zero_point": [-2 ** 63]})
    wf = m.op("DEQUANTIZE", [w], "w_f", [4, 3])
    m.output(m.op("FULLY_CONNECTED", [x, wf, -1], "y", [2, 4],
                  {"fused_activation_function": "NONE"}, "FullyConnectedOptions"))
    return m


def err_zero_point_activation():
    """An int8 activation with zero point 200, outside int8 (it was wrapped modulo 256)."""
    m = Model()
    x = m.input("x", [2, 3])
    q = quantized(m, "x_q", [2, 3], 0.5, 200)
    m.op("QUANTIZE", [x], None, None, outputs=[q])
    m.output(m.op("DEQUANTIZE", [q], "y", [2, 3]))
    return m


ERRORS = {name[4:]: fn for name, fn in globals().items() if name.startswith("err_")}


def write(model, out, schema, flatc):
    with tempfile.TemporaryDirectory() as tmp:
        stem = os.path.splitext(os.path.basename(out))[0]
        path = os.path.join(tmp, stem + ".json")
        with open(path, "w") as f:
            json.dump(model.json(), f)
        subprocess.run([flatc, "-b", "--root-type", "tfcc.tflite.Model", "-o", tmp, schema,
                        path], check=True)
        with open(os.path.join(tmp, stem + ".tflite"), "rb") as f:
            data = f.read()
    with open(out, "wb") as f:
        f.write(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", nargs="?")
    parser.add_argument("-o", dest="out")
    parser.add_argument("--schema", default=DEFAULT_SCHEMA)
    parser.add_argument("--flatc", default="flatc")
    parser.add_argument("--list", choices=["ops", "errors"])
    args = parser.parse_args()
    if args.list:
        print(" ".join(OPS if args.list == "ops" else ERRORS))
        return 0
    table = dict(OPS, **ERRORS)
    if args.name not in table or not args.out:
        parser.error("give a model name (--list ops|errors) and -o OUT.tflite")
    write(table[args.name](), args.out, args.schema, args.flatc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
