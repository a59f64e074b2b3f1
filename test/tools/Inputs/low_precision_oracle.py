#!/usr/bin/python3
"""Oracle for test/tools/Inputs/low_precision_casts.mlir.

`inputs DIR` writes DIR/in_x.npy (f32: ties of bf16 and f16, subnormals,
overflow, infinities, NaN, -0, random values) and DIR/in_i.npy (i32);
`check DIR OUT` compares OUT/output_*.npy with the casts computed here (and
`check-argument DIR OUT` OUT/output_0.npy of bf16_argument.mlir, whose bf16
argument tfcc-run read from in_x.npy, with in_x rounded to bf16): f16
by NumPy's float16 conversion, bf16 by rounding the exact value (a Python
float) to 8 significant bits, ties to even, written out in full here.
tfcc-run writes bf16 outputs as float32 files (exactly).
"""
import math
import sys
import numpy as np

N = 64


def round_bf16(v):
    """v (a double holding the exact value) rounded to bf16: 8 significant
    bits, exponents as float32's, ties to even; overflow gives infinity."""
    if math.isnan(v) or math.isinf(v) or v == 0:
        return v
    m, e = math.frexp(abs(v))  # abs(v) = m * 2^e, m in [0.5, 1)
    e = max(e, -125)  # below 2^-126 the spacing stays 2^-133 (subnormals)
    ulp = math.ldexp(1.0, e - 8)
    q = abs(v) / ulp
    r = math.floor(q)
    if q - r > 0.5 or (q - r == 0.5 and r % 2 == 1):
        r += 1
    out = r * ulp
    if out >= math.ldexp(1.0, 128):
        out = math.inf
    return math.copysign(out, v)


def make_inputs(d):
    rng = np.random.default_rng(11)
    x = rng.uniform(-300, 300, size=N).astype(np.float32)
    special = [
        1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 1 + 2**-8 + 2**-20,  # bf16 ties
        1 + 2**-11, 1 + 3 * 2**-11, 2048 + 1, 2048 + 3,  # f16 ties
        2**-25, 3 * 2**-25, 2**-24, 2**-15 + 2**-25,  # f16 subnormals
        65504, 65519, 65520, -1e6,  # f16 largest, overflow
        3.3895313e38, 3.4028235e38, 1e-39, -1e-40,  # bf16 overflow, f32 subnormals
        np.inf, -np.inf, np.nan, -0.0, 0.0, 0.5, -2.5, 255.5,
    ]
    x[: len(special)] = np.array(special, np.float32)
    i = rng.integers(-100000, 100000, size=N).astype(np.int32)
    i[:8] = [257, 259, -257, 2049, 2051, 65520, 70000, -16777217]
    np.save(f"{d}/in_x.npy", x)
    np.save(f"{d}/in_i.npy", i)


def trunc_to_i32(v):
    return np.trunc(v).astype(np.int64).astype(np.int32)


def expected(d):
    x = np.load(f"{d}/in_x.npy")
    i = np.load(f"{d}/in_i.npy")
    bf = lambda a: np.array([round_bf16(float(v)) for v in a], np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        b = bf(x)
        h = x.astype(np.float16).astype(np.float64)
        finite_b = np.where(np.isfinite(b) & (np.abs(b) < 2**31), b, 0)
        finite_h = np.where(np.isfinite(h), h, 0)
        return [
            b,
            h,
            b.astype(np.float16).astype(np.float64),
            bf(h),
            bf(i.astype(np.float64)),
            i.astype(np.float16).astype(np.float64),
            trunc_to_i32(finite_b),
            trunc_to_i32(finite_h),
            h,
        ], [np.isfinite(b) & (np.abs(b) < 2**31), np.isfinite(h)]


def check(d, out):
    want, defined = expected(d)
    for k, w in enumerate(want):
        got = np.load(f"{out}/output_{k}.npy").astype(np.float64)
        mask = np.ones(N, bool)
        if k == 6:
            mask = defined[0]  # NaN, infinities and out-of-range: undefined
        if k == 7:
            mask = defined[1]
        same = (got == w) | (np.isnan(got) & np.isnan(w))
        # -0 and +0 compare equal: the sign must match too.
        same &= np.signbit(got) == np.signbit(w)
        bad = np.nonzero(~same & mask)[0]
        if bad.size:
            j = bad[0]
            print(f"output {k}: {bad.size} differ, first at {j}: got {got[j]!r}, "
                  f"want {w[j]!r}")
        else:
            print(f"output {k}: exact")


def check_argument(d, out):
    x = np.load(f"{d}/in_x.npy")
    want = np.array([round_bf16(float(v)) for v in x], np.float64)
    got = np.load(f"{out}/output_0.npy").astype(np.float64)
    same = ((got == want) | (np.isnan(got) & np.isnan(want))) & \
        (np.signbit(got) == np.signbit(want))
    print("argument: exact" if same.all() else
          f"argument: {np.count_nonzero(~same)} differ")


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        make_inputs(sys.argv[2])
    elif sys.argv[1] == "check-argument":
        check_argument(sys.argv[2], sys.argv[3])
    else:
        check(sys.argv[2], sys.argv[3])
