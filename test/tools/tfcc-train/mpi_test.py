#!/usr/bin/python3
"""tfcc-train --mpi (docs/distributed.md) under mpirun on this machine.

1. Equivalence: a CNN without batch norm or dropout
   (Inputs/small_cnn_train.mlir), 10 steps of global batch 64 on Fashion-MNIST:
   2 and 3 replicas (shares of 32/32 and 21/21/22 samples) end with every
   variable (weights, Adam slots, step counter) within 1e-5 of the largest
   magnitude of the one-process run's, and print the same losses.
2. The seed CNN (batch norm, dropout) trained for 2 epochs on Fashion-MNIST
   by 2 ranks x 1 thread reaches the test accuracy of 1 process x 2 threads
   (+-0.5 points; both checkpoints evaluated on the 10,000 test images through
   the Python package); both runs' ms/step are printed.
3. A rank killed mid-training makes mpirun end the others (no hang: a
   timeout), with a message naming the rank; a replica that fails (rank 0
   cannot save its checkpoint) ends every replica, naming itself.
4. --mpi with a model built without --split-train-step is refused.
Skipped (exit 77, saying why) where tfcc-train has no MPI or mpirun is absent.
Usage (PYTHONPATH holding the package):
  mpi_test.py TFCC TFCC_TRAIN SOURCE_DIR DATA_DIR WORK_DIR
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

import tfcc

TFCC, TRAIN, SRC, DATA, WORK = sys.argv[1:6]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []

MPIRUN = shutil.which("mpirun")
probe = subprocess.run([TRAIN, "--mpi", os.path.join(WORK, "none.so")], capture_output=True,
                       text=True, timeout=60)
if "built without Open MPI" in probe.stderr or MPIRUN is None:
    print("SKIPPED: " + ("tfcc-train was built without Open MPI" if MPIRUN else "no mpirun")
          + " (install openmpi-bin and libopenmpi-dev: .ci/install-deps.sh)")
    sys.exit(77)

# mpirun refuses root unless told; containers may forbid the cross-memory
# attach of Open MPI's shared-memory transport.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_btl_vader_single_copy_mechanism="none")
IDX = ["--idx-images", os.path.join(DATA, "train-images-idx3-ubyte"),
       "--idx-labels", os.path.join(DATA, "train-labels-idx1-ubyte")]


def check(what, ok, detail=""):
    print(f"{'ok' if ok else 'FAILED'}: {what}{' (' + str(detail) + ')' if not ok else ''}")
    if not ok:
        failures.append(what)


def train(*args, ranks=0, timeout=900):
    command = [TRAIN, *args]
    if ranks:
        command = [MPIRUN, "--oversubscribe", "-np", str(ranks), TRAIN, "--mpi", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=ENV)


def variables(model, checkpoint):
    m = tfcc.load(model)
    m.load_checkpoint(checkpoint)
    return {v.name: np.asarray(m.get_variable(v.name), dtype=np.float64) for v in m.variables}


def worst_relative(got, reference, skip=()):
    """Largest |got - reference| of a variable over the reference's largest magnitude."""
    return max(np.max(np.abs(got[n] - v)) / max(np.max(np.abs(v)), 1e-30)
               for n, v in reference.items() if n not in skip)


def losses(stdout):
    return [float(v) for v in re.findall(r"loss ([0-9.]+)", stdout)]


# --- 1. replicas train as one process -----------------------------------------------
small = os.path.join(WORK, "small.so")
subprocess.check_call([TFCC, os.path.join(SRC, "test/tools/tfcc-train/Inputs/small_cnn_train.mlir"),
                       "--split-train-step", "-o", small])
