#!/usr/bin/python3
"""Profiles of compiled models, read back as Chrome traces.

1. The C API (test/tools/Inputs/profile_api_test.c, strict C99 against the
   seed CNN's header): every error status, then a trace of three predict calls
   whose spans name each node of the model once per call, inside its call.
2. TFCC_PROFILE=FILE: tfcc-run's context writes FILE; two models in one
   process (tfcc-run --reference) write FILE and FILE's ".2" sibling; a file
   that cannot be written is reported, not a crash.
3. A train step (tfcc-run --train-steps 1 --profile=FILE on the training CNN):
   forward, "gradients/" and "optimizer/" spans; the printed table; tfcc-train
   under TFCC_PROFILE (one span of train_step per step); the Python package's
   start_profile / stop_profile.
4. --profile is refused where it cannot take effect.
Usage (PYTHONPATH holding the package): profile_test.py TFCC TFCC_RUN TFCC_TRAIN SPEC_MODELS_DIR SOURCE_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

TFCC, RUN, TRAIN, SPEC, SRC, WORK = sys.argv[1:7]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []

CNN_NODES = {"conv1", "pool1", "conv2", "pool2", "dense1", "dense2", "softmax"}
# %.3f microseconds in the file: spans may poke out of their call by rounding.
SLACK_US = 0.002


def check(what, ok, detail=""):
    print(f"{'ok' if ok else 'FAILED'}: {what}{' (' + str(detail)[:2000] + ')' if not ok else ''}")
    if not ok:
        failures.append(what)


def run(*args, env=None, check_rc=True):
    result = subprocess.run(list(args), capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, **(env or {})))
    if check_rc and result.returncode != 0:
        print(result.stdout, result.stderr)
        raise SystemExit(f"{args[0]} failed")
    return result


def read_trace(path):
    """The trace's complete events, after checking it as the Trace Event
    Format describes a JSON object trace."""
    with open(path) as f:
        trace = json.load(f)
    check(f"{os.path.basename(path)} is a JSON object with traceEvents",
          isinstance(trace, dict) and isinstance(trace.get("traceEvents"), list))
    check(f"{os.path.basename(path)} says tfcc made it",
          trace.get("otherData", {}).get("producer") == "tfcc", trace.get("otherData"))
    spans = []
    for e in trace["traceEvents"]:
        ok = (isinstance(e, dict) and e.get("ph") in ("X", "M")
              and isinstance(e.get("name"), str) and e["name"]
              and isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int))
        if ok and e["ph"] == "X":
            ok = (isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0
                  and isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0
                  and e.get("cat") in ("entry", "op") and isinstance(e.get("args"), dict))
            spans.append(e)
        if not ok:
            check(f"every event of {os.path.basename(path)} is well formed", False, e)
            break
    return trace, spans


def calls_and_ops(spans):
    """[(call span, [its op spans])], checking each op lies inside its call,
    in its entry, without overlapping the one before."""
    calls = sorted((s for s in spans if s["cat"] == "entry"), key=lambda s: s["ts"])
    ops = sorted((s for s in spans if s["cat"] == "op"), key=lambda s: s["ts"])
    grouped = [(c, []) for c in calls]
    inside = ordered = True
    for op in ops:
        home = [g for c, g in grouped
                if c["ts"] - SLACK_US <= op["ts"]
                and op["ts"] + op["dur"] <= c["ts"] + c["dur"] + SLACK_US]
        if len(home) != 1 or op["args"].get("entry") != [c for c, g in grouped if g is home[0]][0]["name"]:
            inside = False
            continue
        if home[0] and home[0][-1]["ts"] + home[0][-1]["dur"] > op["ts"] + SLACK_US:
            ordered = False
        home[0].append(op)
    check("every op span lies inside one call of its entry", inside)
    check("op spans follow each other without overlapping", ordered)
    return grouped


# --- 1. the C API -------------------------------------------------------------
cnn = os.path.join(WORK, "mnist_cnn.so")
run(TFCC, os.path.join(SPEC, "mnist_cnn.mlir"), "-o", cnn)
api_test = os.path.join(WORK, "profile_api_test")
run("cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{WORK}",
    os.path.join(SRC, "test/tools/Inputs/profile_api_test.c"), cnn, "-lm",
    f"-Wl,-rpath,{WORK}", "-o", api_test)
trace_path = os.path.join(WORK, "api.json")
result = run(api_test, trace_path, check_rc=False)
check("profile_api_test passes", result.returncode == 0 and "0 failed" in result.stdout,
      result.stdout + result.stderr)
trace, spans = read_trace(trace_path)
grouped = calls_and_ops(spans)
check("three calls of predict (the one before starting over dropped)",
      [c["name"] for c, _ in grouped] == ["predict"] * 3, [c["name"] for c, _ in grouped])
check("each call's batch", [c["args"].get("batch") for c, _ in grouped] == [1, 1, 2],
      [c["args"] for c, _ in grouped])
for i, (call, ops) in enumerate(grouped):
    names = [o["name"] for o in ops]
    check(f"call {i}: one span per node of the CNN, in order",
          [n for n in names if n in CNN_NODES] ==
          ["conv1", "pool1", "conv2", "pool2", "dense1", "dense2", "softmax"], names)
    check(f"call {i}: each span names its kernel",
          all(o["args"].get("kernel") for o in ops), ops)
    check(f"call {i}: the ops' time is within the call's",
          sum(o["dur"] for o in ops) <= call["dur"] + SLACK_US * len(ops), (call, ops))
conv = [o for _, ops in grouped for o in ops if o["name"] == "conv1"]
check("conv1's span names a convolution kernel",
      all("conv" in o["args"]["kernel"] for o in conv), conv)

# --- 2. TFCC_PROFILE ----------------------------------------------------------
env_trace = os.path.join(WORK, "env.json")
run(RUN, cnn, "--batch", "4", "--bench", "5", env={"TFCC_PROFILE": env_trace})
_, spans = read_trace(env_trace)
grouped = calls_and_ops(spans)
check("TFCC_PROFILE: every call of tfcc-run (1 + --bench 5)", len(grouped) == 6, len(grouped))
check("TFCC_PROFILE: the CNN's nodes in each call",
      all(CNN_NODES <= {o["name"] for o in ops} for _, ops in grouped))

mlp = os.path.join(WORK, "mlp.so")
run(TFCC, os.path.join(SPEC, "mlp.mlir"), "-o", mlp)
mlp2 = os.path.join(WORK, "mlp_o1.so")
run(TFCC, os.path.join(SPEC, "mlp.mlir"), "-O1", "--name", "mlp_o1", "-o", mlp2)
two = os.path.join(WORK, "two.json")
with open(os.path.join(WORK, "two.2.json"), "w") as f:
    f.write("a stale file of another run\n")
run(RUN, mlp, "--reference", mlp2, "--batch", "2", env={"TFCC_PROFILE": two})
# Each file a trace of one call: two contexts, each its own file (the stale
# ".2" file overwritten).
for path in (two, os.path.join(WORK, "two.2.json")):
    trace, spans = read_trace(path)
    check(f"{os.path.basename(path)}: one call with the MLP's nodes",
          [s["name"] for s in spans if s["cat"] == "entry"] == ["predict"] and
          {"hidden", "out", "softmax"} <= {s["name"] for s in spans}, spans)
check("no third file", not os.path.exists(os.path.join(WORK, "two.3.json")))

result = run(RUN, cnn, env={"TFCC_PROFILE": "/nonexistent-folder/t.json"}, check_rc=False)
check("an unwritable TFCC_PROFILE is reported, the run succeeds",
      result.returncode == 0 and "TFCC_PROFILE: cannot write the profile '/nonexistent-folder/t.json'"
      in result.stderr, result.stderr)

# --- 3. a train step ----------------------------------------------------------
train_trace = os.path.join(WORK, "train.json")
result = run(RUN, os.path.join(SPEC, "mnist_cnn_train.mlir"), "--train-steps", "1",
             "--batch", "8", f"--profile={train_trace}")
_, spans = read_trace(train_trace)
grouped = calls_and_ops(spans)
check("tfcc-run --train-steps 1: predict, train_step, predict",
      [c["name"] for c, _ in grouped] == ["predict", "train_step", "predict"],
      [c["name"] for c, _ in grouped])
step_ops = {o["name"] for c, ops in grouped if c["name"] == "train_step" for o in ops}
for name in ["conv1", "conv2", "dense1", "dense2", "gradients/conv1", "gradients/conv2",
             "gradients/dense1", "gradients/dense2", "optimizer/conv1_kernel",
             "optimizer/dense2_bias"]:
    check(f"the train step has a span '{name}'", name in step_ops, sorted(step_ops))
table = result.stdout[result.stdout.find("profile:"):]
check("the table heads the ops by time",
      "profile: 2 calls of predict" in table and "1 call of train_step" in table and
      "entry" in table and "calls   total ms    mean us  share  kernels" in table, table)
rows = [line.split() for line in table.splitlines()[2:] if line.startswith("  ") and not line.startswith("  (")]
totals = [float(r[3]) for r in rows]
check("the table's rows are sorted by total time", totals == sorted(totals, reverse=True), table)
check("the table names the train step's gradients",
      any(r[0] == "train_step" and r[1].startswith("gradients/") for r in rows), table)
check("--profile=FILE says where the trace is", f"Chrome trace: {train_trace}" in result.stdout,
      result.stdout)

result = run(RUN, cnn, "--batch", "2", "--profile")
check("--profile without a file prints the table only",
      "profile: 1 call of predict" in result.stdout and "conv2" in result.stdout and
      "Chrome trace" not in result.stdout, result.stdout)

train_so = os.path.join(WORK, "mnist_cnn_train.so")
run(TFCC, os.path.join(SPEC, "mnist_cnn_train.mlir"), "-o", train_so)
rng = np.random.default_rng(3)
np.save(os.path.join(WORK, "x.npy"), rng.uniform(0, 1, (48, 28, 28, 1)).astype(np.float32))
np.save(os.path.join(WORK, "y.npy"), rng.integers(0, 10, 48).astype(np.int32))
fit_trace = os.path.join(WORK, "fit.json")
run(TRAIN, train_so, "--input", os.path.join(WORK, "x.npy"), "--input",
    os.path.join(WORK, "y.npy"), "--batch-size", "16", "--epochs", "1",
    env={"TFCC_PROFILE": fit_trace})
_, spans = read_trace(fit_trace)
grouped = calls_and_ops(spans)
steps = [c for c, _ in grouped if c["name"] == "train_step"]
check("tfcc-train under TFCC_PROFILE: one train_step span per step (48 / 16)",
      len(steps) == 3 and all(c["args"]["batch"] == 16 for c in steps), steps)

# --- the Python package ------------------------------------------------------
import tfcc  # noqa: E402  (PYTHONPATH from ctest)

with tfcc.load(cnn) as m:
    m.start_profile()
    images = rng.uniform(0, 1, (3, 28, 28, 1)).astype(np.float32)
    m.predict(images)
    m.predict(images[:2])
    try:
        m.stop_profile("/nonexistent-folder/p.json")
        check("stop_profile to an unwritable file raises", False)
    except tfcc.Error as e:
        check("stop_profile to an unwritable file raises tfcc.Error", "cannot write" in str(e), e)
    py_trace = os.path.join(WORK, "python.json")
    m.stop_profile(py_trace)
    _, spans = read_trace(py_trace)
    grouped = calls_and_ops(spans)
    check("the package's profile: two calls, batches 3 and 2, the CNN's nodes",
          [c["args"]["batch"] for c, _ in grouped] == [3, 2] and
          all(CNN_NODES <= {o["name"] for o in ops} for _, ops in grouped), grouped)
    try:
        m.stop_profile(py_trace)
        check("stop_profile twice raises", False)
    except ValueError:
        check("stop_profile twice raises ValueError", True)

# --- 4. refusals --------------------------------------------------------------
result = run(RUN, os.path.join(SPEC, "mlp.mlir"), "--interpret", "--profile", check_rc=False)
check("--profile with --interpret is refused",
      result.returncode != 0 and "--profile cannot take effect with --interpret" in result.stderr,
      result.stderr)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
