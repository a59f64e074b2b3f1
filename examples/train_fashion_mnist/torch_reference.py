"""What the same training reaches in PyTorch: an independent reference for
train_fashion_mnist's accuracy (README.md, "Measured").

The model of mnist_cnn_train.mlir (NCHW here; same layers, Keras initializers:
truncated he_normal for the convolutions, glorot_uniform for the dense layers,
zero biases), Adam (lr 1e-3, eps 1e-7, added where PyTorch adds it), clip_grad_norm 1.0, batch norm eps 1e-3
and momentum 0.01 (Keras 0.99), dropout 0.25; the same data: pixels / 255, the
last 10% of the training set held out, the other 54000 in the order of
main.c's seeded splitmix64 shuffle, batches of 64; main.c's moving average of the
trainable weights (--ema-momentum, Keras' use_ema with TensorFlow's num_updates ramp;
0 turns it off), which validation and test use. Prints the validation loss and
accuracy per epoch and the final test accuracy (epoch 5's weights).

    /usr/bin/python3 examples/train_fashion_mnist/torch_reference.py --data build/data
"""
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn

M = (1 << 64) - 1


def splitmix(s):
    s = (s + 0x9E3779B97F4A7C15) & M
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return s, z ^ (z >> 31)


def shuffle(order, rng):
    for i in range(len(order), 1, -1):
        rng, r = splitmix(rng)
        j = r % i
        order[i - 1], order[j] = order[j], order[i - 1]
    return rng


def load(d, prefix):
    im = np.fromfile(f"{d}/{prefix}-images-idx3-ubyte", np.uint8)[16:].reshape(-1, 1, 28, 28)
    lb = np.fromfile(f"{d}/{prefix}-labels-idx1-ubyte", np.uint8)[8:]
    return torch.from_numpy(im.astype(np.float32) / 255.0), torch.from_numpy(lb.astype(np.int64))

p = argparse.ArgumentParser()
p.add_argument("--data", default="build/data")
p.add_argument("--epochs", type=int, default=5)
p.add_argument("--batch", type=int, default=64)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--ema-momentum", type=float, default=0.99)
a = p.parse_args()
torch.set_num_threads(1)
torch.manual_seed(a.seed)
x, y = load(a.data, "train")
xt, yt = load(a.data, "t10k")
nval = len(x) // 10
xf, yf, xv, yv = x[:-nval], y[:-nval], x[-nval:], y[-nval:]


def keras_init(m):
    if isinstance(m, nn.Conv2d):
        fan_in = m.weight[0].numel()
        std = math.sqrt(2.0 / fan_in) / 0.87962566103423978
        nn.init.trunc_normal_(m.weight, 0, std, -2 * std, 2 * std)
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
    if getattr(m, "bias", None) is not None and isinstance(m, (nn.Conv2d, nn.Linear)):
        nn.init.zeros_(m.bias)
model = nn.Sequential(
    nn.Conv2d(1, 32, 3, bias=False), nn.BatchNorm2d(32, eps=1e-3, momentum=0.01), nn.ReLU(),
    nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
    nn.Linear(1600, 64), nn.ReLU(), nn.Dropout(0.25), nn.Linear(64, 10))
model.apply(keras_init)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
lossf = nn.CrossEntropyLoss()
# main.c's WeightAverage: the trainable parameters only (not the batch-norm statistics).
average = [p.detach().clone() for p in model.parameters()]
steps = 0


def swap_average():
    """Exchanges the parameters and their averages."""
    with torch.no_grad():
        for p, avg in zip(model.parameters(), average):
            t = p.detach().clone()
            p.copy_(avg)
            avg.copy_(t)


def evaluate(xe, ye):
    model.eval()
    with torch.no_grad():
        out = torch.cat([model(xe[i:i + 1000]) for i in range(0, len(xe), 1000)])
    model.train()
    return lossf(out, ye).item(), (out.argmax(1) == ye).float().mean().item()
order = list(range(len(xf)))
for epoch in range(1, a.epochs + 1):
    rng = (a.seed * 0x100000001B3 + epoch) & M
    shuffle(order, rng)
    idx = torch.tensor(order)
    t0 = time.time(); tl = 0
    for s in range(0, len(xf), a.batch):
        b = idx[s:s + a.batch]
        opt.zero_grad(set_to_none=True)
        loss = lossf(model(xf[b]), yf[b])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if a.ema_momentum:
            d = min(a.ema_momentum, (1 + steps) / (10 + steps))
            with torch.no_grad():
                for p, avg in zip(model.parameters(), average):
                    avg.mul_(d).add_(p, alpha=1 - d)
        steps += 1
        tl += loss.item() * len(b)
    if a.ema_momentum:
        swap_average()
    vl, va = evaluate(xv, yv)
    if a.ema_momentum:
        swap_average()
    print(f"epoch {epoch}: loss {tl / len(xf):.4f} val_loss {vl:.4f} val_acc {va:.4f} {time.time() - t0:.0f}s", flush=True)
if a.ema_momentum:
    swap_average()
tl, ta = evaluate(xt, yt)
print(f"test loss {tl:.4f} accuracy {ta:.4f}")