common = [small, *IDX, "--limit", "640", "--batch-size", "64"]
one = train(*common, "--save-checkpoint", os.path.join(WORK, "one.tfck"))
check("one process trains", one.returncode == 0, one.stderr)
reference = variables(small, os.path.join(WORK, "one.tfck"))
for ranks in (2, 3):
    ckpt = os.path.join(WORK, f"ranks{ranks}.tfck")
    run = train(*common, "--save-checkpoint", ckpt, ranks=ranks)
    print(run.stdout, run.stderr)
    check(f"{ranks} replicas train", run.returncode == 0, run.stderr)
    check(f"{ranks} replicas: rank 0 alone prints",
          run.stdout.count("10 steps") == 1 and f"split across {ranks} replicas" in run.stdout,
          run.stdout)
    if run.returncode:
        continue
    got = variables(small, ckpt)
    worst = worst_relative(got, reference)
    print(f"{ranks} replicas vs one process: largest relative difference {worst:.3g}")
    check(f"{ranks} replicas: every variable within 1e-5 of one process's after 10 steps",
          worst <= 1e-5, worst)
    check(f"{ranks} replicas: the step counter is 10", got["train_step/step"] == 10)
    check(f"{ranks} replicas: the printed loss is one process's",
          np.allclose(losses(run.stdout), losses(one.stdout), atol=1e-4),
          (losses(run.stdout), losses(one.stdout)))
# A partial last global batch: 643 samples give 10 batches of 64 and one of 3,
# which 4 replicas share as 0, 1, 1, 1 samples (a replica with none adds
# nothing and still applies the average). --logdir: rank 0 alone writes.
tail_common = [small, *IDX, "--limit", "643", "--batch-size", "64"]
one_tail = train(*tail_common, "--save-checkpoint", os.path.join(WORK, "one_tail.tfck"))
four = train(*tail_common, "--save-checkpoint", os.path.join(WORK, "four.tfck"), "--logdir",
             os.path.join(WORK, "logs"), ranks=4)
check("4 replicas with a partial last batch train", four.returncode == 0, four.stderr)
if four.returncode == 0 and one_tail.returncode == 0:
    a = variables(small, os.path.join(WORK, "one_tail.tfck"))
    b = variables(small, os.path.join(WORK, "four.tfck"))
    worst = worst_relative(b, a)
    check("4 replicas, 11 steps with a share of none: within 1e-5 of one process", worst <= 1e-5,
          worst)
    check("4 replicas: the step counter is 11", b["train_step/step"] == 11)
    events = os.listdir(os.path.join(WORK, "logs", "train"))
    check("--logdir: one event file, rank 0's", len(events) == 1, events)

# The tolerance tells a replica that trained on its share alone (batches of
# 32, no averaging) from one that averaged: such a run is far from 1e-5.
alone = train(small, *IDX, "--limit", "320", "--batch-size", "32", "--save-checkpoint",
              os.path.join(WORK, "alone.tfck"))
got = variables(small, os.path.join(WORK, "alone.tfck"))
worst = worst_relative(got, reference, skip=("train_step/step",))
check("the comparison can fail: 10 steps on shares alone differ by over 1e-3", worst > 1e-3,
      worst)

# mixed_f16: the loss scale's skip decision is the same on every replica (the
# summed gradients keep an infinity), so replicas stay together.
f16 = os.path.join(WORK, "small_f16.so")
subprocess.check_call([TFCC, os.path.join(SRC, "test/tools/tfcc-train/Inputs/small_cnn_train.mlir"),
                       "--split-train-step", "--precision=mixed_f16", "-o", f16])
f16_common = [f16, *IDX, "--limit", "640", "--batch-size", "64"]
one16 = train(*f16_common, "--save-checkpoint", os.path.join(WORK, "one16.tfck"))
two16 = train(*f16_common, "--save-checkpoint", os.path.join(WORK, "two16.tfck"), ranks=2)
check("mixed_f16: one process and 2 replicas train", one16.returncode == two16.returncode == 0,
      one16.stderr + two16.stderr)
if one16.returncode == two16.returncode == 0:
    a, b = variables(f16, os.path.join(WORK, "one16.tfck")), variables(
        f16, os.path.join(WORK, "two16.tfck"))
    check("mixed_f16: the same loss scale and step count",
          a["train_step/loss_scale"] == b["train_step/loss_scale"] and
          a["train_step/step"] == b["train_step/step"] == 10,
          (a["train_step/loss_scale"], b["train_step/loss_scale"]))
    # f16 rounds each layer's output: another summation order may move a value
    # by an f16 unit (2^-11), so the bound is f16's, not f32's.
    worst = worst_relative(b, a)
    check("mixed_f16: every variable within 1e-2 of one process's", worst <= 1e-2, worst)
    print(f"mixed_f16, 2 replicas vs one process: largest relative difference {worst:.3g}")

