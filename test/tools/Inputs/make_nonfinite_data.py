"""Inputs for check-numerics.test: python3 make_nonfinite_data.py DIR."""
import os
import sys

import numpy as np

out = sys.argv[1]
np.save(os.path.join(out, "ok.npy"), np.array([[2, 3, 4, 5], [6, 7, 8, 9]], np.float32))
# Row 1 alone makes sqrt's NaN; row 2 alone log's 0 and so ratio's infinity.
np.save(os.path.join(out, "neg.npy"),
        np.array([[2, 3, 4, 5], [6, -7, 8, 9], [1, 2, 3, 4]], np.float32))
np.save(os.path.join(out, "one.npy"), np.array([[2, 3, 4, 5], [6, 7, 1, 9]], np.float32))
np.save(os.path.join(out, "nan_input.npy"), np.array([[2, np.nan, 4, 5]], np.float32))
# The MLP's training data: 96 samples, a NaN pixel in sample 37.
rng = np.random.default_rng(7)
x = rng.uniform(0, 1, (96, 784)).astype(np.float32)
x[37, 100] = np.nan
np.save(os.path.join(out, "train_x.npy"), x)
np.save(os.path.join(out, "train_y.npy"), rng.integers(0, 10, 96).astype(np.int32))
