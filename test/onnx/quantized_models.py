#!/usr/bin/python3
"""Quantized ONNX models for test/onnx/quantization.test, written with
onnx_proto.py, and their expected outputs computed here with NumPy from ONNX's
formulas (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear), not by
tfcc.

`quantized_models.py DIR` writes DIR/qdq.onnx, its inputs DIR/in_*.npy and
expected outputs DIR/want_*.npy, and the invalid models DIR/bad_*.onnx.
`quantized_models.py --check WANT_DIR GOT_DIR` compares output_N.npy with
want_N.npy exactly (integers and f32 alike); `--close A.npy B.npy` within a
relative error of 1e-5 (of B's largest magnitude); `--requantized A.npy
B.npy STEP` within one quantization step STEP everywhere and equal in at
least 99% of the elements (a float rounding may move a value on a .5
boundary by one step).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_proto import (FLOAT, INT8, INT32, UINT8, attribute_int,  # noqa: E402
                        attribute_ints, model_proto, node_proto, tensor_proto,
                        value_info)

DW_CHANNELS = 19  # two vectors of 8 and a tail at AVX2, one of 16 at AVX-512

SCALE = np.float32(0.05)
AXIS_SCALE = np.array([0.02, 0.1, 0.5], np.float32)
AXIS_ZP = np.array([-10, 0, 3], np.int8)


def quantize(x, scale, zp, lo, hi):
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.rint(x / scale).astype(np.float64) + zp
    return np.where(np.isnan(y), lo, np.clip(y, lo, hi))


def dequantize(q, scale, zp):
    return ((q.astype(np.float32) - np.float32(zp)) * scale).astype(np.float32)


def dynamic_quantize(x):
    lo = np.minimum(np.float32(0), x.min())
    hi = np.maximum(np.float32(0), x.max())
    scale = np.float32((hi - lo) / np.float32(255))
    zp = quantize(-lo, scale, 0, 0, 255)
    return quantize(x, scale, zp, 0, 255).astype(np.uint8), scale, np.uint8(zp)


def write_qdq(d):
    nodes = [
        node_proto("QuantizeLinear", ["x", "s", "zp_u8"], ["q1"], "q_tensor"),
        node_proto("DequantizeLinear", ["q1", "s", "zp_u8"], ["d1"], "dq_tensor"),
        node_proto("QuantizeLinear", ["x", "sa", "zpa"], ["q2"], "q_axis",
                   [attribute_int("axis", 1)]),
        node_proto("DequantizeLinear", ["q2", "sa", "zpa"], ["d2"], "dq_axis",
                   [attribute_int("axis", 1)]),
        # A [1] scale and zero point: per tensor, as ONNX's reference reads it.
        node_proto("DequantizeLinear", ["u", "s1", "zp1"], ["d3"], "dq_input"),
        node_proto("DynamicQuantizeLinear", ["x"], ["y", "ys", "yzp"], "dynamic"),
        # No zero point: uint8 with zero point 0.
        node_proto("QuantizeLinear", ["x", "s"], ["q4"], "q_default"),
    ]
    inits = [
        tensor_proto("s", np.array(SCALE)),
        tensor_proto("zp_u8", np.array(128, np.uint8)),
        tensor_proto("sa", AXIS_SCALE),
        tensor_proto("zpa", AXIS_ZP),
        tensor_proto("s1", np.array([0.25], np.float32)),
        tensor_proto("zp1", np.array([7], np.uint8)),
    ]
    inputs = [value_info("x", FLOAT, ["N", 3, 4, 4]), value_info("u", UINT8, ["N", 8])]
    outputs = [value_info("q1", UINT8), value_info("d1", FLOAT),
               value_info("q2", INT8), value_info("d2", FLOAT), value_info("d3", FLOAT),
               value_info("y", UINT8), value_info("ys", FLOAT), value_info("yzp", UINT8),
               value_info("q4", UINT8)]
    with open(f"{d}/qdq.onnx", "wb") as f:
        f.write(model_proto(nodes, inputs, outputs, inits, 13))

    rng = np.random.default_rng(3)
    x = rng.uniform(-8, 8, size=(2, 3, 4, 4)).astype(np.float32)
    x[0, 0, 0] = [0.025, 0.075, -0.025, 100.0]   # ties of 0.05, saturation
    x[0, 1, 0] = [0.05, 0.15, -0.25, -1000.0]    # ties of 0.1
    u = rng.integers(0, 256, size=(2, 8)).astype(np.uint8)
    np.save(f"{d}/in_x.npy", x)
    np.save(f"{d}/in_u.npy", u)
    q1 = quantize(x, SCALE, 128, 0, 255).astype(np.uint8)
    sa, zpa = AXIS_SCALE.reshape(3, 1, 1), AXIS_ZP.astype(np.float64).reshape(3, 1, 1)
    q2 = quantize(x, sa, zpa, -128, 127).astype(np.int8)
    y, ys, yzp = dynamic_quantize(x)
    want = [q1, dequantize(q1, SCALE, 128), q2, dequantize(q2, sa, zpa.astype(np.float32)),
            dequantize(u, np.float32(0.25), 7), y, np.array(ys, np.float32),
            np.array(yzp, np.uint8), quantize(x, SCALE, 0, 0, 255).astype(np.uint8)]
    for i, w in enumerate(want):
        np.save(f"{d}/want_{i}.npy", w)


def write_qdq_conv(d):
    """A QDQ convolution as ONNX Runtime's quantizer writes it (uint8 input
    per tensor, int8 weights per output channel through DequantizeLinear on
    axis 0, a float bias), and the same convolution in float with the input
    and weights fake-quantized here in NumPy."""
    rng = np.random.default_rng(11)
    w = rng.normal(0, 0.5, (4, 3, 3, 3)).astype(np.float32)
    ws = (np.abs(w).reshape(4, -1).max(axis=1) / 127).astype(np.float32)
    wq = np.clip(np.rint(w / ws.reshape(4, 1, 1, 1)), -127, 127).astype(np.int8)
    bias = rng.normal(0, 0.1, (4,)).astype(np.float32)
    xs, xz = np.float32(0.02), np.uint8(120)
    nodes = [
        node_proto("QuantizeLinear", ["x", "xs", "xz"], ["xq"], "x_q"),
        node_proto("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], "x_dq"),
        node_proto("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], "w_dq",
                   [attribute_int("axis", 0)]),
        node_proto("Conv", ["xd", "wd", "b"], ["y"], "conv",
                   [attribute_ints("pads", [1, 1, 1, 1])]),
    ]
    inits = [tensor_proto("xs", np.array(xs)), tensor_proto("xz", np.array(xz)),
             tensor_proto("wq", wq), tensor_proto("ws", ws),
             tensor_proto("wz", np.zeros(4, np.int8)), tensor_proto("b", bias)]
    inputs = [value_info("x", FLOAT, ["N", 3, 6, 6])]
    with open(f"{d}/qdq_conv.onnx", "wb") as f:
        f.write(model_proto(nodes, inputs, [value_info("y", FLOAT)], inits, 13))
    x = rng.uniform(-2, 2, (2, 3, 6, 6)).astype(np.float32)
    np.save(f"{d}/conv_x.npy", x)
    xd = dequantize(quantize(x, xs, 120, 0, 255).astype(np.uint8), xs, 120)
    np.save(f"{d}/conv_xd.npy", xd)
    wd = (wq.astype(np.float32) * ws.reshape(4, 1, 1, 1)).astype(np.float32)
    ref = [node_proto("Conv", ["x", "w", "b"], ["y"], "conv",
                      [attribute_ints("pads", [1, 1, 1, 1])])]
    with open(f"{d}/conv_ref.onnx", "wb") as f:
        f.write(model_proto(ref, inputs, [value_info("y", FLOAT)],
                            [tensor_proto("w", wd), tensor_proto("b", bias)], 13))


def depthwise(xq, xz, wq, stride, pad, dilation):
    """The integer depthwise convolution of NCHW uint8 data (zero point xz,
    padding a real 0) by [C, 1, kh, kw] int8 weights, in int64."""
    n, c, h, w = xq.shape
    kh, kw = wq.shape[2:]
    x = np.pad(xq.astype(np.int64) - int(xz), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (w + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    acc = np.zeros((n, c, oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            tap = x[:, :, i * dilation:i * dilation + (oh - 1) * stride + 1:stride,
                    j * dilation:j * dilation + (ow - 1) * stride + 1:stride]
            acc += tap * wq[:, 0, i, j].astype(np.int64).reshape(1, c, 1, 1)
    return acc


def write_qdq_depthwise(d):
    """Two QDQ depthwise convolutions (Conv with group = C) of one uint8
    input, as ONNX Runtime's quantizer writes MobileNet's: a 3x3 one with
    stride 2, bias and Clip(0, 6), requantized (QuantizeLinear, then
    DequantizeLinear to a float output), and a 5x5 one with dilation 2 whose
    float result is the output. Expected outputs from the integers in NumPy:
    acc exact, v = acc * s_x * s_w + bias in float64, quantized with rint
    (half to even)."""
    rng = np.random.default_rng(12)
    c = DW_CHANNELS
    xs, xz = np.float32(0.03), 117
    nodes = [
        node_proto("QuantizeLinear", ["x", "xs", "xz"], ["xq"], "x_q"),
        node_proto("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], "x_dq")]
    inits = [tensor_proto("xs", np.array(xs)), tensor_proto("xz", np.array(np.uint8(xz)))]
    x = rng.uniform(-3.5, 4, (2, c, 10, 13)).astype(np.float32)
    xq = quantize(x, xs, xz, 0, 255).astype(np.uint8)
    wants = []
    for k, (kh, stride, pad, dil, requantize) in enumerate([(3, 2, 1, 1, True),
                                                          (5, 1, 2, 2, False)]):
        w = rng.normal(0, 0.5, (c, 1, kh, kh)).astype(np.float32)
        ws = (np.abs(w).reshape(c, -1).max(axis=1) / 127).astype(np.float32)
        wq = np.clip(np.rint(w / ws.reshape(c, 1, 1, 1)), -127, 127).astype(np.int8)
        wq[0, 0, 0, 0] = -128  # the int8 extreme, which an ONNX file may hold
        bias = rng.normal(0, 0.2, (c,)).astype(np.float32)
        nodes += [
            node_proto("DequantizeLinear", [f"wq{k}", f"ws{k}", f"wz{k}"], [f"wd{k}"],
                       f"w{k}_dq", [attribute_int("axis", 0)]),
            node_proto("Conv", ["xd", f"wd{k}", f"b{k}"], [f"c{k}"], f"dw{k}",
                       [attribute_int("group", c), attribute_ints("strides", [stride] * 2),
                        attribute_ints("pads", [pad] * 4),
                        attribute_ints("dilations", [dil] * 2)])]
        inits += [tensor_proto(f"wq{k}", wq), tensor_proto(f"ws{k}", ws),
                  tensor_proto(f"wz{k}", np.zeros(c, np.int8)), tensor_proto(f"b{k}", bias)]
        acc = depthwise(xq, xz, wq, stride, pad, dil)
        v = (acc * (np.float64(xs) * ws.astype(np.float64)).reshape(1, c, 1, 1) +
             bias.astype(np.float64).reshape(1, c, 1, 1))
        if requantize:
            ys, yz = np.float32(0.025), 3
            nodes += [
                node_proto("Clip", [f"c{k}", "zero", "six"], [f"r{k}"], f"clip{k}"),
                node_proto("QuantizeLinear", [f"r{k}", "ys", "yz"], [f"q{k}"], f"y{k}_q"),
                node_proto("DequantizeLinear", [f"q{k}", "ys", "yz"], [f"y{k}"], f"y{k}_dq")]
            inits += [tensor_proto("zero", np.array(np.float32(0))),
                      tensor_proto("six", np.array(np.float32(6))),
                      tensor_proto("ys", np.array(ys)), tensor_proto("yz", np.array(np.uint8(yz)))]
            q = np.clip(np.rint(np.clip(v, 0, 6) / np.float64(ys)) + yz, 0, 255)
            v = (q - yz) * np.float64(ys)
        wants.append(v.astype(np.float32))
    outputs = [value_info("y0", FLOAT), value_info("c1", FLOAT)]
    inputs = [value_info("x", FLOAT, ["N", c, 10, 13])]
    with open(f"{d}/qdq_dw.onnx", "wb") as f:
        f.write(model_proto(nodes, inputs, outputs, inits, 13))
    np.save(f"{d}/dw_x.npy", x)
    for i, want in enumerate(wants):
        np.save(f"{d}/dw_want_{i}.npy", want)


def max_pool_nchw(x, k, stride, pad):
    """ONNX MaxPool of NCHW x (float), padding never winning."""
    n, c, h, w = x.shape
    xp = np.full((n, c, h + 2 * pad, w + 2 * pad), -np.inf, x.dtype)
    xp[:, :, pad:pad + h, pad:pad + w] = x
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    y = np.full((n, c, oh, ow), -np.inf, x.dtype)
    for i in range(k):
        for j in range(k):
            y = np.maximum(y, xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride])
    return y


def write_qdq_pool(d):
    """QDQ max poolings as ONNX Runtime's quantizer writes them (the pool
    between a DequantizeLinear and a QuantizeLinear of the same scale and zero
    point): uint8 with pads 1, kernel 3, stride 2 (ResNet's) requantized to a
    float output, and int8 with kernel 2 then Flatten, an int8 output.
    Expected outputs from ONNX's formulas in NumPy, pooling the dequantized
    floats."""
    rng = np.random.default_rng(21)
    c = DW_CHANNELS
    x = rng.uniform(-3, 4, (2, c, 9, 11)).astype(np.float32)
    us, uz = np.float32(0.03), 117
    ss, sz = np.float32(0.04), -5
    nodes = [
        node_proto("QuantizeLinear", ["x", "us", "uz"], ["uq"], "u_q"),
        node_proto("DequantizeLinear", ["uq", "us", "uz"], ["ud"], "u_dq"),
        node_proto("MaxPool", ["ud"], ["up"], "u_pool",
                   [attribute_ints("kernel_shape", [3, 3]), attribute_ints("strides", [2, 2]),
                    attribute_ints("pads", [1, 1, 1, 1])]),
        node_proto("QuantizeLinear", ["up", "us", "uz"], ["upq"], "up_q"),
        node_proto("DequantizeLinear", ["upq", "us", "uz"], ["y0"], "up_dq"),
        node_proto("QuantizeLinear", ["x", "ss", "sz"], ["sq"], "s_q"),
        node_proto("DequantizeLinear", ["sq", "ss", "sz"], ["sd"], "s_dq"),
        node_proto("MaxPool", ["sd"], ["sp"], "s_pool",
                   [attribute_ints("kernel_shape", [2, 2]), attribute_ints("strides", [2, 2])]),
        node_proto("Flatten", ["sp"], ["sf"], "s_flatten"),
        node_proto("QuantizeLinear", ["sf", "ss", "sz"], ["y1"], "sf_q")]
    inits = [tensor_proto("us", np.array(us)), tensor_proto("uz", np.array(np.uint8(uz))),
             tensor_proto("ss", np.array(ss)), tensor_proto("sz", np.array(np.int8(sz)))]
    ud = dequantize(quantize(x, us, uz, 0, 255), us, uz)
    y0 = dequantize(quantize(max_pool_nchw(ud, 3, 2, 1), us, uz, 0, 255), us, uz)
    sd = dequantize(quantize(x, ss, sz, -128, 127), ss, sz)
    y1 = quantize(max_pool_nchw(sd, 2, 2, 0).reshape(2, -1), ss, sz, -128, 127)
    outputs = [value_info("y0", FLOAT), value_info("y1", INT8)]
    inputs = [value_info("x", FLOAT, ["N", c, 9, 11])]
    with open(f"{d}/qdq_pool.onnx", "wb") as f:
        f.write(model_proto(nodes, inputs, outputs, inits, 13))
    os.makedirs(f"{d}/pool", exist_ok=True)
    np.save(f"{d}/pool_x.npy", x)
    np.save(f"{d}/pool/want_0.npy", y0.astype(np.float32))
    np.save(f"{d}/pool/want_1.npy", y1.astype(np.int8))


def write_qoperator_pool(d):
    """MaxPool of 8-bit data as QOperator models hold it (no dequantize
    around it): uint8 with pads 1, kernel 3, stride 2, and a 1-D int8 pool
    with kernel 3, stride 2, pads [1, 2]; expected outputs from NumPy's
    maximum over the taps inside the input. And the 8-bit pools tfcc refuses,
    3-D and average."""
    rng = np.random.default_rng(33)
    xu = rng.integers(0, 256, (2, 5, 9, 9), dtype=np.uint8)
    xs = rng.integers(-128, 128, (2, 6, 10), dtype=np.int8)
    nodes = [
        node_proto("MaxPool", ["xu"], ["y0"], "pool_u8",
                   [attribute_ints("kernel_shape", [3, 3]), attribute_ints("strides", [2, 2]),
                    attribute_ints("pads", [1, 1, 1, 1])]),
        node_proto("MaxPool", ["xs"], ["y1"], "pool_i8_1d",
                   [attribute_ints("kernel_shape", [3]), attribute_ints("strides", [2]),
                    attribute_ints("pads", [1, 2])])]
    inputs = [value_info("xu", UINT8, ["N", 5, 9, 9]), value_info("xs", INT8, ["N", 6, 10])]
    outputs = [value_info("y0", UINT8), value_info("y1", INT8)]
    with open(f"{d}/qop_pool.onnx", "wb") as f:
        f.write(model_proto(nodes, inputs, outputs, [], 13))
    os.makedirs(f"{d}/qop", exist_ok=True)
    np.save(f"{d}/qop_xu.npy", xu)
    np.save(f"{d}/qop_xs.npy", xs)
    y0 = max_pool_nchw(xu.astype(np.float64), 3, 2, 1).astype(np.uint8)
    xs_padded = np.full((2, 6, 13), -np.inf)
    xs_padded[:, :, 1:11] = xs
    y1 = np.max(np.stack([xs_padded[:, :, t:t + 11:2] for t in range(3)]), axis=0)
    np.save(f"{d}/qop/want_0.npy", y0)
    np.save(f"{d}/qop/want_1.npy", y1.astype(np.int8))
    for name, op, shape in [("bad_pool_3d_u8", "MaxPool", [1, 2, 4, 4, 4]),
                            ("bad_avg_pool_u8", "AveragePool", [1, 2, 4, 4])]:
        node = node_proto(op, ["x"], ["y"], name,
                          [attribute_ints("kernel_shape", [2] * (len(shape) - 2))])
        with open(f"{d}/{name}.onnx", "wb") as f:
            f.write(model_proto([node], [value_info("x", UINT8, shape)],
                                [value_info("y", UINT8)], [], 13))


def requantized(a_path, b_path, step):
    a, b = np.load(a_path), np.load(b_path)
    if a.shape != b.shape:
        print(f"FAR: shapes {list(a.shape)} and {list(b.shape)}")
        sys.exit(1)
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    equal = float(np.mean(diff <= 1e-6 * step))
    ok = float(diff.max()) <= step * 1.001 and equal >= 0.99
    print(f"{'requantized' if ok else 'FAR'}: max difference {diff.max() / step:.3g} steps, "
          f"{equal * 100:.1f}% equal")
    sys.exit(0 if ok else 1)


def write_invalid(d):
    def model(name, node, inits, x_type=FLOAT, y_type=UINT8):
        inputs = [value_info("x", x_type, [2, 3])]
        with open(f"{d}/{name}.onnx", "wb") as f:
            f.write(model_proto([node], inputs, [value_info("y", y_type)], inits, 13))
    model("bad_zero_scale",
          node_proto("QuantizeLinear", ["x", "s", "zp"], ["y"], "q_zero"),
          [tensor_proto("s", np.array(0.0, np.float32)),
           tensor_proto("zp", np.array(0, np.uint8))])
    model("bad_negative_scale",
          node_proto("DequantizeLinear", ["x", "s", "zp"], ["y"], "dq_negative"),
          [tensor_proto("s", np.array([0.5, -0.1, 0.2], np.float32)),
           tensor_proto("zp", np.array([0, 0, 0], np.int8))],
          x_type=INT8, y_type=FLOAT)
    model("bad_axis",
          node_proto("QuantizeLinear", ["x", "s", "zp"], ["y"], "q_axis",
                     [attribute_int("axis", 1)]),
          [tensor_proto("s", np.array([0.5, 0.1, 0.2, 0.3], np.float32)),
           tensor_proto("zp", np.array([0, 0, 0, 0], np.uint8))])
    model("bad_zero_point_type",
          node_proto("DequantizeLinear", ["x", "s", "zp"], ["y"], "dq_type"),
          [tensor_proto("s", np.array(0.5, np.float32)),
           tensor_proto("zp", np.array(0, np.int8))],
          x_type=UINT8, y_type=FLOAT)


def write_invalid_matmul(d):
    inputs = [value_info("a", UINT8, [2, 3]), value_info("b", UINT8, [3, 2])]
    node = node_proto("MatMulInteger", ["a", "b", "azp"], ["y"], "mm_int")
    with open(f"{d}/bad_matmul_zero_point.onnx", "wb") as f:
        f.write(model_proto([node], inputs, [value_info("y", INT32)],
                            [tensor_proto("azp", np.array(1, np.int8))], 13))
    # ConvInteger with a weight zero point of another type than the weight.
    inputs = [value_info("x", UINT8, [1, 1, 4, 4])]
    node = node_proto("ConvInteger", ["x", "w", "xzp", "wzp"], ["y"], "conv_int")
    with open(f"{d}/bad_conv_zero_point.onnx", "wb") as f:
        f.write(model_proto([node], inputs, [value_info("y", INT32)],
                            [tensor_proto("w", np.ones((1, 1, 2, 2), np.uint8)),
                             tensor_proto("xzp", np.array(1, np.uint8)),
                             tensor_proto("wzp", np.array(0, np.int8))], 13))
    # QLinearConv with a float bias (ONNX: int32 of scale x_scale * w_scale).
    node = node_proto("QLinearConv", ["x", "xs", "xzp", "w", "ws", "wzp", "ys", "yzp", "b"],
                      ["y"], "qconv")
    with open(f"{d}/bad_qconv_bias.onnx", "wb") as f:
        f.write(model_proto([node], inputs, [value_info("y", UINT8)],
                            [tensor_proto("w", np.ones((1, 1, 2, 2), np.uint8)),
                             tensor_proto("xs", np.array(0.1, np.float32)),
                             tensor_proto("xzp", np.array(1, np.uint8)),
                             tensor_proto("ws", np.array(0.1, np.float32)),
                             tensor_proto("wzp", np.array(0, np.uint8)),
                             tensor_proto("ys", np.array(0.2, np.float32)),
                             tensor_proto("yzp", np.array(0, np.uint8)),
                             tensor_proto("b", np.array([0.5], np.float32))], 13))


def write_unsupported(d):
    """One model per remaining refusal of the quantization converters."""
    f32, f64 = np.float32, np.float64

    def model(name, op, inputs, inits, attrs=(), out_type=UINT8):
        node = node_proto(op, [n for n, _ in inputs] + [t[0] for t in inits], ["y"],
                          name, attrs)
        infos = [value_info(n, t, [2, 3]) for n, t in inputs]
        with open(f"{d}/{name}.onnx", "wb") as f:
            f.write(model_proto([node], infos, [value_info("y", out_type)],
                                [tensor_proto(n, a) for n, a in inits], 13))

    model("q_f64_scale", "QuantizeLinear", [("x", FLOAT)], [("s", np.array(0.5, f64))])
    model("q_axis_range", "QuantizeLinear", [("x", FLOAT)],
          [("s", np.array([0.5, 0.5, 0.5], f32)), ("z", np.zeros(3, np.uint8))],
          [attribute_int("axis", 5)])
    model("q_scale_rank", "QuantizeLinear", [("x", FLOAT)],
          [("s", np.full((1, 3), 0.5, f32)), ("z", np.zeros((1, 3), np.uint8))])
    model("q_zero_point_shape", "QuantizeLinear", [("x", FLOAT)],
          [("s", np.array([0.5, 0.5, 0.5], f32)), ("z", np.zeros(2, np.uint8))])
    model("q_int64_input", "QuantizeLinear", [("x", 7)], [("s", np.array(0.5, f32))])
    model("dq_float_input", "DequantizeLinear", [("x", FLOAT)], [("s", np.array(0.5, f32))],
          out_type=FLOAT)
    model("dynamic_f64_input", "DynamicQuantizeLinear", [("x", 11)], [])
    model("mm_float_input", "MatMulInteger", [("a", FLOAT), ("b", FLOAT)], [], out_type=INT32)
    model("conv_float_input", "ConvInteger", [("x", FLOAT), ("w", FLOAT)], [],
          out_type=INT32)


def check(want_dir, got_dir):
    failures = 0
    i = 0
    while os.path.exists(f"{want_dir}/want_{i}.npy"):
        want = np.load(f"{want_dir}/want_{i}.npy")
        got = np.load(f"{got_dir}/output_{i}.npy")
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            diff = (np.argwhere(got != want)[:5].tolist()
                    if got.shape == want.shape else "shape")
            print(f"output {i}: MISMATCH {got.dtype}{list(got.shape)} vs "
                  f"{want.dtype}{list(want.shape)} at {diff}")
            failures += 1
        else:
            print(f"output {i} {got.dtype} {list(got.shape)}: exact")
        i += 1
    sys.exit(1 if failures or i == 0 else 0)


def close(a_path, b_path, rtol=1e-5):
    a, b = np.load(a_path), np.load(b_path)
    err = float(np.max(np.abs(a - b))) if a.shape == b.shape else float("inf")
    ok = err <= rtol * max(float(np.max(np.abs(b))), 1e-30)
    print(f"{'close' if ok else 'FAR'}: max abs error {err:.3g} (rtol {rtol:g})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if sys.argv[1] == "--close":
        close(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "--requantized":
        requantized(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        write_qdq(sys.argv[1])
        write_invalid(sys.argv[1])
        write_invalid_matmul(sys.argv[1])
        write_qdq_conv(sys.argv[1])
        write_qdq_depthwise(sys.argv[1])
        write_qdq_pool(sys.argv[1])
        write_qoperator_pool(sys.argv[1])
        write_unsupported(sys.argv[1])
