#!/usr/bin/python3
"""The benchmark's workloads: PyTorch modules exported to ONNX (for tfcc and ONNX Runtime) and
to frozen TorchScript (for PyTorch), from one module instance, so every system runs the same
weights.

  /usr/bin/python3 bench/models.py OUT_DIR [--only NAME,...] [--list]

For each workload NAME it writes into OUT_DIR:
  NAME.onnx      ONNX model (opset per workload, constant folding on, eval mode)
  NAME.pt        torch.jit.freeze(torch.jit.trace(module)) saved with torch.jit.save
  NAME.in.bin    the random inputs (float32, row-major, concatenated in input order)
  NAME.json      inputs/outputs (names, shapes), batch, FLOPs of a matmul, description

Weights are random (Debian ships no pretrained ones; none are needed to compare systems),
seeded per workload, so the files are the same on every run. Needs Debian's python3-torch,
python3-torchvision and python3-numpy; run it with /usr/bin/python3.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


# --- Modules ---------------------------------------------------------------------------------

def glorot_(linear_or_conv):
    """Keras defaults (glorot_uniform kernels, zero biases), as the spec's models declare."""
    nn.init.xavier_uniform_(linear_or_conv.weight)
    nn.init.zeros_(linear_or_conv.bias)
    return linear_or_conv


class MLP(nn.Module):
    """/work/shared/spec/models/mlp.mlir: Dense(784->128, relu) -> Dense(128->10) -> softmax."""

    def __init__(self):
        super().__init__()
        self.hidden = glorot_(nn.Linear(784, 128))
        self.out = glorot_(nn.Linear(128, 10))

    def forward(self, x):
        return F.softmax(self.out(F.relu(self.hidden(x))), dim=-1)


class SeedCNN(nn.Module):
    """/work/shared/spec/models/mnist_cnn.mlir: NHWC input [B,28,28,1];
    Conv(32,3x3,valid) relu MaxPool2 -> Conv(64,3x3,valid) relu MaxPool2 -> Flatten (in NHWC
    order, as Keras does) -> Dense(1600->64, relu) -> Dense(64->10) -> softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = glorot_(nn.Conv2d(1, 32, 3))
        self.conv2 = glorot_(nn.Conv2d(32, 64, 3))
        self.dense1 = glorot_(nn.Linear(1600, 64))
        self.dense2 = glorot_(nn.Linear(64, 10))

    def forward(self, image):
        x = image.permute(0, 3, 1, 2)  # NHWC -> NCHW
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.permute(0, 2, 3, 1).reshape(x.shape[0], 1600)  # Keras' NHWC flatten
        x = F.relu(self.dense1(x))
        return F.softmax(self.dense2(x), dim=-1)


class LeNet5(nn.Module):
    """LeNet-5 on 1x32x32 (ReLU and max pooling, the usual modern variant):
    Conv(6,5x5) relu MaxPool2 -> Conv(16,5x5) relu MaxPool2 -> 400 -> 120 -> 84 -> 10."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class MatMul(nn.Module):
    """x[N,N] @ W[N,N], W a constant (an ONNX initializer)."""

    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n, n) / n ** 0.5)

    def forward(self, x):
        return torch.matmul(x, self.w)


