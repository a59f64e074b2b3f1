#!/usr/bin/python3
"""Compiled training against PyTorch autograd (an independent implementation).

For the spec's MLP and CNN training models, with the weights tfcc initialized
(read back with get_variable of the tfcc Python package, tools/python/tfcc,
which also runs train_step), on one random batch:
  1. gradients: a copy of the model with SGD(learning_rate = 1) and no
     clipping makes one train_step's update equal to minus the gradient, which
     must match torch.autograd's gradient of the same loss;
  2. one Adam step of the model as written (Adam + clip_norm 1.0) must match
     the Keras update formula (docs/autodiff.md) applied to PyTorch's gradient;
  3. the returned loss must match PyTorch's.
The CNN runs batch norm in training mode and dropout with tfcc's documented
mask generator (docs/autodiff.md, "Dropout mask"), re-implemented here.
Tolerances: 1e-4 relative (max-norm) for losses and gradients, 2e-3 for the
Adam update (step one divides by sqrt(v): for gradients near epsilon the f32
rounding of the gradient shows; a wrong formula, e.g. without bias correction,
is off by a factor of 3). Usage, with PYTHONPATH holding the tfcc package:
  pytorch_agreement.py TFCC SPEC_MODELS_DIR WORK_DIR
"""
import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

import tfcc

TFCC, SPEC, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)
torch.set_num_threads(1)
failures = []


