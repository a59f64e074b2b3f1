"""PyTorch's training throughput on the spec's mnist_cnn_train.mlir model:
conv3x3(1->32, no bias) - batch_norm - relu - maxpool2 - conv3x3(32->64) - relu -
maxpool2 - dense 1600->64 - relu - dropout 0.25 - dense 64->10, sparse softmax
cross-entropy, Adam (lr 1e-3, eps 1e-7), clip_norm 1.0 (global norm), NHWC-equivalent
shapes, batch 64; images and model in channels_last (PyTorch's faster CPU path here;
--memory-format contiguous for plain NCHW, about 25% slower per step). The suite's row
(bench/README.md, "Training") uses the same model through torch_train_worker.py.

    OMP_NUM_THREADS=1 LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp \
    GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824 \
        /usr/bin/python3 bench/train/torch_train.py --threads 1

--autocast bf16 runs the forward pass and the loss under torch.autocast (bfloat16), the
peer of tfcc --precision=mixed_bf16 (docs/mixed-precision.md).

(GLIBC_TUNABLES as the suite sets it: without it glibc unmaps and re-faults PyTorch's
per-step buffers, and the step time varies between runs; bench/README.md, "Training".)
"""
import argparse
import time

import torch
import torch.nn as nn


def build_model():
    """The spec's mnist_cnn_train.mlir in PyTorch, NCHW (bench/train/torch_train_worker.py
    maps tfcc's variables onto it)."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, bias=False), nn.BatchNorm2d(32, eps=1e-3, momentum=0.01),
        nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(1600, 64), nn.ReLU(), nn.Dropout(0.25),
        nn.Linear(64, 10))


def make_optimizer(model):
    """The model's optimizer: Adam(lr 1e-3, betas 0.9/0.999, eps 1e-7), PyTorch's defaults
    otherwise; clip_norm 1.0 is applied to the gradients before step().
    torch_train_worker.py also moves eps to where Keras (and tfcc) add it."""
    return torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-7)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--memory-format", choices=["channels_last", "contiguous"],
                        default="channels_last",
                        help="of the images and the model (the suite's default too)")
    parser.add_argument("--autocast", choices=["none", "bf16"], default="none",
                        help="bf16: forward and loss under torch.autocast('cpu', bfloat16), "
                             "PyTorch's CPU mixed precision (the peer of tfcc "
                             "--precision=mixed_bf16)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    fmt = {"channels_last": torch.channels_last,
           "contiguous": torch.contiguous_format}[args.memory_format]
    model = build_model().to(memory_format=fmt)
    model.train()
    optimizer = make_optimizer(model)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.rand(args.batch, 1, 28, 28).clone(memory_format=fmt)
    y = torch.arange(args.batch) % 10

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.autocast == "bf16"):
            loss = loss_fn(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss.item()

    for _ in range(5):
        step()
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    times.sort()
    median = times[len(times) // 2]
    print(f"pytorch {torch.__version__} threads {args.threads} batch {args.batch}: "
          f"({args.memory_format}, autocast {args.autocast}): median {median * 1e3:.3f} ms/step, {args.batch / median:.0f} images/s")


if __name__ == "__main__":
    main()