class Encoder(nn.Module):
    """torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
    batch_first=True): post-norm, ReLU, dropout inactive (eval)."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                                batch_first=True)

    def forward(self, x):
        return self.layer(x)


def mobilenet_v2():
    import torchvision
    return torchvision.models.mobilenet_v2()  # random weights (weights=None)


def resnet18():
    import torchvision
    return torchvision.models.resnet18()


# --- Workloads -------------------------------------------------------------------------------
# name -> (constructor, input shapes {name: shape}, opset, dynamic batch, description, flops)

def _matmul(n):
    return (lambda: MatMul(n), {"x": [n, n]}, 13, False, "MatMul %dx%d @ %dx%d (constant B)"
            % (n, n, n, n), 2 * n ** 3)


WORKLOADS = {
    "matmul256": _matmul(256),
    "matmul512": _matmul(512),
    "matmul1024": _matmul(1024),
    "matmul2048": _matmul(2048),
    "mlp_b1": (MLP, {"x": [1, 784]}, 13, True, "MLP 784-128-10 (spec mlp.mlir), batch 1", None),
    "mlp_b64": (MLP, {"x": [64, 784]}, 13, True, "MLP 784-128-10 (spec mlp.mlir), batch 64",
                None),
    "cnn_b1": (SeedCNN, {"image": [1, 28, 28, 1]}, 13, True,
               "seed CNN (spec mnist_cnn.mlir), NHWC 28x28x1, batch 1", None),
    "cnn_b64": (SeedCNN, {"image": [64, 28, 28, 1]}, 13, True,
                "seed CNN (spec mnist_cnn.mlir), NHWC 28x28x1, batch 64", None),
    "lenet5_b1": (LeNet5, {"x": [1, 1, 32, 32]}, 13, True, "LeNet-5 1x32x32, batch 1", None),
    "lenet5_b64": (LeNet5, {"x": [64, 1, 32, 32]}, 13, True, "LeNet-5 1x32x32, batch 64", None),
    "mobilenet_v2": (mobilenet_v2, {"input": [1, 3, 224, 224]}, 13, False,
                     "torchvision MobileNetV2 224x224, batch 1", None),
    "resnet18": (resnet18, {"input": [1, 3, 224, 224]}, 13, False,
                 "torchvision ResNet-18 224x224, batch 1", None),
    "transformer": (Encoder, {"x": [1, 128, 256]}, 17, False,
                    "TransformerEncoderLayer d256 h4 ff1024, seq 128, batch 1", None),
}


def export(name, out_dir):
    ctor, inputs, opset, dynamic, desc, flops = WORKLOADS[name]
    seed = sorted(WORKLOADS).index(name) + 1
    torch.manual_seed(seed)
    model = ctor().eval()
    rng = np.random.default_rng(1000 + seed)
    arrays = [rng.uniform(-1.0, 1.0, size=shape).astype(np.float32) for shape in inputs.values()]
    tensors = tuple(torch.from_numpy(a) for a in arrays)
    names = list(inputs)
    onnx_path = os.path.join(out_dir, name + ".onnx")
    dynamic_axes = {n: {0: "batch"} for n in names + ["output"]} if dynamic else None
    # Exported with autograd on: under no_grad an eval TransformerEncoderLayer takes its fused
    # fast path (aten::_transformer_encoder_layer_fwd), which has no ONNX export. TorchScript
    # (below, no_grad) keeps the fast path: that is how PyTorch runs it for inference.
    torch.onnx.export(model, tensors, onnx_path, opset_version=opset, input_names=names,
                      output_names=["output"], dynamic_axes=dynamic_axes,
                      do_constant_folding=True, export_params=True)
    with torch.no_grad():
        traced = torch.jit.trace(model, tensors)
        frozen = torch.jit.freeze(traced)
        torch.jit.save(frozen, os.path.join(out_dir, name + ".pt"))
        ref = model(*tensors)
    with open(os.path.join(out_dir, name + ".in.bin"), "wb") as f:
        for a in arrays:
            f.write(np.ascontiguousarray(a).tobytes())
    meta = {
        "name": name,
        "description": desc,
        "opset": opset,
        "batch": list(inputs.values())[0][0],
        "dynamic_batch": dynamic,
        "inputs": [{"name": n, "shape": s} for n, s in inputs.items()],
        "outputs": [{"name": "output", "shape": list(ref.shape)}],
        "flops": flops,
        "torch": torch.__version__,
    }
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir", nargs="?")
    p.add_argument("--only", default="", help="comma-separated workload names")
    p.add_argument("--list", action="store_true", help="print the workload names and exit")
    args = p.parse_args()
    if args.list:
        for n, w in WORKLOADS.items():
            print("%-14s %s" % (n, w[4]))
        return
    if not args.out_dir:
        p.error("OUT_DIR is required")
    names = [n for n in args.only.split(",") if n] or list(WORKLOADS)
    for n in names:
        if n not in WORKLOADS:
            sys.exit("models.py: unknown workload %r (known: %s)" % (n, ", ".join(WORKLOADS)))
    os.makedirs(args.out_dir, exist_ok=True)
    torch.set_num_threads(1)
    for n in names:
        meta = export(n, args.out_dir)
        print("models.py: %s -> %s.onnx/.pt (opset %d, output %s)"
              % (n, n, meta["opset"], meta["outputs"][0]["shape"]), flush=True)


if __name__ == "__main__":
    main()