def rel(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    scale = np.max(np.abs(b))
    err = np.max(np.abs(a - b))
    return err / scale if scale > 0 else err


def check(what, a, b, tol):
    e = rel(a, b)
    print(f"{what}: max relative error {e:.2e} (tolerance {tol:g}) "
          f"{'ok' if e <= tol else 'FAILED'}")
    if not e <= tol:
        failures.append(what)


def compile_and_load(src_text, name, prefix, batch):
    """The model `src_text` compiled by tfcc and loaded through the tfcc
    Python package (tools/python/tfcc) with a context for `batch`."""
    path = os.path.join(WORK, name + ".mlir")
    with open(path, "w") as f:
        f.write(src_text)
    so = os.path.join(WORK, name + ".so")
    subprocess.check_call([TFCC, path, "-o", so])
    model = tfcc.load(so, max_batch=batch)
    assert model.prefix == prefix, f"{so}: prefix {model.prefix}, not {prefix}"
    return model


def get(model, name, shape):
    value = model.get_variable(name)
    assert value.shape == shape and value.dtype == np.float32, \
        f"variable {name}: {value.dtype}{value.shape}, not float32{shape}"
    return value


def sgd_variant(text):
    text = re.sub(r"optimizer = #graph\.adam<[^>]*>", "optimizer = #graph.sgd<learning_rate = 1.0>", text)
    return re.sub(r",\s*clip_norm = [0-9.e+-]+ : f32", "", text)


def keras_adam_first_step(w, g, lr=1e-3, b1=0.9, b2=0.999, eps=1e-7):
    g = g.astype(np.float64)
    m = (1 - b1) * g
    v = (1 - b2) * g * g
    lr_t = lr * np.sqrt(1 - b2) / (1 - b1)
    return w - lr_t * m / (np.sqrt(v) + eps)


def clip_by_global_norm(grads, clip):
    norm = np.sqrt(sum(float(np.sum(g.astype(np.float64) ** 2)) for g in grads))
    return [g * (clip / max(norm, clip)) for g in grads]


def splitmix64(x):
    m = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def dropout_mask(shape, rate, seed, step):
    m = (1 << 64) - 1
    key = splitmix64((seed * 0x9E3779B97F4A7C15 + step) & m)
    n = int(np.prod(shape))
    u = np.array([(splitmix64((key + i) & m) >> 40) * 2.0 ** -24 for i in range(n)])
    keep = np.float32(1.0 / (1.0 - np.float64(np.float32(rate))))
    return np.where(u >= np.float64(np.float32(rate)), keep, np.float32(0)).reshape(shape).astype(np.float32)


def run(name, text, prefix, variables, torch_loss, x, y):
    """variables: [(name, shape, trainable)]; torch_loss(params dict) -> loss."""
    trainable = [v for v in variables if v[2]]
    # 1. gradients through SGD(1)
    sgd = compile_and_load(sgd_variant(text), name + "_sgd", prefix, x.shape[0])
    w0 = {n: get(sgd, n, s) for n, s, _ in variables}
    loss_tfcc = float(sgd.train_step(x, y))
    params = {n: torch.tensor(w0[n], dtype=torch.float32, requires_grad=t)
              for n, s, t in variables}
    loss = torch_loss(params)
    loss.backward()
    check(f"{name}: loss", loss_tfcc, loss.item(), 1e-4)
    torch_grads = {}
    for n, s, _ in trainable:
        g_tfcc = w0[n] - get(sgd, n, s)
        torch_grads[n] = params[n].grad.numpy()
        check(f"{name}: gradient of {n}", g_tfcc, torch_grads[n], 1e-4)
    # 2. one Adam step with clip_norm 1.0, as the model is written
    adam = compile_and_load(text, name + "_adam", prefix, x.shape[0])
    adam.train_step(x, y)
    clipped = clip_by_global_norm([torch_grads[n] for n, _, _ in trainable], 1.0)
    for (n, s, _), g in zip(trainable, clipped):
        expected = keras_adam_first_step(w0[n].astype(np.float64), g)
        check(f"{name}: Adam update of {n}", w0[n] - get(adam, n, s),
              w0[n] - expected, 2e-3)


rng = np.random.default_rng(5)

# --- MLP ---------------------------------------------------------------------
with open(os.path.join(SPEC, "mlp_train.mlir")) as f:
    mlp_text = f.read()
x = rng.uniform(0, 1, (8, 784)).astype(np.float32)
y = rng.integers(0, 10, 8).astype(np.int32)


def mlp_loss(p):
    h = F.relu(torch.from_numpy(x) @ p["hidden_kernel"] + p["hidden_bias"])
    logits = h @ p["out_kernel"] + p["out_bias"]
    return F.cross_entropy(logits, torch.from_numpy(y).long())


run("mlp", mlp_text, "mlp",
    [("hidden_kernel", (784, 128), True), ("hidden_bias", (128,), True),
     ("out_kernel", (128, 10), True), ("out_bias", (10,), True)],
    mlp_loss, x, y)

# --- CNN (batch norm in training mode, dropout with tfcc's mask) -------------
with open(os.path.join(SPEC, "mnist_cnn_train.mlir")) as f:
    cnn_text = f.read()
B = 4
xc = rng.uniform(0, 1, (B, 28, 28, 1)).astype(np.float32)
yc = rng.integers(0, 10, B).astype(np.int32)
mask = torch.from_numpy(dropout_mask((B, 64), 0.25, 7, 0))


def cnn_loss(p):
    t = torch.from_numpy(xc).permute(0, 3, 1, 2)
    c1 = F.conv2d(t, p["conv1_kernel"].permute(3, 2, 0, 1))
    mean = c1.mean(dim=(0, 2, 3), keepdim=True)
    var = ((c1 - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
    n1 = (c1 - mean) / torch.sqrt(var + 1e-3) * p["bn1_gamma"].view(1, -1, 1, 1) \
        + p["bn1_beta"].view(1, -1, 1, 1)
    p1 = F.max_pool2d(F.relu(n1), 2, 2)
    c2 = F.conv2d(p1, p["conv2_kernel"].permute(3, 2, 0, 1), p["conv2_bias"])
    p2 = F.max_pool2d(F.relu(c2), 2, 2)
    flat = p2.permute(0, 2, 3, 1).reshape(B, 1600)
    d1 = F.relu(flat @ p["dense1_kernel"] + p["dense1_bias"]) * mask
    logits = d1 @ p["dense2_kernel"] + p["dense2_bias"]
    return F.cross_entropy(logits, torch.from_numpy(yc).long())


run("cnn", cnn_text, "mnist_cnn",
    [("conv1_kernel", (3, 3, 1, 32), True), ("bn1_gamma", (32,), True),
     ("bn1_beta", (32,), True), ("bn1_mean", (32,), False),
     ("bn1_variance", (32,), False), ("conv2_kernel", (3, 3, 32, 64), True),
     ("conv2_bias", (64,), True), ("dense1_kernel", (1600, 64), True),
     ("dense1_bias", (64,), True), ("dense2_kernel", (64, 10), True),
     ("dense2_bias", (10,), True)],
    cnn_loss, xc, yc)

if failures:
    print("FAILED:", ", ".join(failures))
    sys.exit(1)
print("all agree")
