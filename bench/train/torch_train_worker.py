#!/usr/bin/python3
"""PyTorch side of the training benchmark (bench/README.md, "Training"): the spec's
mnist_cnn_train.mlir as bench/train/torch_train.py builds it (eager mode, train(), Adam lr
1e-3 eps 1e-7, clip_grad_norm_ 1.0, cross-entropy), kept in one process for a whole row and
driven by bench/bench.py with the commands of bench/train/tfcc_train_harness.c:

  OMP_NUM_THREADS=N OPENBLAS_NUM_THREADS=1 /usr/bin/python3 torch_train_worker.py \\
      N BATCH DATA NBATCHES [channels_last|contiguous]

DATA: NBATCHES batches, each BATCH x 28 x 28 x 1 float32 images (NHWC; with one channel the
same bytes as NCHW) then BATCH int32 labels. The last argument is the memory format of the
images and the model (default channels_last: PyTorch's faster CPU path for this model, about
20% faster per step than contiguous NCHW here; an NHWC batch permuted to NCHW without a copy
gets it anyway).

  load W        take tfcc's initial weights: W and W.index as the tfcc harness's "weights"
                command writes them (HWIO kernels -> OIHW, dense (in, out) -> Linear
                (out, in), dense1's rows from tfcc's NHWC flatten order (h, w, c) to
                PyTorch's NCHW flatten order (c, h, w)); optimizer slots start at zero
                -> "ok <variables used>"
  check S OUT   from the initial weights and a fresh optimizer: the eval-mode loss on batch
                0, S train steps on batch 0 with tfcc's dropout masks (the generator of
                docs/autodiff.md, "Dropout mask", steps 0..S-1), the eval-mode loss again;
                writes the S + 2 losses (float32) to OUT, then goes back to the initial
                weights and a fresh optimizer -> "ok <S + 2>"
  time K        K train steps (nn.Dropout, PyTorch's own masks) on the batches in turn
                -> "ok <seconds> <loss of the last step>"
  quit
"""
import copy
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "harness"))
from torch_train import build_model, make_optimizer  # noqa: E402
from torch_worker import blas_library  # noqa: E402

DROPOUT_INDEX = 10       # nn.Dropout in build_model()'s Sequential
DROPOUT_RATE = 0.25      # graph.dropout {rate = 0.25, seed = 7} in mnist_cnn_train.mlir
DROPOUT_SEED = 7
CLIP_NORM = 1.0
EPSILON = 1e-7         # #graph.adam<..., beta2 = 0.999, epsilon = 1.0e-07>
BETA2 = 0.999
M64 = (1 << 64) - 1


