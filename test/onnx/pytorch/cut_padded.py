#!/usr/bin/env python3
"""cut_padded.py TFCC_DIR N: for a model with NonMaxSuppression (a `padded` case),
tfcc writes the N outputs of the ONNX graph, padded to a static row bound, then the row
count(s) (docs/onnx.md, NonMaxSuppression). Cuts each of output_0..N-1 whose dimension
0 is the bound to the first COUNT rows (the one count output, output_N), and moves the
count out of the way (count_N.npy), so that the outputs compare with ONNX Runtime's as
they are. Prints the count; exits 1 when the outputs are not N + 1."""
import glob
import os
import sys

import numpy as np

directory, n = sys.argv[1], int(sys.argv[2])
files = sorted(glob.glob(os.path.join(directory, "output_*.npy")))
if len(files) != n + 1:
    sys.exit(f"cut_padded.py: {len(files)} outputs in {directory}, expected {n} + 1 count")
count_path = os.path.join(directory, f"output_{n}.npy")
count = int(np.load(count_path))
os.rename(count_path, os.path.join(directory, f"count_{n}.npy"))
bound = max(np.load(os.path.join(directory, f"output_{i}.npy")).shape[0] for i in range(n))
for i in range(n):
    path = os.path.join(directory, f"output_{i}.npy")
    a = np.load(path)
    if a.ndim >= 1 and a.shape[0] == bound:
        np.save(path, a[:count])
print(count)
