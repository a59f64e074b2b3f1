#!/usr/bin/python3
"""NumPy oracle for test/tools/Inputs/quantization.mlir.

`inputs DIR` writes the inputs (ties, saturation, NaN and infinities among
random values) as DIR/in_*.npy; `check DIR OUT` compares OUT/output_*.npy with
ONNX's QuantizeLinear / DequantizeLinear formulas evaluated here in NumPy
(round half to even with np.rint, f32 arithmetic), exactly for integers and
f32 results alike. NaN quantizes to the lowest value; casts of NaN give 0.
"""
import sys
import numpy as np

BATCH = 5


def make_inputs(d):
    rng = np.random.default_rng(7)
    x = rng.uniform(-40, 40, size=(BATCH, 3, 4)).astype(np.float32)
    # Ties of the per-axis scales (0.5, 0.25) and of the casts, saturation,
    # NaN and infinities, in the first batch rows.
    x[0, 0] = [0.25, 0.75, -0.25, 1.25]       # /0.5: 0.5 1.5 -0.5 2.5
    x[0, 1] = [0.125, -0.375, 1000.0, -1000.0]  # /0.25: 0.5 -1.5, saturate
    x[0, 2] = [np.nan, np.inf, -np.inf, 2.5]
    x[1, 0] = [300.0, -300.0, 255.5, -128.5]
    x[1, 2] = [0.99609375, -0.99609375, 1e30, -1e30]
    q = rng.integers(-128, 128, size=(BATCH, 3, 4)).astype(np.int8)
    q[0, 0] = [-128, 127, 0, -1]
    u = rng.integers(0, 256, size=(BATCH, 4)).astype(np.uint8)
    u[0] = [0, 255, 128, 7]
    b = rng.integers(-2**31, 2**31, size=(BATCH, 4), dtype=np.int64).astype(np.int32)
    b[0] = [-2**31, 2**31 - 1, 16777217, -16777217]
    for name, a in [("x", x), ("q", q), ("u", u), ("b", b)]:
        np.save(f"{d}/in_{name}.npy", a)


def quantize(x, scale, zp, lo, hi):
    with np.errstate(invalid="ignore", over="ignore"):
        y = np.rint(x / scale).astype(np.float64) + zp
        y = np.where(np.isnan(y), lo, np.clip(y, lo, hi))
    return y


def dequantize(q, scale, zp):
    return ((q.astype(np.float32) - np.float32(zp)) * scale).astype(np.float32)


def saturating_cast(x, lo, hi):
    with np.errstate(invalid="ignore"):
        y = np.clip(np.trunc(x.astype(np.float64)), lo, hi)
    return np.where(np.isnan(x), 0, y)


def expected(d):
    x = np.load(f"{d}/in_x.npy")
    q = np.load(f"{d}/in_q.npy")
    u = np.load(f"{d}/in_u.npy")
    b = np.load(f"{d}/in_b.npy")
    s = np.array([0.5, 0.25, 0.0078125], np.float32).reshape(3, 1)
    z = np.array([0, -3, 100], np.float64).reshape(3, 1)
    us = np.array([0.5, 2.0, 0.001, 3.0], np.float32)
    uz = np.array([0, 255, 128, 7], np.float64)
    return [
        quantize(x, s, z, -128, 127),
        quantize(x, np.float32(0.1), 128, 0, 255),
        dequantize(q, s, z.astype(np.float32)),
        dequantize(u, us, uz.astype(np.float32)),
        dequantize(b, np.float32(0.000123), 0),
        saturating_cast(x, 0, 255),
        saturating_cast(x, -128, 127),
        u.astype(np.float32),
        u.astype(np.int64),
        (q.astype(np.int64) @ np.array([[1, -2], [300, 7], [-128, 127], [65535, 0]])).astype(np.int32),
    ]


def check(d, out):
    failures = 0
    for i, want in enumerate(expected(d)):
        got = np.load(f"{out}/output_{i}.npy")
        if got.shape != want.shape or not np.array_equal(
                got.astype(np.float64), np.asarray(want, np.float64)):
            bad = np.argwhere(got.astype(np.float64) != want)
            print(f"output {i}: MISMATCH at {bad[:5].tolist()}: "
                  f"got {got.flatten()[:12]} want {np.asarray(want).flatten()[:12]}")
            failures += 1
        else:
            print(f"output {i} {got.dtype} {list(got.shape)}: exact")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        make_inputs(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
