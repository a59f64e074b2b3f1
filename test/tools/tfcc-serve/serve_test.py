#!/usr/bin/python3
"""tfcc-serve against tfcc-run: TF Serving's REST API on a loopback port.

Compiles the example CNN (one input, one output) and the training CNN (its
`loss` entry: two inputs), starts tfcc-serve on a free loopback port and checks:
  1. GET /v1/models/NAME and /metadata (the signature from the model's table);
  2. 1,000 predict requests from 8 concurrent clients, row and columnar forms,
     batches 1-4: every answer equal (exactly, as float32) to tfcc-run's outputs
     for the same inputs; p50 / p99 latency printed;
  3. each bad request gets its 4xx and a message naming the problem, and the
     server keeps serving;
  4. /metrics counts what was asked; SIGTERM stops the server with status 0;
  5. bad command lines are refused with a message.
A training model served with --checkpoint answers with the trained weights
(trained and saved through the Python package: PYTHONPATH holds it).
Usage: serve_test.py TFCC TFCC_RUN TFCC_SERVE SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import numpy as np

TFCC, TFCC_RUN, SERVE, SRC, WORK = sys.argv[1:6]
os.makedirs(WORK, exist_ok=True)
failures = []


def check(what, ok, detail=""):
    print(f"{'ok' if ok else 'FAILED'}: {what}{': ' + detail if detail and not ok else ''}")
    if not ok:
        failures.append(what)


def compile_model(src, name, *options):
    so = os.path.join(WORK, name + ".so")
    subprocess.check_call([TFCC, src, "-o", so, *options])
    return so


def start(so, *options):
    proc = subprocess.Popen([SERVE, so, "--port", "0", *options], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        proc.kill()
        sys.exit(f"tfcc-serve did not start: {line!r} {proc.stderr.read()!r}")
    return proc, f"http://127.0.0.1:{m.group(1)}"


def request(url, body=None, method=None, raw=None):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def reference(so, inputs, entry=None):
    """tfcc-run's outputs for these inputs (.npy in, .npy out)."""
    tag = f"ref{reference.count}"
    reference.count += 1
    args = [TFCC_RUN, so]
    if entry:
        args += ["--entry", entry]
    for i, x in enumerate(inputs):
        path = os.path.join(WORK, f"{tag}_in{i}.npy")
        np.save(path, x)
        args += ["--input", path]
    out = os.path.join(WORK, tag)
    subprocess.check_call(args + ["--output-dir", out], stdout=subprocess.DEVNULL)
    outputs = []
    while os.path.exists(os.path.join(out, f"output_{len(outputs)}.npy")):
        outputs.append(np.load(os.path.join(out, f"output_{len(outputs)}.npy")))
    return outputs


reference.count = 0

cnn = compile_model(os.path.join(SRC, "examples/mnist/mnist_cnn.mlir"), "cnn")
# With the train step's halves, which update the state too (--split-train-step).
train = compile_model(os.path.join(SRC, "examples/train_fashion_mnist/mnist_cnn_train.mlir"),
                      "train", "--split-train-step")
proc, base = start(cnn, "--threads", "2", "--max-batch", "8", "--max-body-bytes", "1000000",
                   "--model-name", "mnist")
url = base + "/v1/models/mnist"

# --- 1. status and metadata --------------------------------------------------
status, text = request(url)
check("status", status == 200 and json.loads(text)["model_version_status"][0]["state"]
      == "AVAILABLE", text)
status, text = request(url + "/versions/1")
check("status of version 1", status == 200, text)
status, text = request(url + "/metadata")
meta = json.loads(text)
sig = meta["metadata"]["signature_def"]["signature_def"]["serving_default"]
dims = [int(d["size"]) for d in sig["inputs"]["image"]["tensor_shape"]["dim"]]
check("metadata signature", status == 200 and dims == [-1, 28, 28, 1]
      and sig["inputs"]["image"]["dtype"] == "DT_FLOAT"
      and list(sig["outputs"]) == ["probs"], text[:300])

# --- 2. 1,000 requests from 8 clients, answers equal to tfcc-run's ------------
rng = np.random.default_rng(3)
cases = []
for k in range(24):
    x = rng.uniform(0, 1, (1 + k % 4, 28, 28, 1)).astype(np.float32)
    cases.append((x, reference(cnn, [x])[0]))
latencies, mismatches, errors = [], [], []
lock = threading.Lock()


def client(c):
    for i in range(125):
        x, expected = cases[(c * 125 + i) % len(cases)]
        rows = (c + i) % 2 == 0
        body = {"instances": x.tolist()} if rows else {"inputs": {"image": x.tolist()}}
        t0 = time.perf_counter()
        status, text = request(url + ":predict", body)
        dt = time.perf_counter() - t0
        with lock:
            latencies.append(dt)
            if status != 200:
                errors.append(text)
                continue
        answer = json.loads(text)
        got = np.array(answer["predictions" if rows else "outputs"], np.float32)
        if got.shape != expected.shape or not np.array_equal(got, expected):
            with lock:
                mismatches.append((c, i))


