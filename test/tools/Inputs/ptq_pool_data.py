#!/usr/bin/python3
"""Calibration and test images for quantize-pooling.test: DIR/img.npy (300
images in [-1, 1]) and DIR/test_img.npy (16 more)."""
import sys
import numpy as np

d = sys.argv[1]
rng = np.random.default_rng(9)
np.save(f"{d}/img.npy", rng.uniform(-1, 1, (300, 10, 10, 2)).astype(np.float32))
np.save(f"{d}/test_img.npy", rng.uniform(-1, 1, (16, 10, 10, 2)).astype(np.float32))
