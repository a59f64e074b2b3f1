#!/usr/bin/env python3
"""Compares a cross-compiled model's outputs with a reference (test/cross/models.sh,
test/cross/cortex-m.sh) and prints one ok/FAIL line; exits non-zero on FAIL.

    compare_outputs.py OUT REF TOLERANCE LABEL

OUT: raw float32 values (the outputs model_driver.c writes), or, ending in .txt, one value
per line (what firmware_main.c prints, %.9g: float32 round-trips). REF: an .npy (the
reference interpreter's, tfcc-run --output-dir) or raw float32 values (another build's).
Passes when every output is finite and max|OUT - REF| / max|REF| <= TOLERANCE (0: equal).
"""
import sys

import numpy as np


def read(path):
    if path.endswith(".npy"):
        return np.load(path).ravel().astype(np.float32)
    if path.endswith(".txt"):
        return np.array([float(line) for line in open(path) if line.strip()], dtype=np.float32)
    return np.fromfile(path, np.float32)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: compare_outputs.py OUT REF TOLERANCE LABEL")
    out, ref, tol, label = read(sys.argv[1]), read(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    if out.size != ref.size:
        print(f"FAIL {label}: {out.size} output values, the reference has {ref.size}")
        return 1
    err = float(np.abs(out - ref).max()) / max(float(np.abs(ref).max()), 1e-30)
    ok = bool(np.isfinite(out).all()) and err <= tol
    print(f"{'ok  ' if ok else 'FAIL'} {label}: max|out - ref| / max|ref| = {err:.2e} "
          f"(tolerance {tol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