t0 = time.perf_counter()
threads = [threading.Thread(target=client, args=(c,)) for c in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
wall = time.perf_counter() - t0
check("1000 requests answered", len(latencies) == 1000 and not errors, str(errors[:2]))
check("1000 answers equal to tfcc-run's", not mismatches, str(mismatches[:5]))
lat = sorted(latencies)
print(f"latency over {len(lat)} requests (8 clients, batch 1-4, 2 contexts): "
      f"p50 {1e3 * statistics.median(lat):.2f} ms, p99 {1e3 * lat[int(0.99 * len(lat)) - 1]:.2f} ms, "
      f"{len(lat) / wall:.0f} requests/s")

# --- 3. bad requests: 4xx with a clear message, the server keeps serving ------
x1 = cases[0][0][:1]


def bad(what, code, fragment, body=None, raw=None, path=":predict", method=None):
    status, text = request(base + path if path.startswith(("/v1/", "/v2/")) else url + path,
                           body, method, raw)
    try:
        message = json.loads(text)["error"]
    except (ValueError, KeyError):
        message = None
    check(f"{what}: {code}", status == code and message is not None and fragment in message,
          f"{status} {text[:300]}")


bad("malformed JSON", 400, "malformed JSON", raw=b'{"instances": [1, 2')
bad("malformed JSON quoting invalid UTF-8", 400, "malformed JSON",
    raw=b'{"signature_name": "train_\xff\xff", "inputs": [[1,&2]]}')
bad("number overflow", 400, "malformed JSON: number overflow", raw=b'{"inputs": [1e99999]}')
bad("not an object", 400, "must be a JSON object", raw=b"[1]")
bad("wrong rank", 400, "input 'image' of predict has rank 3", {"instances": x1[0].tolist()})
bad("wrong dim", 400, "has 27 in dimension 1",
    {"instances": np.zeros((1, 27, 28, 1)).tolist()})
bad("ragged instances", 400, "instance 1 has shape [27, 28, 1], instance 0 [28, 28, 1]",
    {"instances": [[[[0.5]] * 28] * 28, [[[0.5]] * 28] * 27]})
bad("ragged tensor", 400, "is a ragged tensor",
    {"inputs": [[[[0.5]] * 28] * 27 + [[[0.5]] * 27]]})
bad("wrong dtype", 400, "input 'image' of predict is f32: expected numbers, element 0 is \"a\"",
    {"inputs": {"image": [[[["a"]] * 28] * 28]}})
bad("missing input", 400, "lacks input 'image'", {"inputs": {}})
bad("unknown input", 400, "no input named \"img\"", {"inputs": {"img": x1.tolist()}})
bad("both forms", 400, "not both", {"instances": x1.tolist(), "inputs": x1.tolist()})
bad("no form", 400, "needs \"instances\"", {"signature_name": "predict"})
bad("unknown key", 400, "unknown key \"instance\"", {"instance": x1.tolist()})
bad("unknown signature", 400, "no signature 'classify'",
    {"signature_name": "classify", "instances": x1.tolist()})
bad("batch above --max-batch", 400, "batch 9 exceeds this server's limit of 8",
    {"instances": np.zeros((9, 28, 28, 1)).tolist()})
bad("oversized body", 413, "exceeds 1000000 bytes", raw=b"[" + b"0.5," * 400000 + b"0]")
bad("too deep", 400, "deeper than 64", raw=b"[" * 100 + b"]" * 100)
bad("unknown model", 404, "no model 'resnet'", {"instances": x1.tolist()},
    path="/v1/models/resnet:predict")
bad("unknown version", 404, "no version '2'", path="/versions/2", method="GET")
bad("unknown endpoint", 404, "no endpoint GET /v2/models", path="/v2/models/mnist",
    method="GET")
bad("unknown POST endpoint", 404, "no endpoint POST /v1/models/mnist:classify",
    path=":classify", raw=b"{" + b" " * 20000 + b"}")
status, text = request(url + ":predict", {"instances": x1.tolist()})
check("serves after the bad requests", status == 200 and np.array_equal(
    np.array(json.loads(text)["predictions"], np.float32), cases[0][1][:1]), text[:200])

# --- 4. metrics, SIGTERM ------------------------------------------------------
status, text = request(base + "/metrics")
m = re.search(r'tfcc_serve_requests_total\{endpoint="predict",code="200"\} (\d+)', text)
check("metrics count the 1001 answered predicts", status == 200 and m and int(m.group(1)) == 1001,
      text)
m = re.search(r'tfcc_serve_requests_total\{endpoint="predict",code="400"\} (\d+)', text)
check("metrics count the 400s", m and int(m.group(1)) == 17, text)
proc.send_signal(signal.SIGTERM)
try:
    code = proc.wait(timeout=30)
except subprocess.TimeoutExpired:
    proc.kill()
    code = None
check("SIGTERM stops with status 0", code == 0, f"status {code}: {proc.stderr.read()}")

# --- the training model's loss entry: two inputs, a scalar output -------------
proc, base = start(train, "--threads", "1")
url = base + "/v1/models/mnist_cnn"
x = rng.uniform(0, 1, (3, 28, 28, 1)).astype(np.float32)
y = rng.integers(0, 10, 3).astype(np.int32)
expected = reference(train, [x, y], entry="loss")[0]
status, text = request(url + ":predict", {"signature_name": "loss",
                                          "inputs": {"image": x.tolist(), "label": y.tolist()}})
check("two inputs, columnar: loss equal to tfcc-run's", status == 200 and np.float32(
    json.loads(text)["outputs"]) == expected, f"{text[:200]} vs {expected}")
expected = reference(train, [x], entry="predict")[0]
status, text = request(url + ":predict", {"instances": [{"image": r.tolist()} for r in x]})
check("instances by input name", status == 200 and np.array_equal(
    np.array(json.loads(text)["predictions"], np.float32), expected), text[:200])
bad("rows of a scalar output", 400, "has no row per instance",
    {"signature_name": "loss", "instances": [{"image": r.tolist(), "label": int(l)}
                                             for r, l in zip(x, y)]})
bad("float label", 400, "input 'label' of loss is i32: expected integers in its range, "
    "element 1 is 1.5", {"signature_name": "loss",
                         "inputs": {"image": x.tolist(), "label": [1, 1.5, 2]}})
bad("batch disagreement", 400, "has batch 2, input 'image' 3",
    {"signature_name": "loss", "inputs": {"image": x.tolist(), "label": [1, 2]}})
bad("train step refused", 400, "is the model's train step",
    {"signature_name": "train_step", "inputs": {"image": x.tolist(), "label": y.tolist()}})
bad("compute_gradients refused", 400, "is the model's train step or a half of it",
    {"signature_name": "compute_gradients",
     "inputs": {"image": x.tolist(), "label": y.tolist()}})
bad("apply_gradients refused", 400, "is the model's train step or a half of it",
    {"signature_name": "apply_gradients", "inputs": {"gradients": [0.0] * 121962}})
status, text = request(url + "/metadata")
sigs = json.loads(text)["metadata"]["signature_def"]["signature_def"]
check("metadata lists the servable entries only",
      sorted(sigs) == ["loss", "predict", "serving_default"], str(sorted(sigs)))
proc.send_signal(signal.SIGINT)
check("SIGINT stops with status 0", proc.wait(timeout=30) == 0)

# --- --checkpoint: serve what training on the device learned ------------------
# Three train steps through the Python package (tools/python), saved; the
# server's predict must equal the trained model's, not the initial one's.
import tfcc  # noqa: E402  (PYTHONPATH: the build tree's package)
with tfcc.load(train, max_batch=3) as t:
    for _ in range(3):
        t.train_step(x, y)
    trained = t.predict(x)
    t.save_checkpoint(os.path.join(WORK, "trained.tfck"))
proc, base = start(train, "--threads", "2", "--checkpoint", os.path.join(WORK, "trained.tfck"))
status, text = request(base + "/v1/models/mnist_cnn:predict", {"instances": x.tolist()})
got = np.array(json.loads(text)["predictions"], np.float32) if status == 200 else None
check("--checkpoint: predictions of the trained weights", got is not None and np.array_equal(
    got, trained) and not np.array_equal(got, expected), text[:200])
proc.terminate()
proc.wait(timeout=30)

# --- 5. command lines ---------------------------------------------------------


def refused(what, args, fragment, code):
    r = subprocess.run([SERVE, *args], capture_output=True, text=True, timeout=60)
    check(f"{what} refused", r.returncode == code and fragment in r.stderr,
          f"{r.returncode} {r.stderr}")


refused("unknown option", [cnn, "--prot", "1"], "unknown option '--prot'", 2)
refused("bad port", [cnn, "--port", "http"], "invalid --port 'http'", 2)
refused("zero threads", [cnn, "--threads", "0"], "invalid --threads '0'", 2)
refused("no model", [], "no model given", 2)
refused("bad model name", [cnn, "--model-name", "a/b"], "--model-name 'a/b'", 2)
refused("not a model", [os.path.join(SRC, "README.md")], "is not an ELF shared library", 1)
refused("missing model", [os.path.join(WORK, "none.so")], "cannot read", 1)
refused("checkpoint without variables", [cnn, "--checkpoint", "x.ckpt"],
        "has no variables to load", 1)
refused("unreadable checkpoint", [train, "--checkpoint", os.path.join(WORK, "none.ckpt")],
        "--checkpoint", 1)
proc, base = start(cnn)
port = base.rsplit(":", 1)[1]
refused("port in use", [cnn, "--port", port], "cannot listen on 127.0.0.1:" + port, 1)
proc.terminate()
proc.wait(timeout=30)

if failures:
    print("FAILED:", ", ".join(failures))
    sys.exit(1)
print("all passed")
