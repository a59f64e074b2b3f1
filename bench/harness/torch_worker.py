#!/usr/bin/python3
"""PyTorch harness: a frozen TorchScript module (bench/models.py writes it) behind the line
protocol of bench/harness/common.h.

  OMP_NUM_THREADS=N OPENBLAS_NUM_THREADS=1 /usr/bin/python3 torch_worker.py MODEL.pt N SHAPES

SHAPES: the input shapes, e.g. "1x3x224x224" or "64x784;..." (';' between inputs).
Runs under torch.no_grad() (inference mode) with torch.set_num_threads(N) and one inter-op
thread.
"""
import os
import sys
import time

import numpy as np
import torch


def reply(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def blas_library():
    """The BLAS library mapped into this process (Debian picks it via alternatives)."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if "libblas" in path or "openblas" in path:
                    return os.path.realpath(path).split("/")[-2]  # e.g. openblas-openmp
    except OSError:
        pass
    return "?"


def main():
    path, threads, shapes = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    shapes = [[int(d) for d in s.split("x")] for s in shapes.split(";")]
    try:
        module = torch.jit.load(path).eval()
    except Exception as e:  # noqa: BLE001 - report anything as a protocol error
        reply("error torch.jit.load: %s" % str(e).splitlines()[0])
        return 1
    inputs = [torch.zeros(s, dtype=torch.float32) for s in shapes]
    with torch.inference_mode():
        module(*inputs)
        reply("ready threads=%d torch=%s blas=%s" % (torch.get_num_threads(), torch.__version__,
                                                     blas_library()))
        for line in sys.stdin:
            parts = line.split()
            if not parts:
                continue
            cmd = parts[0]
            try:
                if cmd == "quit":
                    return 0
                if cmd == "check" and len(parts) == 3:
                    raw = np.fromfile(parts[1], dtype=np.float32)
                    off = 0
                    for i, s in enumerate(shapes):
                        n = int(np.prod(s))
                        inputs[i] = torch.from_numpy(raw[off:off + n].reshape(s).copy())
                        off += n
                    if off != raw.size:
                        reply("error %s has %d floats, expected %d" % (parts[1], raw.size, off))
                        continue
                    out = module(*inputs)
                    outs = out if isinstance(out, (tuple, list)) else [out]
                    data = b"".join(o.contiguous().numpy().astype(np.float32).tobytes() for o in outs)
                    with open(parts[2], "wb") as f:
                        f.write(data)
                    reply("ok %d" % len(data))
                elif cmd == "time" and len(parts) == 2:
                    k = int(parts[1])
                    t0 = time.perf_counter()
                    for _ in range(k):
                        module(*inputs)
                    reply("ok %.9f" % (time.perf_counter() - t0))
                else:
                    reply("error unknown command")
            except Exception as e:  # noqa: BLE001
                reply("error %s" % str(e).splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