# --- 2. the seed CNN: the same test accuracy ------------------------------------------
cnn = os.path.join(WORK, "cnn.so")
subprocess.check_call([TFCC, os.path.join(SRC, "examples/train_fashion_mnist/mnist_cnn_train.mlir"),
                       "--split-train-step", "-o", cnn])


def read_idx(name):
    with open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * d:8 + 4 * d], "big") for d in range(dims)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


test_x = (read_idx("t10k-images-idx3-ubyte").astype(np.float32) / 255).reshape(-1, 28, 28, 1)
test_y = read_idx("t10k-labels-idx1-ubyte").astype(np.int64)


def test_accuracy(checkpoint):
    m = tfcc.load(cnn, max_batch=1000)
    m.load_checkpoint(checkpoint)
    correct = 0
    for k in range(0, len(test_x), 1000):
        correct += int(np.sum(np.argmax(m.predict(test_x[k:k + 1000]), 1) == test_y[k:k + 1000]))
    return 100.0 * correct / len(test_x)


fit = [cnn, *IDX, "--epochs", "2", "--batch-size", "64", "--seed", "1"]
single = train(*fit, "--threads", "2", "--save-checkpoint", os.path.join(WORK, "cnn1.tfck"))
check("seed CNN, 1 process x 2 threads", single.returncode == 0, single.stderr)
double = train(*fit, "--threads", "1", "--save-checkpoint", os.path.join(WORK, "cnn2.tfck"),
               ranks=2)
check("seed CNN, 2 ranks x 1 thread", double.returncode == 0, double.stderr)
print(single.stdout, double.stdout)
if single.returncode == 0 and double.returncode == 0:
    a1 = test_accuracy(os.path.join(WORK, "cnn1.tfck"))
    a2 = test_accuracy(os.path.join(WORK, "cnn2.tfck"))
    print(f"test accuracy after 2 epochs: 1 process {a1:.2f}%, 2 ranks {a2:.2f}%")
    check("2 ranks reach 1 process's test accuracy (+-0.5 points)", abs(a1 - a2) <= 0.5,
          (a1, a2))
    check("the seed CNN learned (test accuracy over 85%)", min(a1, a2) > 85, (a1, a2))
    for label, run in (("1 process x 2 threads", single), ("2 ranks x 1 thread", double)):
        print(f"throughput, {label}: ms/step per epoch "
              f"{re.findall(r'([0-9.]+) ms/step', run.stdout)}")

# --- 3. a rank that dies, a replica that fails ---------------------------------------
process = subprocess.Popen([MPIRUN, "--oversubscribe", "-np", "2", TRAIN, "--mpi", *common,
                            "--epochs", "1000000"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=ENV)
started = False
for line in process.stdout:
    if line.startswith("epoch 2/"):
        started = True
        break
ranks = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True,
                       text=True).stdout.split()
check("two ranks run", started and len(ranks) == 2, ranks)
if ranks:
    os.kill(int(ranks[-1]), signal.SIGKILL)
try:
    _, err = process.communicate(timeout=120)
    check("a killed rank ends the run", process.returncode != 0, process.returncode)
    check("mpirun names the rank that died",
          re.search(r"process rank \d .* exited on signal 9", err) is not None, err)
except subprocess.TimeoutExpired:
    process.kill()
    check("a killed rank ends the run (no hang)", False, "still running after 120 s")

run = train(*common, "--save-checkpoint", os.path.join(WORK, "missing", "dir", "x.tfck"),
            ranks=2, timeout=120)
check("a failing replica ends the run", run.returncode != 0, run.returncode)
check("the failing replica names itself",
      "tfcc-train: rank 0: --save-checkpoint" in run.stderr, run.stderr)

# --- 4. refusals ----------------------------------------------------------------------
whole = os.path.join(WORK, "whole.so")
subprocess.check_call([TFCC, os.path.join(SRC, "test/tools/tfcc-train/Inputs/small_cnn_train.mlir"),
                       "-o", whole])
run = train(whole, *IDX, "--limit", "64", ranks=2, timeout=120)
check("--mpi without the halves is refused", run.returncode != 0 and
      "has no entries compute_gradients and apply_gradients (build it with tfcc "
      "--split-train-step)" in run.stderr, run.stderr)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
