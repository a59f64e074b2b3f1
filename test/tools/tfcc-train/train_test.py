#!/usr/bin/python3
"""tfcc-train against the Python package driving the same model by hand.

1. In order (--no-shuffle), 2 epochs of batches of 32 over 96 random samples
   (.npy inputs): the checkpoint tfcc-train saves holds exactly the variables
   the package's own loop of train_step calls gives, and the printed epoch
   losses are the means of the package's step losses; then one more epoch
   from that checkpoint (--load-checkpoint) equals the package's next epoch.
2. IDX inputs (Fashion-MNIST), shuffled, with a validation split and
   --logdir: the loss falls, and the event files (read by
   test/tools/tensorboard/event_reader.py) hold the printed epoch_loss,
   epoch_accuracy in train/ and validation/ and the --graph; a mixed_f16
   build's also its loss scale per epoch.
3. Each bad command line is refused with a message.
Usage (PYTHONPATH holding the package): train_test.py TFCC TFCC_TRAIN SOURCE_DIR DATA_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np

import tfcc

TFCC, TRAIN, SRC, DATA, WORK = sys.argv[1:6]
sys.path.insert(0, os.path.join(SRC, "test", "tools", "tensorboard"))
from event_reader import read_events  # noqa: E402

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def check(what, ok, detail=""):
    print(f"{'ok' if ok else 'FAILED'}: {what}{' (' + str(detail) + ')' if not ok else ''}")
    if not ok:
        failures.append(what)


def train(*args):
    return subprocess.run([TRAIN, *args], capture_output=True, text=True, timeout=600)


model = os.path.join(WORK, "m.so")
subprocess.check_call([TFCC, os.path.join(SRC, "examples/train_fashion_mnist/mnist_cnn_train.mlir"),
                       "-o", model])
graph = os.path.join(WORK, "m.pb")
subprocess.check_call([TFCC, os.path.join(SRC, "examples/train_fashion_mnist/mnist_cnn_train.mlir"),
                       "--no-train", "--emit=graphdef", "-o", graph])
rng = np.random.default_rng(4)
x = rng.uniform(0, 1, (96, 28, 28, 1)).astype(np.float32)
y = rng.integers(0, 10, 96).astype(np.int32)
np.save(os.path.join(WORK, "x.npy"), x)
np.save(os.path.join(WORK, "y.npy"), y)
inputs = ["--input", os.path.join(WORK, "x.npy"), "--input", os.path.join(WORK, "y.npy")]

# --- 1. the same steps as the package's loop -------------------------------------
ckpt = os.path.join(WORK, "a.tfck")
run = train(model, *inputs, "--epochs", "2", "--batch-size", "32", "--no-shuffle",
            "--save-checkpoint", ckpt)
print(run.stdout, run.stderr)
check("in-order training succeeds", run.returncode == 0, run.stderr)
printed = [float(v) for v in re.findall(r"epoch \d/\d: 3 steps - loss ([0-9.]+)", run.stdout)]
reference = tfcc.load(model, max_batch=32)
epoch_losses = []
for epoch in range(3):
    losses = [float(reference.train_step(x[k:k + 32], y[k:k + 32])) for k in range(0, 96, 32)]
    epoch_losses.append(np.mean(losses))
    if epoch == 1:
        after_two = {v.name: reference.get_variable(v.name) for v in reference.variables}
after_three = {v.name: reference.get_variable(v.name) for v in reference.variables}
check("printed epoch losses are the package's", len(printed) == 2 and all(
    abs(p - e) <= 6e-5 for p, e in zip(printed, epoch_losses[:2])), (printed, epoch_losses))
saved = tfcc.load(model)
saved.load_checkpoint(ckpt)
diff = [n for n, v in after_two.items() if not np.array_equal(saved.get_variable(n), v)]
check("the saved checkpoint holds the package's variables, bit for bit", not diff, diff)
ckpt3 = os.path.join(WORK, "b.tfck")
run = train(model, *inputs, "--batch-size", "32", "--no-shuffle", "--load-checkpoint", ckpt,
            "--save-checkpoint", ckpt3)
check("training on from a checkpoint succeeds", run.returncode == 0, run.stderr)
saved.load_checkpoint(ckpt3)
diff = [n for n, v in after_three.items() if not np.array_equal(saved.get_variable(n), v)]
check("--load-checkpoint goes on where the package's third epoch does", not diff, diff)

# --learning-rate: the package's loop with the rate variable set to the same value.
ckpt_lr = os.path.join(WORK, "lr.tfck")
run = train(model, *inputs, "--batch-size", "32", "--no-shuffle", "--learning-rate", "0.0004",
            "--save-checkpoint", ckpt_lr)
check("training at --learning-rate 0.0004 succeeds", run.returncode == 0, run.stderr)
slow = tfcc.load(model, max_batch=32)
check("the compiled learning rate is the model's (Adam 1e-3)",
      float(slow.get_variable("train_step/learning_rate")) == np.float32(1e-3))
slow.set_variable("train_step/learning_rate", np.float32(0.0004))
for k in range(0, 96, 32):
    slow.train_step(x[k:k + 32], y[k:k + 32])
saved.load_checkpoint(ckpt_lr)
diff = [v.name for v in slow.variables
        if not np.array_equal(saved.get_variable(v.name), slow.get_variable(v.name))]
check("--learning-rate trains as the package's loop at that rate", not diff, diff)
fast = tfcc.load(model, max_batch=32)
for k in range(0, 96, 32):
    fast.train_step(x[k:k + 32], y[k:k + 32])
check("the rate changes the update", not np.array_equal(
    saved.get_variable("conv1_kernel"), fast.get_variable("conv1_kernel")))
# A model without the variable (as built before it existed: its name patched).
old_model = os.path.join(WORK, "old.so")
with open(model, "rb") as f:
    image = f.read()
with open(old_model, "wb") as f:
    f.write(image.replace(b"train_step/learning_rate\0", b"train_step/learning_ratX\0"))

# --- 2. IDX data, shuffled, validation, TensorBoard ---------------------------------
logdir = os.path.join(WORK, "logs")
run = train(model, "--idx-images", os.path.join(DATA, "train-images-idx3-ubyte"),
            "--idx-labels", os.path.join(DATA, "train-labels-idx1-ubyte"), "--limit", "1500",
            "--epochs", "2", "--batch-size", "64", "--validation-split", "0.2", "--threads", "2",
            "--logdir", logdir, "--graph", graph)
print(run.stdout, run.stderr)
check("IDX training succeeds", run.returncode == 0, run.stderr)
lines = re.findall(r"loss ([0-9.]+) - accuracy ([0-9.]+) - val_loss ([0-9.]+) - "
                   r"val_accuracy ([0-9.]+)", run.stdout)
values = [tuple(map(float, m)) for m in lines]
check("two epochs of loss, accuracy, val_loss, val_accuracy", len(values) == 2, run.stdout)
if len(values) == 2:
    check("the loss falls", values[1][0] < values[0][0], values)
for split, cols in (("train", (0, 1)), ("validation", (2, 3))):
    files = [f for f in os.listdir(os.path.join(logdir, split)) if "tfevents" in f]
    check(f"{split}: one event file", len(files) == 1, files)
    if not files:
        continue
    events = read_events(os.path.join(logdir, split, files[0]), WORK)
    scalars = {(v.tag, e.step): v.simple_value for e in events
               if e.WhichOneof("what") == "summary" for v in e.summary.value}
    expected = {(tag, step): values[step][col] for step in range(len(values))
                for tag, col in zip(("epoch_loss", "epoch_accuracy"), cols)}
    if split == "train":  # the learning rate, Adam's 1e-3
        expected.update({("epoch_learning_rate", step): 1e-3 for step in range(len(values))})
    check(f"{split}: the printed scalars", sorted(scalars) == sorted(expected) and all(
        abs(scalars[k] - v) <= 5e-5 for k, v in expected.items()), (scalars, expected))
    graphs = [e for e in events if e.WhichOneof("what") == "graph_def"]
    check(f"{split}: the graph only in train/", len(graphs) == (split == "train"), len(graphs))

# --- the loss scale of a --precision=mixed_f16 build ----------------------------------
f16 = os.path.join(WORK, "f16.so")
subprocess.check_call([TFCC, os.path.join(SRC, "examples/train_fashion_mnist/mnist_cnn_train.mlir"),
                       "--precision=mixed_f16", "-o", f16])
f16_logs, f16_ckpt = os.path.join(WORK, "f16_logs"), os.path.join(WORK, "f16.tfck")
run = train(f16, *inputs, "--epochs", "2", "--logdir", f16_logs, "--save-checkpoint", f16_ckpt)
check("mixed_f16 training succeeds", run.returncode == 0, run.stderr)
files = [f for f in os.listdir(os.path.join(f16_logs, "train")) if "tfevents" in f]
scales = {e.step: v.simple_value for e in read_events(os.path.join(f16_logs, "train", files[0]), WORK)
          if e.WhichOneof("what") == "summary" for v in e.summary.value if v.tag == "loss_scale"}
m16 = tfcc.load(f16)
m16.load_checkpoint(f16_ckpt)
final = float(m16.get_variable("train_step/loss_scale"))
check("loss_scale per epoch, the last one the model's", sorted(scales) == [0, 1]
      and scales[1] == final, (scales, final))
check("no loss_scale for a float32 build", not any(
    v.tag == "loss_scale" for e in read_events(os.path.join(logdir, "train", [
        f for f in os.listdir(os.path.join(logdir, "train")) if "tfevents" in f][0]), WORK)
    if e.WhichOneof("what") == "summary" for v in e.summary.value))

# --- 3. refusals ---------------------------------------------------------------------
inference = os.path.join(WORK, "inference.so")
subprocess.check_call([TFCC, os.path.join(SRC, "examples/mnist/mnist_cnn.mlir"), "-o", inference])
np.save(os.path.join(WORK, "y_short.npy"), y[:50])
np.save(os.path.join(WORK, "x_wrong.npy"), x[:, :27])
np.save(os.path.join(WORK, "y_float.npy"), y.astype(np.float32))
blocker = os.path.join(WORK, "a_file")
open(blocker, "w").close()
# An IDX header declaring 4 dims of 2^32 - 1: more elements than 64 bits hold.
huge_idx = os.path.join(WORK, "huge.idx")
with open(huge_idx, "wb") as f:
    f.write(bytes([0, 0, 8, 4]) + b"\xff" * 16)
for what, args, message in [
    ("a model without a train step", [inference, *inputs], "has no train step"),
    ("a missing input", [model, "--input", os.path.join(WORK, "x.npy")],
     "train_step takes 2 inputs, 1 --input given"),
    ("inputs of different sample counts",
     [model, "--input", os.path.join(WORK, "x.npy"), "--input", os.path.join(WORK, "y_short.npy")],
     "input 'label' has 50 samples, the first 96"),
    ("samples of the wrong shape",
     [model, "--input", os.path.join(WORK, "x_wrong.npy"), "--input", os.path.join(WORK, "y.npy")],
     "input 'image' of train_step expects f32 [batch, 28, 28, 1], the data is f32 [96, 27, 28, 1]"),
    ("labels of the wrong dtype",
     [model, "--input", os.path.join(WORK, "x.npy"), "--input", os.path.join(WORK, "y_float.npy")],
     "input 'label' of train_step expects i32"),
    ("npy and IDX together", [model, *inputs, "--idx-images", "a", "--idx-labels", "b"], "not both"),
    ("a file that is not IDX", [model, "--idx-images", os.path.join(WORK, "x.npy"),
                                "--idx-labels", os.path.join(WORK, "y.npy")],
     "is not an IDX file of unsigned bytes"),
    ("an IDX file of impossible dims", [model, "--idx-images", huge_idx, "--idx-labels",
                                        huge_idx], "declares more elements than fit in 64 bits"),
    ("--graph without --logdir", [model, *inputs, "--graph", graph],
     "--graph cannot take effect without --logdir"),
    ("a validation split of 1", [model, *inputs, "--validation-split", "1"], "is not in [0, 1)"),
    ("zero threads", [model, *inputs, "--threads", "0"], "must be at least 1"),
    ("a learning rate of 0", [model, *inputs, "--learning-rate", "0"],
     "--learning-rate must be a positive number"),
    ("--learning-rate for a model without the variable",
     [old_model, *inputs, "--learning-rate", "0.01"],
     "--learning-rate cannot take effect: '" + old_model + "' has no variable "
     "train_step/learning_rate"),
    ("a missing checkpoint", [model, *inputs, "--load-checkpoint", os.path.join(WORK, "none")],
     "--load-checkpoint"),
    ("an impossible --logdir", [model, *inputs, "--logdir", os.path.join(blocker, "logs")],
     "--logdir: cannot create the folder"),
]:
    run = train(*args)
    check(f"{what} refused", run.returncode == 1 and message in run.stderr,
          f"{run.returncode} {run.stderr}")

if failures:
    print("FAILED:", ", ".join(failures))
    sys.exit(1)
print("all passed")
