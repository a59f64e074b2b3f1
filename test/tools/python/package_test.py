#!/usr/bin/python3
"""Tests of the tfcc Python package (tools/python/tfcc) against tfcc-run.

Compiles models with TFCC and checks that the package's results equal those
of TFCC_RUN (an independent C++ driver of the same C API) on the same .npy
inputs, the training API (variables, checkpoints, state kept across a
context re-created for a larger batch), bf16 rounding against hand-computed
values, and every error path. Usage (PYTHONPATH holding the package):
  package_test.py TFCC TFCC_RUN WORK_DIR
"""
import os
import shutil
import subprocess
import sys
import threading

import numpy as np

import tfcc

TFCC, TFCC_RUN, WORK = sys.argv[1:4]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
rng = np.random.default_rng(11)
failures = []


def check(what, ok, detail=""):
    print(f"{what}: {'ok' if ok else 'FAILED'}{' (' + detail + ')' if detail and not ok else ''}")
    if not ok:
        failures.append(what)


def agree(what, got, want):
    """Equal shapes and dtypes, values exact or within 1e-6 (max-norm)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return check(what, False, f"got {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
    if np.array_equal(got, want, equal_nan=got.dtype.kind == "f"):
        return check(what, True)
    scale = float(np.max(np.abs(want.astype(np.float64)))) or 1.0
    err = float(np.max(np.abs(got.astype(np.float64) - want))) / scale
    check(what, err <= 1e-6, f"max relative error {err:.3g}")


def raises(what, exc_type, substrings, fn, *args, **kw):
    """fn(*args, **kw) raises exc_type whose message has every substring."""
    try:
        fn(*args, **kw)
    except exc_type as e:
        missing = [s for s in substrings if s not in str(e)]
        return check(what, not missing, f"message {str(e)!r} lacks {missing}")
    except Exception as e:  # noqa: BLE001 - reported as a failure
        return check(what, False, f"raised {type(e).__name__}: {e}")
    check(what, False, "no exception")


def compile_model(src, name, *flags):
    so = os.path.join(WORK, name + ".so")
    subprocess.run([TFCC, src, "-o", so, *flags], check=True)
    return so


def tfcc_run(so, inputs, entry=None):
    """The outputs of TFCC_RUN so --input ... --output-dir (bf16 widened)."""
    d = os.path.join(WORK, f"run{tfcc_run.count}")
    tfcc_run.count += 1
    os.makedirs(d)
    cmd = [TFCC_RUN, so, "--output-dir", os.path.join(d, "out")]
    if entry:
        cmd.append("--entry=" + entry)
    for i, a in enumerate(inputs):
        np.save(os.path.join(d, f"in{i}.npy"), a)
        cmd.append("--input=" + os.path.join(d, f"in{i}.npy"))
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    outs, i = [], 0
    while os.path.exists(os.path.join(d, "out", f"output_{i}.npy")):
        outs.append(np.load(os.path.join(d, "out", f"output_{i}.npy")))
        i += 1
    return outs


tfcc_run.count = 0


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# --- an inference model: mnist_cnn ------------------------------------------
cnn_so = compile_model(os.path.join(ROOT, "examples/mnist/mnist_cnn.mlir"), "cnn")
m = tfcc.load(cnn_so)
check("cnn: table", m.name == "mnist_cnn" and m.prefix == "mnist_cnn"
      and [e.name for e in m.entries] == ["predict"]
      and m.entries[0].inputs == [tfcc.Arg("image", np.dtype("float32"), (None, 28, 28, 1), "f32")]
      and m.entries[0].outputs == [tfcc.Arg("probs", np.dtype("float32"), (None, 10), "f32")]
      and m.kernels_isa in ("avx512", "avx2", "generic") and m.variables == [], repr(m))
x = rng.uniform(0, 1, (5, 28, 28, 1)).astype(np.float32)
(want,) = tfcc_run(cnn_so, [x])
agree("cnn: predict = tfcc-run", m.predict(x), want)
agree("cnn: keyword input", m.run("predict", image=x), want)
agree("cnn: float64 input cast to float32", m.predict(x.astype(np.float64)), want)
agree("cnn: a nested list", m.predict(x[:1].tolist()), want[:1])
agree("cnn: a non-contiguous array", m.predict(np.asfortranarray(x)), want)
check("cnn: context grew to batch 5", m._ctx.contents.max_batch == 5)
with tfcc.load(cnn_so, threads=3, max_batch=16) as m3:
    out3 = m3.predict(x)
    check("cnn: max_batch=16 makes a context for 16", m3._ctx.contents.max_batch == 16)
    check("cnn: 3 threads agree (1e-5)", np.allclose(out3, want, rtol=1e-5, atol=1e-7))
    # Two Python threads on one model: the model's lock serializes the calls.
    results = [None] * 4
    def worker(i):
        results[i] = m3.predict(x)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("cnn: concurrent calls", all(np.array_equal(r, out3) for r in results))
check("cnn: closed by with", m3._ctx is None)
raises("cnn: call after close", ValueError, ["closed"], m3.predict, x)

raises("cnn: no input", ValueError, ["predict takes 1 input", "got 0", "image"], m.predict)
raises("cnn: two inputs", ValueError, ["predict takes 1 input", "got 2"], m.predict, x, x)
raises("cnn: unknown keyword", ValueError, ["predict", "no input is named 'img'"], m.predict, img=x)
raises("cnn: input given twice", ValueError, ["'image' given twice"], m.predict, x, image=x)
raises("cnn: rank", ValueError, ["input 'image' of predict has rank 3", "[batch, 28, 28, 1]"],
       m.predict, x[:, :, :, 0])
raises("cnn: static dim", ValueError, ["input 'image' of predict", "dimension 2 must be 28"],
       m.predict, np.zeros((2, 28, 27, 1), np.float32))
raises("cnn: batch 0", ValueError, ["input 'image' of predict", "the batch", "at least 1"],
       m.predict, np.zeros((0, 28, 28, 1), np.float32))
raises("cnn: int64 input", ValueError, ["input 'image' of predict expects float32, got int64"],
       m.predict, np.zeros((1, 28, 28, 1), np.int64))
raises("cnn: bool input", ValueError, ["expects float32, got bool"],
       m.predict, np.zeros((1, 28, 28, 1), bool))
raises("cnn: complex input", ValueError, ["expects float32, got complex128"],
       m.predict, np.zeros((1, 28, 28, 1), complex))
raises("cnn: unknown entry attribute", AttributeError, ["'train_step'"], getattr, m, "train_step")
raises("cnn: run of an unknown entry", ValueError, ["no entry 'nope'", "predict"], m.run, "nope", x)
raises("cnn: get_variable without state", ValueError, ["has no training state"],
       m.get_variable, "w")
raises("cnn: save_checkpoint without state", ValueError, ["has no training state"],
       m.save_checkpoint, os.path.join(WORK, "x.ckpt"))
raises("cnn: threads=0", ValueError, ["threads"], tfcc.load, cnn_so, threads=0)
raises("cnn: a context too large", tfcc.Error, ["creating a context", "resource exhausted"],
       tfcc.load(cnn_so, max_batch=2**40).predict, x)
m.close()

# --- a model with named dims, several outputs, bool/i64 inputs, an entry
# --- named like a Model method ----------------------------------------------
pair_src = write("pair.mlir", """
module @pair {
  func.func @predict(%x: tensor<?x?xf32> {tfcc.dim_names = ["", "N"]}, %y: tensor<?x?xf32> {tfcc.dim_names = ["", "N"]}) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
    %s = graph.add %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %e = graph.exp %s : tensor<?x?xf32>
    return %s, %e : tensor<?x?xf32>, tensor<?x?xf32>
  }
  func.func @close(%c: tensor<?x4xi1>, %a: tensor<?x4xi64>) -> tensor<?x4xf32> {
    %f = graph.cast %a : (tensor<?x4xi64>) -> tensor<?x4xf32>
    %e = graph.exp %f : tensor<?x4xf32>
    %s = graph.select %c, %f, %e : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    return %s : tensor<?x4xf32>
  }
}
""")
pair_so = compile_model(pair_src, "pair", "--dim-bound", "N=16")
p = tfcc.load(pair_so)
check("pair: table", p.dims == [tfcc.Dim("N", 16, False)]
      and p.entries[0].inputs[0].shape == (None, "N")
      and [a.name for a in p.entries[0].outputs] == ["s", "e"]
      and p.entries[1].inputs[0].dtype == np.dtype(bool), repr(p))
a = rng.normal(size=(3, 7)).astype(np.float32)
b = rng.normal(size=(3, 7)).astype(np.float32)
got = p.predict(a, b)
check("pair: two outputs are a tuple", isinstance(got, tuple) and len(got) == 2)
want = tfcc_run(pair_so, [a, b])
agree("pair: output s = tfcc-run", got[0], want[0])
agree("pair: output e = tfcc-run", got[1], want[1])
agree("pair: N at its bound", p.predict(a[:, :1].repeat(16, 1), b[:, :1].repeat(16, 1))[0],
      (a[:, :1] + b[:, :1]).repeat(16, 1))
raises("pair: N above its bound", ValueError,
       ["input 'x' of predict", "dimension N", "17, above its bound 16"],
       p.predict, np.zeros((1, 17), np.float32), np.zeros((1, 17), np.float32))
raises("pair: N inconsistent", ValueError,
       ["input 'y' of predict has 4 for dimension N", "input 'x' has 3"],
       p.predict, np.zeros((1, 3), np.float32), np.zeros((1, 4), np.float32))
raises("pair: batch inconsistent", ValueError,
       ["input 'y' of predict has 2 for the batch", "input 'x' has 1"],
       p.predict, np.zeros((1, 3), np.float32), np.zeros((2, 3), np.float32))
raises("pair: N of 0", ValueError, ["dimension N", "at least 1"],
       p.predict, np.zeros((1, 0), np.float32), np.zeros((1, 0), np.float32))
check("pair: close is the Model method", p.close.__func__ is tfcc.Model.close)
c = rng.integers(0, 2, (5, 4)).astype(bool)
i64 = rng.integers(-3, 3, (5, 4))
(want,) = tfcc_run(pair_so, [c, i64], entry="close")
agree("pair: run('close') with bool and i64 = tfcc-run", p.run("close", c, i64), want)
agree("pair: i64 input from int8", p.run("close", c, i64.astype(np.int8)), want)
agree("pair: i64 input from a list", p.run("close", c.tolist(), i64.tolist()), want)
raises("pair: bool input from int", ValueError, ["input 'c' of close expects bool, got int64"],
       p.run, "close", c.astype(np.int64), i64)
raises("pair: i64 input from uint64 too large", ValueError,
       ["input 'a' of close expects int64", "do not fit"],
       p.run, "close", c, np.full((5, 4), 2**63, np.uint64))
raises("pair: i64 input from float", ValueError, ["input 'a' of close expects int64, got float64"],
       p.run, "close", c, i64.astype(float))
p.close()

# --- derived dimensions (outputs sized by resolve_dims) ---------------------
der_so = compile_model(os.path.join(ROOT, "test/tools/Inputs/derived_dims.mlir"), "derived",
                       "--dim-bound", "H=40", "--dim-bound", "W=64")
d = tfcc.load(der_so)
xd = rng.normal(size=(2, 9, 20, 3)).astype(np.float32)
got = d.predict(xd)
check("derived: output shape (2, 3, 9, 8)", got.shape == (2, 3, 9, 8), str(got.shape))
agree("derived: predict = tfcc-run", got, tfcc_run(der_so, [xd])[0])
check("derived: table", d.entries[0].outputs[0].shape == (None, "features.1", "features.2", 8)
      and d.dims[2] == tfcc.Dim("features.1", 18, True))
raises("derived: inputs too small for an output", ValueError, ["inputs of predict", "out of range"],
       d.predict, np.zeros((1, 1, 1, 3), np.float32))

# --- bf16 inputs and outputs -------------------------------------------------
twice_src = write("twice.mlir", """
module @twice {
  func.func @predict(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
    %s = graph.add %x, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    return %s : tensor<?x8xf32>
  }
}
""")
twice_so = compile_model(twice_src, "twice", "--io-dtype=bf16")
tw = tfcc.load(twice_so)
check("bf16: described as float32 arrays of bf16",
      tw.entries[0].inputs[0][1:] == (np.dtype("float32"), (None, 8), "bf16"))
# Hand-rounded: ties to even, NaN stays NaN, the largest finite f32 rounds to inf.
vals = np.array([[1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, -(1 + 2**-9), np.nan, -np.inf,
                  np.finfo(np.float32).max, 2**-130]], np.float32)
expected = 2 * np.array([[1, 1 + 2**-6, 1 + 2**-7, -1, np.nan, -np.inf, np.inf, 2**-130]], np.float32)
got = tw.predict(vals)
agree("bf16: rounded to nearest even and widened", got, expected)
agree("bf16: from float64", tw.predict(vals.astype(np.float64)), expected)
agree("bf16: = tfcc-run", got, tfcc_run(twice_so, [vals])[0])
raises("bf16: int input", ValueError, ["input 'x' of predict expects bfloat16", "int64"],
       tw.predict, np.zeros((1, 8), np.int64))
cnn16_so = compile_model(os.path.join(ROOT, "examples/mnist/mnist_cnn.mlir"), "cnn_bf16",
                         "--io-dtype=bf16")
got = tfcc.load(cnn16_so).predict(x)
check("bf16: outputs widened exactly (low bits 0)",
      got.dtype == np.float32 and not np.any(got.view(np.uint32) & 0xFFFF))
agree("bf16: cnn predict = tfcc-run", got, tfcc_run(cnn16_so, [x])[0])

# --- a training model ---------------------------------------------------------
train_so = compile_model(os.path.join(ROOT, "examples/train_fashion_mnist/mnist_cnn_train.mlir"),
                         "cnn_train")
t = tfcc.load(train_so)
names = [v.name for v in t.variables]
check("train: variables", "dense2_kernel" in names and t.state_bytes > 0
      and t._variable_index and t.variables[names.index("bn1_mean")].trainable is False
      and t.variables[names.index("dense2_kernel")].shape == (64, 10), str(t.variables[:3]))
initial = {n: t.get_variable(n) for n in names}
xt = rng.uniform(0, 1, (4, 28, 28, 1)).astype(np.float32)
yt = rng.integers(0, 10, 4).astype(np.int32)
agree("train: predict = tfcc-run", t.predict(xt), tfcc_run(train_so, [xt])[0])
want_loss = tfcc_run(train_so, [xt, yt], entry="train_step")[0]
loss = t.train_step(xt, yt)
agree("train: first train_step loss = tfcc-run", loss, want_loss)
check("train: weights moved", not np.array_equal(t.get_variable("dense2_kernel"),
                                                  initial["dense2_kernel"]))
# get/set roundtrip
v = t.get_variable("dense2_bias")
t.set_variable("dense2_bias", v + 1)
agree("train: set_variable then get_variable", t.get_variable("dense2_bias"), v + 1)
t.set_variable("dense2_bias", (v + 2).astype(np.float64))
agree("train: set_variable from float64", t.get_variable("dense2_bias"), v + 2)
t.set_variable("dense2_bias", v)
raises("train: set_variable shape", ValueError, ["variable 'dense2_bias'", "shape (10,)", "(9,)"],
       t.set_variable, "dense2_bias", np.zeros(9, np.float32))
raises("train: set_variable dtype", ValueError, ["variable 'dense2_bias'", "expects float32, got int64"],
       t.set_variable, "dense2_bias", np.zeros(10, np.int64))
raises("train: unknown variable", ValueError, ["no variable 'nope'", "dense2_bias"],
       t.get_variable, "nope")
# Labels: any integer array whose values fit.
raises("train: labels too large", ValueError, ["input 'label' of train_step expects int32", "do not fit"],
       t.train_step, xt, yt.astype(np.int64) + 2**40)
raises("train: float labels", ValueError, ["input 'label' of train_step expects int32, got float64"],
       t.train_step, xt, yt.astype(float))
raises("train: labels of another batch", ValueError,
       ["input 'label' of train_step has 3 for the batch", "input 'image' has 4"],
       t.train_step, xt, yt[:3])
# Checkpoints: save, train on, load restores every variable.
ckpt = os.path.join(WORK, "train.ckpt")
t.save_checkpoint(ckpt)
saved = {n: t.get_variable(n) for n in names}
next_loss = t.train_step(xt, yt.astype(np.uint8))
t.train_step(xt, yt)
check("train: variables changed after the checkpoint",
      not np.array_equal(t.get_variable("conv1_kernel"), saved["conv1_kernel"]))
t.load_checkpoint(ckpt)
check("train: load_checkpoint restores every variable",
      all(np.array_equal(t.get_variable(n), saved[n]) for n in names))
agree("train: the step after loading repeats", t.train_step(xt, yt), next_loss)
raises("train: load_checkpoint of a missing file", tfcc.Error, ["load_checkpoint", "no-such.ckpt"],
       t.load_checkpoint, os.path.join(WORK, "no-such.ckpt"))
try:
    t.load_checkpoint(write("garbage.ckpt", "not a checkpoint"))
except tfcc.Error as e:
    check("train: tfcc.Error fields", isinstance(e, RuntimeError) and e.status != 0
          and e.status_string and e.message, repr((e.status, e.status_string, e.message)))
else:
    check("train: a garbage checkpoint is refused", False)
t.reset_state()
check("train: reset_state restores the initial variables",
      all(np.array_equal(t.get_variable(n), initial[n]) for n in names))
t.close()

# State across a context re-created for a larger batch: a model whose first
# context holds batch 8 and one that re-creates its context at batch 8 agree
# on every loss and variable (weights, optimizer slots, step counter).
x8 = rng.uniform(0, 1, (8, 28, 28, 1)).astype(np.float32)
y8 = rng.integers(0, 10, 8).astype(np.int32)
big, grown = tfcc.load(train_so, max_batch=8), tfcc.load(train_so)
fresh = tfcc.load(train_so)
check("train: state readable before any call",
      np.array_equal(fresh.get_variable("dense1_bias"), initial["dense1_bias"]))
fresh.close()
losses_big = [big.train_step(x8[:2], y8[:2]) for _ in range(2)]
losses_grown = [grown.train_step(x8[:2], y8[:2]) for _ in range(2)]
before = {n: grown.get_variable(n) for n in names}
check("train: context for batch 2", grown._ctx.contents.max_batch == 2)
grown.predict(x8)  # re-creates the context for batch 8
check("train: context re-created for batch 8", grown._ctx.contents.max_batch == 8)
check("train: re-creation keeps every variable",
      all(np.array_equal(grown.get_variable(n), before[n]) for n in names))
losses_big.append(big.train_step(x8, y8))
losses_grown.append(grown.train_step(x8, y8))
agree("train: losses with and without re-creation", np.array(losses_grown), np.array(losses_big))
check("train: variables with and without re-creation",
      all(np.array_equal(grown.get_variable(n), big.get_variable(n)) for n in names))

# --- files that are no model -------------------------------------------------
raises("load: a missing file", FileNotFoundError, [os.path.join(WORK, "missing.so")],
       tfcc.load, os.path.join(WORK, "missing.so"))
text = write("notes.txt", "hello\n")
raises("load: a text file", ValueError, [f"'{text}' exports no tfcc model"], tfcc.load, text)
libm = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6",
                         "/usr/lib64/libm.so.6", "/lib64/libm.so.6") if os.path.exists(p)), None)
for lib in filter(None, [libm, sys.executable]):
    raises(f"load: {lib}", ValueError, [f"'{lib}' exports no tfcc model"], tfcc.load, lib)
elf32 = os.path.join(WORK, "elf32.so")
with open(elf32, "wb") as f:
    f.write(b"\x7fELF\x01\x01\x01" + bytes(45))
raises("load: a 32-bit ELF file", ValueError, ["exports no tfcc model", "32-bit"], tfcc.load, elf32)
truncated = os.path.join(WORK, "truncated.so")
with open(cnn_so, "rb") as f:
    head = f.read(100)
with open(truncated, "wb") as f:
    f.write(head)
raises("load: a truncated ELF file", ValueError, ["exports no tfcc model"], tfcc.load, truncated)
# ABI mismatch: the package's version changed (as a newer package would be).
abi = tfcc._abi.ABI_VERSION
tfcc._abi.ABI_VERSION = abi + 1
raises("load: ABI mismatch", ValueError,
       [f"built for tfcc runtime ABI {abi}", f"reads ABI {abi + 1}"], tfcc.load, cnn_so)
tfcc._abi.ABI_VERSION = abi
# ... and a library whose table says ABI 3 (built with cc when there is one).
if shutil.which("cc"):
    fake_c = write("fake.c", """
        static const struct { unsigned abi; int n; } info = {3, 0};
        const void* fake_info(void) { return &info; }
        int fake_invoke(void) { return 0; }
        int fake_create(void) { return 0; }
    """)
    fake_so = os.path.join(WORK, "fake.so")
    subprocess.run(["cc", "-shared", "-fPIC", fake_c, "-o", fake_so], check=True)
    raises("load: a model of ABI 3", ValueError, ["built for tfcc runtime ABI 3", f"reads ABI {abi}"],
           tfcc.load, fake_so)
else:
    print("load: a model of ABI 3: skipped (no cc)")

if failures:
    print(f"FAILED ({len(failures)}):", ", ".join(failures))
    sys.exit(1)
print("all passed")
