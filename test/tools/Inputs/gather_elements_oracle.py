#!/usr/bin/python3
"""NumPy oracle for test/tools/Inputs/gather_elements.mlir.

`inputs DIR [bad]` writes the inputs (with `bad`, one index of %i is 5, out
of range for the 5 columns); `check DIR OUT` compares OUT/output_N.npy with
np.take_along_axis exactly and prints one line per output.
"""
import sys
import numpy as np


def inputs(out, bad):
    rng = np.random.default_rng(11)
    i = rng.integers(0, 5, (4, 3)).astype(np.int64)
    if bad:
        i[2, 1] = 5
    np.save(f"{out}/d.npy", rng.standard_normal((4, 5)).astype(np.float32))
    np.save(f"{out}/i.npy", i)
    np.save(f"{out}/t.npy", rng.standard_normal((4, 6)).astype(np.float32))
    np.save(f"{out}/j.npy", rng.integers(0, 4, (2, 6)).astype(np.int32))


def check(data, results):
    d, i, t, j = (np.load(f"{data}/{n}.npy") for n in "dijt"[:2] + "tj")
    expected = [np.take_along_axis(d, i, axis=1), np.take_along_axis(t, j, axis=0)]
    for n, want in enumerate(expected):
        got = np.load(f"{results}/output_{n}.npy")
        same = got.shape == want.shape and np.array_equal(got, want)
        print(f"output {n} {list(got.shape)}: {'equal' if same else 'DIFFERENT'}")


if sys.argv[1] == "inputs":
    inputs(sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "bad")
else:
    check(sys.argv[2], sys.argv[3])
