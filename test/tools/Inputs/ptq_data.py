#!/usr/bin/python3
"""Calibration and test data for quantize.test: DIR/x.npy (300 samples in
[-1, 3], both ends present), DIR/img.npy (in [0.5, 2]), inputs of the wrong
shape and dtype, x with one outlier, and test inputs inside the calibrated ranges."""
import sys
import numpy as np

d = sys.argv[1]
rng = np.random.default_rng(5)
x = rng.uniform(-1, 3, (300, 4)).astype(np.float32)
x[0, 0], x[1, 1] = -1.0, 3.0
img = rng.uniform(0.5, 2, (300, 5, 5, 2)).astype(np.float32)
img[0, 0, 0, 0], img[1, 1, 1, 1] = 0.5, 2.0
np.save(f"{d}/x.npy", x)
np.save(f"{d}/img.npy", img)
outlier = x.copy()
outlier[7, 2] = 100.0  # one value in 1200
np.save(f"{d}/x_outlier.npy", outlier)
np.save(f"{d}/x_wide.npy", rng.uniform(-1, 3, (300, 5)).astype(np.float32))
np.save(f"{d}/x_f64.npy", x.astype(np.float64))
np.save(f"{d}/img_short.npy", img[:10])
np.save(f"{d}/test_x.npy", rng.uniform(-1, 3, (16, 4)).astype(np.float32))
np.save(f"{d}/test_img.npy", rng.uniform(0.5, 2, (16, 5, 5, 2)).astype(np.float32))