def reply(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def splitmix64(x):
    """splitmix64 on Python ints or numpy uint64 arrays (wrapping arithmetic)."""
    if isinstance(x, np.ndarray):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def tfcc_dropout_mask(shape, rate, seed, step):
    """tfcc's mask for graph.dropout at train step `step` (docs/autodiff.md)."""
    key = splitmix64((seed * 0x9E3779B97F4A7C15 + step) & M64)
    n = int(np.prod(shape))
    with np.errstate(over="ignore"):
        bits = splitmix64(np.uint64(key) + np.arange(n, dtype=np.uint64))
    u = (bits >> np.uint64(40)).astype(np.float64) * 2.0 ** -24
    r = np.float64(np.float32(rate))
    keep = np.float32(1.0 / (1.0 - r))
    return torch.from_numpy(np.where(u >= r, keep, np.float32(0)).astype(np.float32)
                            .reshape(shape))


class MaskMul(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.mask = mask

    def forward(self, x):
        return x * self.mask


def to_torch(name, a):
    """tfcc variable (NHWC model) -> the PyTorch tensor of build_model()'s layout."""
    t = torch.from_numpy(a)
    if a.ndim == 4:  # HWIO -> OIHW
        return t.permute(3, 2, 0, 1).contiguous()
    if name == "dense1_kernel":  # rows (h, w, c) -> columns (c, h, w); (in, out) -> (out, in)
        return t.reshape(5, 5, 64, 64).permute(2, 0, 1, 3).reshape(1600, 64).t().contiguous()
    if a.ndim == 2:
        return t.t().contiguous()
    return t.clone()


class Worker:
    def __init__(self, batch, data_path, nbatches, memory_format):
        raw = np.fromfile(data_path, dtype=np.uint8)
        per = batch * 28 * 28 * 4 + batch * 4
        if raw.size != per * nbatches:
            raise ValueError("%s has %d bytes, expected %d" % (data_path, raw.size, per * nbatches))
        self.batches = []
        for b in range(nbatches):
            chunk = raw[b * per:(b + 1) * per]
            img = chunk[:batch * 3136].view(np.float32).reshape(batch, 28, 28, 1)
            lab = chunk[batch * 3136:].view(np.int32)
            # clone, not contiguous(): with one channel both layouts count as contiguous
            x = torch.from_numpy(img).permute(0, 3, 1, 2).clone(memory_format=memory_format)
            self.batches.append((x, torch.from_numpy(lab.astype(np.int64))))
        self.batch = batch
        self.cursor = 0
        self.model = build_model().to(memory_format=memory_format)
        self.model.train()
        self.initial = copy.deepcopy(self.model.state_dict())
        self.restart()

    def restart(self):
        self.model.load_state_dict(self.initial)
        self.model.train()
        self.optimizer = make_optimizer(self.model)
        self.t = 0

    def load(self, path):
        raw = np.fromfile(path, dtype=np.uint8)
        m = self.model
        target = {"conv1_kernel": m[0].weight, "bn1_gamma": m[1].weight, "bn1_beta": m[1].bias,
                  "bn1_mean": m[1].running_mean, "bn1_variance": m[1].running_var,
                  "conv2_kernel": m[4].weight, "conv2_bias": m[4].bias,
                  "dense1_kernel": m[8].weight, "dense1_bias": m[8].bias,
                  "dense2_kernel": m[11].weight, "dense2_bias": m[11].bias}
        seen, off = set(), 0
        with open(path + ".index") as f:
            for line in f:
                name, dtype, trainable, nbytes, dims = line.split()
                nbytes = int(nbytes)
                chunk = raw[off:off + nbytes]
                off += nbytes
                if name not in target:
                    if trainable == "1":
                        raise ValueError("unknown trainable variable " + name)
                    continue  # optimizer slots (zero at the start) and the step counter
                if dtype != "1":
                    raise ValueError("%s: dtype %s, expected float32" % (name, dtype))
                shape = [int(d) for d in dims.split("x")]
                t = to_torch(name, chunk.view(np.float32).reshape(shape))
                if tuple(t.shape) != tuple(target[name].shape):
                    raise ValueError("%s: shape %s does not fit %s" % (name, list(t.shape),
                                                                     list(target[name].shape)))
                with torch.no_grad():
                    target[name].copy_(t)
                seen.add(name)
        if off != raw.size:
            raise ValueError("%s: %d bytes, the index says %d" % (path, raw.size, off))
        missing = set(target) - seen
        if missing:
            raise ValueError("tfcc's weights lack " + ", ".join(sorted(missing)))
        self.initial = copy.deepcopy(self.model.state_dict())
        self.restart()
        return len(seen)

    def step(self, x, y):
        # Keras' (and tfcc's) Adam adds epsilon to sqrt(v) before the bias correction,
        # PyTorch's after it: eps / sqrt(1 - beta2^t) in PyTorch is Keras' eps (same update
        # then, to rounding; the cost of a step does not change).
        self.t += 1
        for group in self.optimizer.param_groups:
            group["eps"] = EPSILON / math.sqrt(1.0 - BETA2 ** self.t)
        self.optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), CLIP_NORM)
        self.optimizer.step()
        return loss.item()

    def eval_loss(self, x, y):
        self.model.eval()
        with torch.no_grad():
            loss = F.cross_entropy(self.model(x), y).item()
        self.model.train()
        return loss

    def check(self, steps, out):
        self.restart()
        x, y = self.batches[0]
        losses = [self.eval_loss(x, y)]
        dropout = self.model[DROPOUT_INDEX]
        try:
            for s in range(steps):
                self.model[DROPOUT_INDEX] = MaskMul(tfcc_dropout_mask(
                    (self.batch, 64), DROPOUT_RATE, DROPOUT_SEED, s))
                losses.append(self.step(x, y))
        finally:
            self.model[DROPOUT_INDEX] = dropout
        losses.append(self.eval_loss(x, y))
        np.asarray(losses, dtype=np.float32).tofile(out)
        self.restart()
        return len(losses)

    def time(self, k):
        loss = float("nan")
        t0 = time.perf_counter()
        for _ in range(k):
            x, y = self.batches[self.cursor]
            loss = self.step(x, y)
            self.cursor = (self.cursor + 1) % len(self.batches)
        return time.perf_counter() - t0, loss


def main():
    threads, batch, data, nbatches = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                      int(sys.argv[4]))
    fmt = sys.argv[5] if len(sys.argv) > 5 else "channels_last"
    formats = {"channels_last": torch.channels_last, "contiguous": torch.contiguous_format}
    if fmt not in formats:
        reply("error memory format %r: channels_last or contiguous" % fmt)
        return 1
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    torch.manual_seed(0)
    try:
        w = Worker(batch, data, nbatches, formats[fmt])
    except Exception as e:  # noqa: BLE001 - report anything as a protocol error
        reply("error %s" % str(e).splitlines()[0])
        return 1
    reply("ready threads=%d torch=%s blas=%s format=%s" % (
        torch.get_num_threads(), torch.__version__, blas_library(), fmt))
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        try:
            if parts[0] == "quit":
                return 0
            if parts[0] == "load" and len(parts) == 2:
                reply("ok %d" % w.load(parts[1]))
            elif parts[0] == "check" and len(parts) == 3 and int(parts[1]) >= 1:
                reply("ok %d" % w.check(int(parts[1]), parts[2]))
            elif parts[0] == "time" and len(parts) == 2 and int(parts[1]) >= 1:
                secs, loss = w.time(int(parts[1]))
                reply("ok %.9f %.6g" % (secs, loss))
            else:
                reply("error unknown command")
        except Exception as e:  # noqa: BLE001
            reply("error %s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
