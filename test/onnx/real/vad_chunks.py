#!/usr/bin/python3
"""Writes the audio check.sh streams through Silero VAD: OUT_DIR/chunk_<i>.npy
([1, 512] float32, 16 kHz: quiet noise, a vowel-like sound (harmonics of a gliding
140 Hz under two formants, a 4 Hz syllable envelope), noise again), the zero initial
state OUT_DIR/state.npy [2, 1, 128] and OUT_DIR/sr.npy (int64 16000, for ONNX Runtime).

    /usr/bin/python3 vad_chunks.py OUT_DIR [CHUNKS]      (default 24 chunks)
"""
import os
import sys

import numpy as np

out = sys.argv[1]
chunks = int(sys.argv[2]) if len(sys.argv) > 2 else 24
os.makedirs(out, exist_ok=True)
rate, size = 16000, 512
n = chunks * size
t = np.arange(n) / rate
rng = np.random.default_rng(5)
audio = 0.003 * rng.standard_normal(n)
f0 = 140 * (1 + 0.05 * np.sin(2 * np.pi * 3 * t))
phase = 2 * np.pi * np.cumsum(f0) / rate
voice = sum(np.sin(k * phase) * (np.exp(-((k * 140 - 700) / 250) ** 2)
                                 + 0.6 * np.exp(-((k * 140 - 1200) / 300) ** 2) + 0.05)
            for k in range(1, 30))
envelope = 0.5 * (1 - np.cos(2 * np.pi * 4 * t))
audio += ((t > 0.25) & (t < 0.65)) * 0.3 * voice * envelope / np.abs(voice).max()
for i in range(chunks):
    np.save(os.path.join(out, f"chunk_{i}.npy"),
            audio[i * size:(i + 1) * size].astype(np.float32)[None])
np.save(os.path.join(out, "state.npy"), np.zeros((2, 1, 128), np.float32))
np.save(os.path.join(out, "sr.npy"), np.array(16000, dtype=np.int64))
print(f"vad_chunks.py: {chunks} chunks of {size} samples in {out}")
