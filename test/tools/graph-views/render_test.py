#!/usr/bin/python3
"""tfcc --emit=html rendered in headless Chromium, and --emit=dot.

The HTML page of the seed CNN (shared/spec/models/mnist_cnn.mlir) and of the
training CNN's forward entries is loaded by Chromium (Debian's `chromium`):
  - its DOM (--dump-dom) holds a node for every node of the model's GraphDef
    (tfcc --emit=graphdef, decoded with test/tools/tensorboard's protos) and
    the model's own node names (the .mlir's loc("...") names that survive
    fusion), each entry's scope, and no reference to anything outside the
    page (self-contained: no src=, href= or url( but the page's own marker);
  - its screenshot is not blank: at least 2% of the pixels are not white, in
    more than one colour (boxes, edges, text).
The DOT output names the same nodes with an edge per input, and where the
memory plan puts each layer's buffer in the arena (checked against the
layers' shapes).
Usage: render_test.py TFCC SPEC_MODELS_DIR SOURCE_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys

from PIL import Image

TFCC, SPEC, SRC, WORK = sys.argv[1:5]
sys.path.insert(0, os.path.join(SRC, "test", "tools", "tensorboard"))
from event_reader import protos  # noqa: E402

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []
pb = protos(WORK)


def check(what, ok, detail=""):
    print(f"{'ok' if ok else 'FAILED'}: {what}{' (' + str(detail)[:400] + ')' if not ok else ''}")
    if not ok:
        failures.append(what)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    sys.exit("FAILED: no chromium (Debian package chromium, .ci/install-deps.sh)")
HEADLESS = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=" + os.path.join(WORK, "chromium-profile")]

for name, model, args, model_names in [
    ("seed CNN", os.path.join(SPEC, "mnist_cnn.mlir"), [],
     ["conv1", "pool1", "conv2", "pool2", "flatten", "dense1", "dense2", "softmax"]),
    ("training CNN", os.path.join(SRC, "examples/train_fashion_mnist/mnist_cnn_train.mlir"),
     ["--no-train"], ["conv1", "pool1", "conv2", "pool2", "flatten", "dense1", "dense2",
                      "softmax", "loss"]),
]:
    stem = os.path.join(WORK, name.replace(" ", "_"))
    for kind in ("html", "graphdef", "dot"):
        subprocess.check_call([TFCC, model, *args, f"--emit={kind}", "-o", f"{stem}.{kind}"])
    with open(f"{stem}.graphdef", "rb") as f:
        graph = pb.GraphDef.FromString(f.read())
    nodes = [n.name for n in graph.node]
    scopes = sorted({n.split("/", 1)[0] for n in nodes})

    dom = subprocess.run([*HEADLESS, "--dump-dom", "file://" + f"{stem}.html"],
                         capture_output=True, text=True, timeout=120).stdout
    named = set(re.findall(r'data-name="([^"]*)"', dom))
    missing = [n for n in nodes if n not in named]
    check(f"{name}: the DOM has all {len(nodes)} nodes", nodes and not missing, missing)
    texts = set(re.findall(r">([^<>]+)</text>", dom))
    check(f"{name}: the model's node names are shown",
          all(n in texts for n in model_names), sorted(texts))
    check(f"{name}: a scope per entry", all(f'data-entry="{s}"' in dom for s in scopes), scopes)
    with open(f"{stem}.html") as f:
        page = f.read()
    external = re.findall(r'(?:src|href)="[^"#]|url\((?!#arrow)', page)
    check(f"{name}: self-contained", not external, external)

    shot = f"{stem}.png"
    subprocess.run([*HEADLESS, "--window-size=1400,1200", f"--screenshot={shot}",
                    "file://" + f"{stem}.html"], capture_output=True, timeout=120)
    if not os.path.exists(shot):
        check(f"{name}: a screenshot", False, "none written")
        continue
    image = Image.open(shot).convert("RGB")
    pixels = list(image.getdata())
    inked = [p for p in pixels if p != (255, 255, 255)]
    check(f"{name}: the screenshot is not blank", len(inked) > 0.02 * len(pixels)
          and len(set(inked)) > 8, f"{len(inked)} of {len(pixels)} pixels, {len(set(inked))} colours")

    with open(f"{stem}.dot") as f:
        dot = f.read()
    check(f"{name}: DOT is a digraph with a cluster per entry", dot.startswith("digraph")
          and all(f'subgraph "cluster_{s}"' in dot for s in scopes))
    declared = set(re.findall(r'^    "([^"]+)" \[label=', dot, re.M))
    check(f"{name}: DOT declares every node", set(nodes) == declared,
          set(nodes) ^ declared)
    edges = len(re.findall(r'^  "[^"]+" -> "[^"]+"', dot, re.M))
    inputs = sum(len(n.input) for n in graph.node)
    check(f"{name}: DOT has an edge per input ({inputs})", edges == inputs, edges)

    # The memory plan's place of each node's buffer: per image, its output's
    # elements times 4 bytes (the shapes from the GraphDef), 64-byte aligned
    # offsets, and buffers live at once (a node's input and output) apart.
    if name == "seed CNN":
        placed = {}
        for node, offset, size in re.findall(
                r'"predict/(\w+)" \[label="[^"]*\\narena @(\d+|\d+\*batch), (\d+)\*batch bytes"', dot):
            placed[node] = (0 if offset == "0" else int(offset.split("*")[0]), int(size))
        per_image = {"conv1": 26 * 26 * 32, "pool1": 13 * 13 * 32, "conv2": 11 * 11 * 64,
                     "pool2": 5 * 5 * 64, "dense1": 64}
        check("seed CNN: DOT places each layer's output in the arena",
              all(placed.get(n, (0, 0))[1] == 4 * e for n, e in per_image.items()), placed)
        check("seed CNN: arena offsets 64-byte aligned",
              all(o % 64 == 0 for o, _ in placed.values()), placed)
        overlap = [(a, b) for a, b in [("conv1", "pool1"), ("pool1", "conv2"), ("conv2", "pool2")]
                   if a in placed and b in placed and
                   max(placed[a][0], placed[b][0]) <
                   min(placed[a][0] + placed[a][1], placed[b][0] + placed[b][1])]
        check("seed CNN: a node's input and output buffers do not overlap", not overlap, overlap)
        check("seed CNN: the page shows the arena offsets",
              "arena @0, 86528*batch bytes" in texts, sorted(t for t in texts if "arena" in t))

if failures:
    print("FAILED:", ", ".join(failures))
    sys.exit(1)
print("all passed")
