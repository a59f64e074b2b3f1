#!/usr/bin/python3
"""TensorBoard event files of the training example, read back independently.

Trains 2 epochs on 2000 images with --logdir, then reads LOGDIR/train and
LOGDIR/validation with a reader built from the formats' specifications, not
from the writer's code (test/tools/tensorboard/event_reader.py).
Checks: one event file per folder, every CRC, the file_version event first,
the model's graph in train/ (a GraphDef with the model's node names under
each entry's scope and valid edges), and scalars epoch_loss / epoch_accuracy
at steps 0 and 1 equal (to the 4 printed decimals) to the losses and
accuracies the program printed per epoch.
A --logdir that cannot be created is refused with a message.
Usage: tensorboard_test.py PROGRAM DATA_DIR WORK_DIR
"""
import glob
import os
import re
import shutil
import subprocess
import sys

PROGRAM, DATA, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def check(what, ok, detail=""):
    print(f"{'ok' if ok else 'FAILED'}: {what}{' (' + str(detail) + ')' if not ok else ''}")
    if not ok:
        failures.append(what)


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "test", "tools", "tensorboard"))
from event_reader import protos, read_records  # noqa: E402

tb_event_pb2 = protos(WORK)


def check_graph(graph):
    """The model's graph (tfcc --emit=graphdef of mnist_cnn_train.mlir, its
    predict and loss entries): the model's node names under each entry's
    scope, valid edges, the batch as -1 in the shapes."""
    names = {n.name: n for n in graph.node}
    for scope in ("predict", "loss"):
        parts = {p for n in names if n.startswith(scope + "/")
                 for p in n[len(scope) + 1:].split("+")}
        for node in ("conv1", "pool1", "conv2", "pool2", "flatten", "dense1", "dense2",
                     "image", "conv1_kernel"):
            check(f"graph: {scope}/{node}", node in parts, sorted(parts))
    check("graph: predict's softmax and loss's loss",
          "predict/softmax" in names and "loss/loss" in names)
    check("graph: the input is a Placeholder", names.get("predict/image") and
          names["predict/image"].op == "Placeholder")
    dangling = [(n.name, i) for n in graph.node for i in n.input if i.split(":")[0] not in names]
    check("graph: every input names a node", not dangling, dangling[:3])
    conv1 = names.get("predict/conv1")
    shape = [d.size for d in conv1.attr["_output_shapes"].list.shape[0].dim] if conv1 else None
    check("graph: conv1's output shape [-1, 26, 26, 32], float", shape == [-1, 26, 26, 32]
          and conv1.attr["T"].type == 1, shape)


# --- train with --logdir --------------------------------------------------------
logdir = os.path.join(WORK, "logs")
run = subprocess.run([PROGRAM, "--data", DATA, "--out", os.path.join(WORK, "out"),
                      "--epochs", "2", "--patience", "2", "--limit-train", "2000",
                      "--limit-test", "500", "--no-export", "--logdir", logdir],
                     capture_output=True, text=True, timeout=600)
print(run.stdout)
check("training with --logdir succeeds", run.returncode == 0, run.stderr)
printed = [tuple(float(v) for v in m) for m in re.findall(
    r"epoch \d+/2: loss ([0-9.]+) - accuracy ([0-9.]+) - val_loss ([0-9.]+) - "
    r"val_accuracy ([0-9.]+)", run.stdout)]
check("two epoch lines printed", len(printed) == 2, printed)

for split, (loss_col, acc_col) in (("train", (0, 1)), ("validation", (2, 3))):
    files = glob.glob(os.path.join(logdir, split, "events.out.tfevents.*"))
    check(f"{split}: one event file", len(files) == 1, files)
    if not files:
        continue
    try:
        events = [tb_event_pb2.Event.FromString(r) for r in read_records(files[0])]
    except ValueError as e:
        check(f"{split}: framing", False, e)
        continue
    check(f"{split}: file_version first",
          events and events[0].WhichOneof("what") == "file_version"
          and events[0].file_version == "brain.Event:2", events[:1])
    rest = events[1:]
    if split == "train":
        graphs = [e for e in rest if e.WhichOneof("what") == "graph_def"]
        rest = [e for e in rest if e.WhichOneof("what") != "graph_def"]
        check("train: one graph event", len(graphs) == 1, len(graphs))
        if graphs:
            check_graph(tb_event_pb2.GraphDef.FromString(graphs[0].graph_def))
    scalars = {}
    for e in rest:
        check(f"{split}: summaries after the first event", e.WhichOneof("what") == "summary", e)
        check(f"{split}: wall time set", e.wall_time > 1.6e9, e.wall_time)
        for v in e.summary.value:
            scalars[(v.tag, e.step)] = v.simple_value
    expected = {}
    for step, values in enumerate(printed):
        expected[("epoch_loss", step)] = values[loss_col]
        expected[("epoch_accuracy", step)] = values[acc_col]
    check(f"{split}: the scalars Keras writes, per epoch", sorted(scalars) == sorted(expected),
          sorted(scalars))
    for key, value in expected.items():
        got = scalars.get(key)
        check(f"{split}: {key[0]} at step {key[1]} is the printed {value:.4f}",
              got is not None and abs(got - value) <= 5e-5, got)

# --- a --logdir that cannot be created -------------------------------------------
blocker = os.path.join(WORK, "a_file")
open(blocker, "w").close()
run = subprocess.run([PROGRAM, "--data", DATA, "--out", os.path.join(WORK, "out2"),
                      "--epochs", "1", "--limit-train", "200", "--limit-test", "100",
                      "--no-export", "--logdir", os.path.join(blocker, "logs")],
                     capture_output=True, text=True, timeout=600)
check("an impossible --logdir is refused with a message", run.returncode == 1 and
      "--logdir: cannot create the folder" in run.stderr, run.stderr)

if failures:
    print("FAILED:", ", ".join(failures))
    sys.exit(1)
print("all passed")
