#!/usr/bin/python3
"""tfcc against ONNX Runtime, PyTorch and oneDNN on the same models, weights and inputs.

Run it through bench/run.sh, which installs the peers and builds the harnesses; see
bench/README.md. This script only orchestrates:

  1. exports the workloads of bench/models.py (ONNX + frozen TorchScript, cached),
  2. compiles every ONNX model with tfcc,
  3. per workload and thread count starts one harness process per system (tfcc, ONNX Runtime,
     PyTorch, and oneDNN sgemm for the matmuls), checks that their outputs agree with ONNX
     Runtime's on identical random inputs, then times them: warm-up, then R repeats of K
     back-to-back runs, the systems interleaved within each repeat (one computes at a time),
  4. prints a table and writes RESULTS/latest.md, latest.csv and latest.png.
"""
import argparse
import atexit
import csv
import datetime
import hashlib
import json
import math
import os
import platform
import select
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PY = "/usr/bin/python3"
OPENBLAS_OPENMP = "/usr/lib/x86_64-linux-gnu/openblas-openmp"

QUICK_SKIP = {"matmul1024", "matmul2048"}
# int8 workloads (issue 17): the QDQ form of a float workload's .onnx, written by bench/qdq.py
# with its own calibration; tfcc and ONNX Runtime run the same file, and the row is compared
# with tfcc's float32 row of the same run. PyTorch has no such model (no column).
INT8_WORKLOADS = {"cnn_b1_int8": "cnn_b1", "mobilenet_v2_int8": "mobilenet_v2",
                  "resnet18_int8": "resnet18"}
# int8 against int8: requantization rounds differently by an ulp here and there (a value on a
# .5 boundary moves one step), which propagates; outputs agree to a few quantization steps.
INT8_ATOL = 0.05
# Training workloads (bench/README.md, "Training"): a model with a graph.train_step, compiled
# from its .mlir, against PyTorch training the same model (ONNX Runtime has no training).
TRAIN_WORKLOADS = {
    "mnist_cnn_train": {
        "source": os.path.join(REPO, "examples", "train_fashion_mnist", "mnist_cnn_train.mlir"),
        "batch": 64,
        "batches": 16,      # distinct random batches, used in turn by both systems
        "check_steps": 3,   # train steps of the same-work check
        "torch_worker": os.path.join(HERE, "train", "torch_train_worker.py"),
        "summary": "training: spec mnist_cnn_train.mlir, train step batch 64 (vs PyTorch)",
        "description": "training: spec mnist_cnn_train.mlir (conv 32 + batch norm, pool, conv "
                       "64, pool, dense 64 + dropout 0.25, dense 10; sparse softmax "
                       "cross-entropy; Adam lr 1e-3 eps 1e-7, clip_norm 1.0), one train step "
                       "of batch 64 (NHWC 28x28x1)",
    },
}
TRAIN_SYSTEMS = ["tfcc", "torch"]
# glibc malloc settings for both training processes (--train-malloc tuned): PyTorch allocates
# and frees its activations and gradients every step; with glibc's defaults the big blocks are
# mmap'd and unmapped each time, so every step page-faults them in again (thousands of faults,
# a third of the step in the kernel), and how often depends on glibc's adaptive threshold:
# PyTorch's step time then varies between processes (17-34 ms at 1 thread here). Keeping them
# in the heap makes PyTorch fast and steady. tfcc's train step does not allocate.
TRAIN_MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"
SYSTEMS = ["tfcc", "ort", "torch", "onednn"]
LABEL = {"tfcc": "tfcc", "ort": "ORT", "torch": "PyTorch", "onednn": "oneDNN",
         "tfcc_f32": "tfcc float32"}
# An int8 row also times tfcc's build of the float workload, interleaved with the others in
# each repeat, so that the int8 speed-up comes from the same repeats (the float row runs
# minutes apart, while this machine's speed drifts).
INT8_EXTRA_SYSTEMS = ["tfcc_f32"]


def log(msg):
    print("bench: " + msg, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


# --- Harness processes ----------------------------------------------------------------------

class Harness:
    """One harness process speaking the line protocol of bench/harness/common.h."""

    def __init__(self, system, argv, env, timeout):
        self.system = system
        self.argv = argv
        self.note = ""
        self.error = None
        self.stderr_path = None
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, text=True, bufsize=1)
        line = self._readline(timeout)
        if line is None:
            self.error = "did not start within %d s" % timeout
        elif line.startswith("ready"):
            self.note = line[len("ready"):].strip()
        else:
            self.error = line.strip() or ("exited: " + self._stderr_tail())

    def _stderr_tail(self):
        try:
            self.proc.wait(timeout=5)
            err = self.proc.stderr.read()
        except Exception:  # noqa: BLE001
            err = ""
        lines = [l for l in err.splitlines() if l.strip()]
        return lines[-1] if lines else "no output (status %s)" % self.proc.returncode

    def _readline(self, timeout):
        fd = self.proc.stdout
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return None
        line = fd.readline()
        if not line:
            return ""
        return line.rstrip("\n")

    def command(self, cmd, timeout):
        """Sends cmd; returns the reply after "ok", or raises RuntimeError."""
        if self.error:
            raise RuntimeError(self.error)
        try:
            self.proc.stdin.write(cmd + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.error = "exited: " + self._stderr_tail()
            raise RuntimeError(self.error)
        line = self._readline(timeout)
        if line is None:
            self.error = "'%s' timed out after %d s" % (cmd.split()[0], timeout)
            self.kill()
            raise RuntimeError(self.error)
        if line == "":
            self.error = "exited: " + self._stderr_tail()
            raise RuntimeError(self.error)
        if line.startswith("ok"):
            return line[2:].strip()
        raise RuntimeError(line[len("error"):].strip() if line.startswith("error") else line)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=10)
            except Exception:  # noqa: BLE001
                self.kill()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# --- Models and compilation -----------------------------------------------------------------

def file_hash(*paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def int8_weight_bits(choice, isa):
    """--int8-weight-bits: 7 or 8, or auto: 7 where the int8 kernels run without VNNI (this
    CPU lacks it, or --isa avx2), as ONNX Runtime's documentation advises (reduce_range), else
    8."""
    if choice != "auto":
        return int(choice)
    flags = set(lscpu_info().get("Flags", "").split())
    return 7 if isa == "avx2" or not flags & {"avx512_vnni", "avx_vnni"} else 8


def export_int8_models(names, model_dir, tfcc, weight_bits=8):
    """Writes each int8 workload's QDQ .onnx from its float workload's (bench/qdq.py), its
    inputs (the float workload's) and its .json, when missing or stale."""
    metas = {}
    for n in names:
        base = INT8_WORKLOADS[n]
        src = os.path.join(model_dir, base + ".onnx")
        dst = os.path.join(model_dir, n + ".onnx")
        stamp = file_hash(os.path.join(HERE, "qdq.py"), src) + "-w%d" % weight_bits
        meta_path = os.path.join(model_dir, n + ".json")
        if os.path.exists(meta_path) and os.path.exists(dst):
            with open(meta_path) as f:
                meta = json.load(f)
            if meta.get("stamp") == stamp:
                metas[n] = meta
                continue
        log("quantizing %s -> %s (bench/qdq.py)" % (base, n))
        tfcc_run = os.path.join(os.path.dirname(tfcc), "tfcc-run")
        r = subprocess.run([PY, os.path.join(HERE, "qdq.py"), src, dst, "--tfcc", tfcc,
                            "--tfcc-run", tfcc_run, "--weight-bits", str(weight_bits),
                            "--work", os.path.join(model_dir, n + ".calibration")])
        if r.returncode != 0:
            sys.exit("bench: bench/qdq.py failed for %s" % n)
        shutil.copyfile(os.path.join(model_dir, base + ".in.bin"),
                        os.path.join(model_dir, n + ".in.bin"))
        with open(os.path.join(model_dir, base + ".json")) as f:
            meta = json.load(f)
        meta.update(name=n, description=meta["description"] + ", int8 QDQ (bench/qdq.py)",
                    float_workload=base, int8=True, stamp=stamp, weight_bits=weight_bits)
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
        metas[n] = meta
    return metas


def export_models(names, model_dir):
    """Runs bench/models.py for the workloads whose files are missing or stale."""
    os.makedirs(model_dir, exist_ok=True)
    stamp = file_hash(os.path.join(HERE, "models.py"))
    stale = []
    for n in names:
        meta = os.path.join(model_dir, n + ".json")
        ok = all(os.path.exists(os.path.join(model_dir, n + ext))
                 for ext in (".onnx", ".pt", ".in.bin", ".json"))
        if ok:
            with open(meta) as f:
                ok = json.load(f).get("stamp") == stamp
        if not ok:
            stale.append(n)
    if stale:
        log("exporting %s (PyTorch -> ONNX + TorchScript)" % ", ".join(stale))
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        r = subprocess.run([PY, os.path.join(HERE, "models.py"), model_dir, "--only",
                            ",".join(stale)], env=env)
        if r.returncode != 0:
            sys.exit("bench: bench/models.py failed")
        for n in stale:
            p = os.path.join(model_dir, n + ".json")
            with open(p) as f:
                meta = json.load(f)
            meta["stamp"] = stamp
            with open(p, "w") as f:
                json.dump(meta, f, indent=1)
    metas = {}
    for n in names:
        with open(os.path.join(model_dir, n + ".json")) as f:
            metas[n] = json.load(f)
    return metas


def tfcc_failure(err):
    """The table's word for a model tfcc did not compile."""
    return "unsupported" if "unsupported" in err or "not supported" in err else "compile failed"


def log_compile(name, result, note=""):
    """One line per compiled model: ok, or tfcc's failure; the seconds it took."""
    so, dt, err = result
    log("  %-13s %s (%.1f s%s)" % (name, "ok" if so else "tfcc: %s (%s)" % (tfcc_failure(err), err),
                                   dt, note))


def snapshot_tfcc(tfcc, work):
    """Copies tfcc and the runtime archives beside it (../lib/*.a) into WORK/tfcc, so that a
    rebuild of the build tree while the bench compiles cannot mix two versions."""
    src_lib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(tfcc))), "lib")
    if not os.path.isdir(src_lib):
        return tfcc
    dst = os.path.join(work, "tfcc")
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(os.path.join(dst, "bin"))
    shutil.copytree(src_lib, os.path.join(dst, "lib"))
    shutil.copy2(tfcc, os.path.join(dst, "bin", "tfcc"))
    return os.path.join(dst, "bin", "tfcc")


def build_tfcc(tfcc, cc, name, source, so_dir, extra, harness, exe_suffix, libs):
    """Compiles `source` (.onnx or .mlir) with tfcc into so_dir/NAME.so and builds
    `harness` (a C file under bench/) against the header tfcc wrote for it (see
    tfcc_bench.c). Returns (so path or None, seconds, error line)."""
    os.makedirs(so_dir, exist_ok=True)
    so = os.path.join(so_dir, name + ".so")
    for stale in (so, os.path.join(so_dir, name + ".h")):
        if os.path.exists(stale):
            os.remove(stale)
    t0 = time.time()
    try:
        r = sh([tfcc, source, "--name", name, "-o", so] + extra)
    except OSError as e:
        return None, time.time() - t0, "cannot run %s: %s" % (tfcc, e)
    dt = time.time() - t0
    with open(os.path.join(so_dir, name + ".log"), "w") as f:
        f.write(r.stdout)
    if r.returncode != 0 or not os.path.exists(so):
        lines = [l.strip() for l in r.stdout.splitlines() if "error" in l.lower()] or \
                [l.strip() for l in r.stdout.splitlines() if l.strip()] or ["exit %d" % r.returncode]
        return None, dt, lines[0]
    exe = os.path.join(so_dir, name + exe_suffix)
    r = sh([cc, "-O2", "-std=c11", "-Wall", "-I" + os.path.join(REPO, "runtime", "include"),
            '-DTFCC_MODEL_HEADER="%s"' % os.path.join(so_dir, name + ".h"),
            os.path.join(HERE, harness), "-o", exe] + libs)
    if r.returncode != 0:
        return None, dt, "harness build failed: " + (r.stdout.strip().splitlines() or ["?"])[0]
    return so, dt, ""


def compile_tfcc(tfcc, cc, name, model_dir, so_dir, extra):
    """An inference workload's .onnx and bench/harness/tfcc_bench.c."""
    return build_tfcc(tfcc, cc, name, os.path.join(model_dir, name + ".onnx"), so_dir, extra,
                      os.path.join("harness", "tfcc_bench.c"), ".bench", ["-ldl"])


def compile_tfcc_train(tfcc, cc, name, spec, so_dir, extra):
    """A training workload's .mlir and bench/train/tfcc_train_harness.c."""
    return build_tfcc(tfcc, cc, name, spec["source"], so_dir, extra,
                      os.path.join("train", "tfcc_train_harness.c"), ".train_bench",
                      ["-ldl", "-lm"])


def write_train_data(name, spec, out_dir):
    """The training batches both systems use: per batch BATCH x 28 x 28 x 1 float32 images
    (uniform in [0, 1), like scaled pixels) then BATCH int32 labels in [0, 10); seeded."""
    import numpy as np
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(sorted(TRAIN_WORKLOADS).index(name) + 5000)
    path = os.path.join(out_dir, name + ".data.bin")
    b = spec["batch"]
    with open(path, "wb") as f:
        for _ in range(spec["batches"]):
            f.write(rng.uniform(0.0, 1.0, (b, 28, 28, 1)).astype(np.float32).tobytes())
            f.write(rng.integers(0, 10, b).astype(np.int32).tobytes())
    return path


def onnx_weight(model_path, out_path):
    """Writes the single 2-D initializer of a matmul model (its B) as raw float32."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    m = onnx.load(model_path)
    inits = [numpy_helper.to_array(i) for i in m.graph.initializer if len(i.dims) == 2]
    if len(inits) != 1:
        raise RuntimeError("expected one 2-D initializer, found %d" % len(inits))
    np.ascontiguousarray(inits[0], dtype=np.float32).tofile(out_path)


# --- Correctness ----------------------------------------------------------------------------

def compare(out_path, ref_path, rtol, atol):
    """(normalized max error max|a-b|/max|b|, ok) for two raw float32 files."""
    import numpy as np
    a = np.fromfile(out_path, dtype=np.float32)
    b = np.fromfile(ref_path, dtype=np.float32)
    if a.shape != b.shape:
        return float("inf"), False, "%d vs %d values" % (a.size, b.size)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return float("inf"), False, "non-finite values"
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    scale = float(np.abs(b).max()) if b.size else 0.0
    err = float(diff.max() / scale) if scale > 0 else float(diff.max(initial=0.0))
    ok = bool(np.all(diff <= rtol * np.abs(b) + atol * max(1.0, scale)))
    return err, ok, ""


# --- One workload at one thread count -------------------------------------------------------

def cpu_snapshot():
    """(seconds of busy CPU on the whole machine, CPU seconds of this process and its reaped
    children, wall time): the difference between two snapshots tells how much CPU other
    processes used meanwhile."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    busy = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    t = os.times()
    return busy, t.user + t.system + t.children_user + t.children_system, time.time()


# Core-to-core round trips above this (ns) mean the two vCPUs do not share an L3 slice.
FAR_CORES_NS = 200


def core_rtt(paths):
    """The round trip of a cache line between two threads, in ns (bench/harness/core_rtt.c),
    or None when the probe is missing or fails."""
    exe = paths.get("core_rtt")
    if not exe or not os.path.exists(exe):
        return None
    try:
        r = subprocess.run([exe], capture_output=True, text=True, timeout=30)
        return int(r.stdout.split()[0]) if r.returncode == 0 else None
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


def note_core_rtt(row, paths, when):
    """Records the round trip before or after a 2-thread row's timing; notes far cores."""
    if row["threads"] < 2:
        return
    v = core_rtt(paths)
    row["core_rtt_" + when] = v
    if v is not None and v > FAR_CORES_NS and "far cores" not in " ".join(row["notes"]):
        row["notes"].append("far cores: threads' round trip %d ns (%s timing)" % (v, when))


def other_cpus(before, after):
    """Average number of CPUs other processes kept busy between two cpu_snapshot()s."""
    wall = after[2] - before[2]
    if wall <= 0:
        return 0.0
    return max(0.0, ((after[0] - before[0]) - (after[1] - before[1])) / wall)


def time_systems(args, harnesses, status):
    """Calibration, warm-up and the interleaved repeats (bench/README.md, "Timing") for the
    harnesses not yet in `status`; a harness that fails gets its status. A "time K" reply is
    "<seconds> [anything]". Returns ({system: [ms per run, one per repeat]}, {system: (K,
    repeats)}, {system: the rest of its last "time" reply})."""
    last = {}

    def timed(s, k):
        reply = harnesses[s].command("time %d" % k, timeout=args.timeout).split(None, 1)
        last[s] = reply[1] if len(reply) > 1 else ""
        return float(reply[0])

    # Calibration: one timed run (after the check run, which warmed up) sets K and repeats.
    live = [s for s in harnesses if s not in status]
    plan = {}
    for s in live:
        try:
            t1 = timed(s, 1)
            if t1 < 0.5:  # the fastest of 3, so that one preempted run does not set K
                for _ in range(2):
                    t1 = min(t1, timed(s, 1))
        except RuntimeError as e:
            status[s] = "run failed: %s" % e
            continue
        k = max(1, min(args.max_iters, int(round(args.target / max(t1, 1e-7)))))
        reps = args.repeats
        if t1 * k * reps > args.budget:  # a slow system gets fewer repeats (at least 2)
            reps = max(min(2, args.repeats), int(args.budget // (t1 * k)))
        plan[s] = (k, reps)
        if k > 1:  # warm up at the timed size too
            try:
                timed(s, k)
            except RuntimeError as e:
                status[s] = "run failed: %s" % e
    live = [s for s in live if s not in status]
    samples = {s: [] for s in live}
    order = list(live)
    for r in range(args.repeats):
        for s in order:
            if s in status or len(samples[s]) >= plan[s][1]:
                continue
            time.sleep(args.pause)  # let the previous system's spinning threads go idle
            k = plan[s][0]
            try:
                samples[s].append(timed(s, k) / k * 1e3)
            except RuntimeError as e:
                status[s] = "run failed: %s" % e
        order = order[1:] + order[:1]  # rotate who goes first
    return samples, plan, last


def run_workload(args, name, meta, threads, so, paths):
    row = {"workload": name, "threads": threads, "description": meta["description"],
           "flops": meta.get("flops"), "notes": [], "load1": os.getloadavg()[0],
           "batch": meta.get("batch"), "section": "inference"}
    # Every system gets N threads (OMP_NUM_THREADS: PyTorch, oneDNN). PyTorch's BLAS is
    # OpenBLAS' OpenMP build (bench/run.sh installs it): it shares libgomp's pool with PyTorch
    # and follows omp_get_max_threads() at each call, so its GEMMs do use N threads;
    # OPENBLAS_NUM_THREADS=1 only guards against a pthread build oversubscribing the cores.
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    torch_env = dict(env)
    if os.path.isdir(OPENBLAS_OPENMP):
        torch_env["LD_LIBRARY_PATH"] = OPENBLAS_OPENMP + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    batch = str(meta["batch"])
    model_dir = paths["models"]
    harnesses = {}
    cmds = {}
    if so:
        cmds["tfcc"] = [so[:-3] + ".bench", so, name, str(threads), batch]
        base = meta.get("float_workload") if meta.get("int8") else None
        float_so = os.path.join(os.path.dirname(so), "%s.so" % base) if base else ""
        if base and os.path.exists(float_so) and os.path.exists(float_so[:-3] + ".bench"):
            cmds["tfcc_f32"] = [float_so[:-3] + ".bench", float_so, base, str(threads), batch]
    cmds["ort"] = [paths["ort_bench"], paths["ort_lib"], os.path.join(model_dir, name + ".onnx"),
                   str(threads), batch]
    shapes = ";".join("x".join(str(d) for d in i["shape"]) for i in meta["inputs"])
    if os.path.exists(os.path.join(model_dir, name + ".pt")):
        cmds["torch"] = [PY, os.path.join(HERE, "harness", "torch_worker.py"),
                         os.path.join(model_dir, name + ".pt"), str(threads), shapes]
    if meta.get("flops") and paths.get("dnnl_bench"):
        n = meta["inputs"][0]["shape"][0]
        wpath = os.path.join(model_dir, name + ".B.bin")
        if not os.path.exists(wpath):
            onnx_weight(os.path.join(model_dir, name + ".onnx"), wpath)
        cmds["onednn"] = [paths["dnnl_bench"], str(n), wpath]

    snap = cpu_snapshot()
    status = {}
    for s in SYSTEMS + INT8_EXTRA_SYSTEMS:
        if s not in cmds:
            continue
        h = Harness(s, cmds[s], torch_env if s == "torch" else env, timeout=300)
        harnesses[s] = h
        if h.error:
            status[s] = "load failed: " + h.error
        row[s + "_note"] = h.note
    if "tfcc" in harnesses and "unsupported" in harnesses["tfcc"].note and threads > 1:
        row["notes"].append("tfcc threads unsupported (ran 1 thread)")

    # Correctness: same inputs to everyone, ORT is the reference.
    in_path = os.path.join(model_dir, name + ".in.bin")
    out_dir = os.path.join(paths["work"], "out")
    os.makedirs(out_dir, exist_ok=True)
    outs = {}
    for s, h in harnesses.items():
        if s in status:
            continue
        if s in INT8_EXTRA_SYSTEMS:  # its inputs loaded; its outputs are checked in its row
            base = meta["float_workload"]
            try:
                h.command("check %s %s" % (os.path.join(model_dir, base + ".in.bin"),
                                           os.path.join(out_dir, "%s.t%d.%s.bin" % (
                                               name, threads, s))), timeout=args.timeout)
            except RuntimeError as e:
                status[s] = "run failed: %s" % e
            continue
        out = os.path.join(out_dir, "%s.t%d.%s.bin" % (name, threads, s))
        try:
            h.command("check %s %s" % (in_path, out), timeout=args.timeout)
            outs[s] = out
        except RuntimeError as e:
            status[s] = "run failed: %s" % e
    ref = "ort" if "ort" in outs else ("torch" if "torch" in outs else None)
    row["reference"] = ref
    for s in outs:
        if s == ref:
            row[s + "_err"] = 0.0
            continue
        atol = max(args.atol, INT8_ATOL) if meta.get("int8") else args.atol
        err, ok, why = compare(outs[s], outs[ref], args.rtol, atol)
        row[s + "_err"] = err
        if not ok:
            status[s] = "FAILED: outputs differ from %s (max rel err %.2e%s)" % (
                LABEL[ref], err, ", " + why if why else "")

    note_core_rtt(row, paths, "before")
    samples, plan, _ = time_systems(args, harnesses, status)
    note_core_rtt(row, paths, "after")
    for h in harnesses.values():
        h.close()
    row["other_cpus"] = other_cpus(snap, cpu_snapshot())
    if row["other_cpus"] >= 0.25:
        row["notes"].append("busy machine: other processes used %.1f CPUs" % row["other_cpus"])

    for s in SYSTEMS + INT8_EXTRA_SYSTEMS:
        if s not in cmds:
            continue
        if s in status:
            row[s + "_status"] = status[s]
            continue
        put_timing(row, s, samples[s], plan[s][0])
        row[s + "_status"] = "ok"
    return row


def put_timing(row, system, ms, k):
    """A system's timing columns from its repeats `ms` (each K back-to-back runs)."""
    row[system + "_ms"] = statistics.median(ms)
    row[system + "_min"] = min(ms)
    row[system + "_max"] = max(ms)
    row[system + "_k"], row[system + "_reps"] = k, len(ms)


def check_losses(path, steps):
    """Reads a training check's losses (eval loss, `steps` train losses, eval loss); returns
    (losses, problem or "")."""
    import numpy as np
    a = np.fromfile(path, dtype=np.float32).astype(np.float64)
    if a.size != steps + 2:
        return list(a), "%d losses, expected %d" % (a.size, steps + 2)
    if not np.isfinite(a).all():
        return list(a), "non-finite loss"
    if not a[-1] < a[0]:
        return list(a), "training did not lower the loss on its batch (eval %.4g -> %.4g)" % (
            a[0], a[-1])
    return list(a), ""


def run_train_workload(args, name, spec, threads, so, paths):
    """One training workload at N threads: tfcc's train step against PyTorch's."""
    row = {"workload": name, "threads": threads, "description": spec["description"],
           "batch": spec["batch"], "section": "training", "notes": [],
           "load1": os.getloadavg()[0]}
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    if args.train_malloc == "tuned":
        env["GLIBC_TUNABLES"] = TRAIN_MALLOC_TUNABLES + (
            ":" + env["GLIBC_TUNABLES"] if env.get("GLIBC_TUNABLES") else "")
    torch_env = dict(env)
    if os.path.isdir(OPENBLAS_OPENMP):
        torch_env["LD_LIBRARY_PATH"] = OPENBLAS_OPENMP + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    batch, nb, steps = str(spec["batch"]), str(spec["batches"]), spec["check_steps"]
    data = paths["train_data"][name]
    cmds = {}
    if so:
        cmds["tfcc"] = [so[:-3] + ".train_bench", so, name, str(threads), batch, data, nb]
    cmds["torch"] = [PY, spec["torch_worker"], str(threads), batch, data, nb,
                     args.train_torch_format]

    snap = cpu_snapshot()
    status, harnesses = {}, {}
    for s in TRAIN_SYSTEMS:
        if s not in cmds:
            continue
        h = Harness(s, cmds[s], torch_env if s == "torch" else env, timeout=300)
        harnesses[s] = h
        if h.error:
            status[s] = "load failed: " + h.error
        row[s + "_note"] = h.note
    if "tfcc" in harnesses and "unsupported" in harnesses["tfcc"].note and threads > 1:
        row["notes"].append("tfcc threads unsupported (ran 1 thread)")

    # Same-work check: PyTorch starts from tfcc's initial weights; both run the eval-mode
    # loss, `steps` train steps on batch 0 (PyTorch with tfcc's dropout masks) and the
    # eval-mode loss again; the losses must agree within --train-rtol.
    out_dir = os.path.join(paths["work"], "out")
    os.makedirs(out_dir, exist_ok=True)
    weights = os.path.join(out_dir, "%s.t%d.weights.bin" % (name, threads))
    shared = False
    if "tfcc" in harnesses and "tfcc" not in status and "torch" not in status:
        try:
            harnesses["tfcc"].command("weights " + weights, timeout=args.timeout)
        except RuntimeError as e:
            status["tfcc"] = "run failed: weights: %s" % e
        else:
            try:
                harnesses["torch"].command("load " + weights, timeout=args.timeout)
                shared = True
            except RuntimeError as e:
                status["torch"] = "run failed: loading tfcc's weights: %s" % e
    losses = {}
    for s, h in harnesses.items():
        if s in status:
            continue
        out = os.path.join(out_dir, "%s.t%d.%s.losses.bin" % (name, threads, s))
        try:
            h.command("check %d %s" % (steps, out), timeout=args.timeout)
        except RuntimeError as e:
            status[s] = "run failed: %s" % e
            continue
        losses[s], problem = check_losses(out, steps)
        row[s + "_losses"] = losses[s]
        if problem:
            status[s] = "FAILED: " + problem
    if shared and "tfcc" in losses and "torch" in losses and not status:
        a, b = losses["tfcc"], losses["torch"]
        row["check_err"] = max(abs(x - y) / abs(y) for x, y in zip(a, b))
        row["check_ok"] = row["check_err"] <= args.train_rtol
        if not row["check_ok"]:
            status["tfcc"] = ("FAILED: losses differ from PyTorch's from the same weights (max "
                              "rel err %.2e > %g; tfcc %s, PyTorch %s)"
                              % (row["check_err"], args.train_rtol,
                                 " ".join("%.6g" % v for v in a),
                                 " ".join("%.6g" % v for v in b)))
    elif len(losses) == 1 and not status:
        row["notes"].append("losses not compared (one system)")

    note_core_rtt(row, paths, "before")
    samples, plan, last = time_systems(args, harnesses, status)
    note_core_rtt(row, paths, "after")
    for h in harnesses.values():
        h.close()
    row["other_cpus"] = other_cpus(snap, cpu_snapshot())
    if row["other_cpus"] >= 0.25:
        row["notes"].append("busy machine: other processes used %.1f CPUs" % row["other_cpus"])
    for s in TRAIN_SYSTEMS:
        if s not in cmds:
            continue
        if s in status:
            row[s + "_status"] = status[s]
            continue
        try:
            row[s + "_final_loss"] = float(last.get(s, "nan").split()[0])
        except (ValueError, IndexError):
            row[s + "_final_loss"] = float("nan")
        put_timing(row, s, samples[s], plan[s][0])
        row[s + "_images_s"] = spec["batch"] / (row[s + "_ms"] * 1e-3)
        row[s + "_status"] = "ok"
        if not math.isfinite(row[s + "_final_loss"]):
            row[s + "_status"] = "FAILED: the loss became non-finite during the timed steps"
    return row


# --- Reports --------------------------------------------------------------------------------

def fmt_ms(v):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3f" % v


def ratio(row, a, b):
    if row.get(a + "_ms") and row.get(b + "_ms"):
        return row[a + "_ms"] / row[b + "_ms"]
    return None


def gflops(row, s):
    if row.get("flops") and row.get(s + "_ms"):
        return row["flops"] / (row[s + "_ms"] * 1e-3) / 1e9
    return None


def cell(row, s):
    st = row.get(s + "_status")
    if st is None:
        return "-"
    if st == "ok":
        return fmt_ms(row[s + "_ms"])
    if st.startswith("FAILED"):
        return "FAILED"
    if st.startswith("unsupported") or st.startswith("compile failed"):
        return st.split(" (")[0]
    return "error"


def table_rows(rows):
    out = []
    for r in rows:
        tfcc_ok = r.get("tfcc_status") == "ok"
        ro = ratio(r, "tfcc", "ort") if tfcc_ok else None
        rt = ratio(r, "tfcc", "torch") if tfcc_ok else None
        gf = " / ".join("%.1f" % gflops(r, s) if gflops(r, s) else "-"
                        for s in ("tfcc", "ort", "torch", "onednn")) if r.get("flops") else ""
        errs = []
        for s in ("tfcc", "torch", "onednn"):
            if r.get(s + "_err") is not None:
                errs.append("%s %.1e" % (LABEL[s], r[s + "_err"]))
        notes = list(r["notes"])
        for s in SYSTEMS:
            st = r.get(s + "_status")
            if st and st != "ok":
                notes.append("%s: %s" % (LABEL[s], st))
        out.append([r["workload"], str(r["threads"]), cell(r, "tfcc"), cell(r, "ort"),
                    cell(r, "torch"), cell(r, "onednn") if r.get("flops") else "",
                    "%.2f" % ro if ro else "-", "%.2f" % rt if rt else "-", gf,
                    ", ".join(errs), "; ".join(notes)])
    return out


HEADER = ["workload", "thr", "tfcc ms", "ORT ms", "PyTorch ms", "oneDNN ms", "tfcc/ORT",
          "tfcc/PyTorch", "GFLOP/s tfcc / ORT / PyTorch / oneDNN", "max rel err vs ORT", "notes"]


def int8_md(rows, weight_bits):
    """The int8 rows beside tfcc's float32 rows of the same run (issue 17's bars: int8 at
    least 2x tfcc float32 and at most 0.9x ONNX Runtime on the same QDQ file)."""
    by_key = {(r["workload"], r["threads"]): r for r in rows}
    lines = ["## int8: tfcc and ONNX Runtime on the same QDQ file, against tfcc float32", "",
             "The QDQ files are written by bench/qdq.py from the float workload's .onnx "
             "(ONNX Runtime's static QDQ format: uint8 activations per tensor, int8 weights "
             "per channel, int32 biases), weights of %d bits (`--int8-weight-bits`: 7 is "
             "ONNX Runtime's reduce_range, advised for CPUs without VNNI). Speed-up = tfcc "
             "float32 ms / tfcc int8 ms, with tfcc float32 timed in the int8 row, interleaved "
             "with tfcc int8 and ONNX Runtime in each repeat (the float workload's own row, "
             "timed minutes apart, in parentheses)." % weight_bits, "",
             "| workload | thr | tfcc int8 ms | ORT int8 ms | tfcc float32 ms | "
             "tfcc int8 / ORT int8 | speed-up over tfcc float32 | max rel err vs ORT |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["workload"] not in INT8_WORKLOADS:
            continue
        f = by_key.get((INT8_WORKLOADS[r["workload"]], r["threads"]), {})
        ro = ratio(r, "tfcc", "ort")
        up_row = (f["tfcc_ms"] / r["tfcc_ms"]) if f.get("tfcc_ms") and r.get("tfcc_ms") else None
        up = ratio(r, "tfcc_f32", "tfcc")
        same = cell(r, "tfcc_f32") if r.get("tfcc_f32_status") else "(not run)"
        lines.append("| %s | %d | %s | %s | %s (%s) | %s | %s (%s) | %s |" % (
            r["workload"], r["threads"], cell(r, "tfcc"), cell(r, "ort"), same,
            cell(f, "tfcc") if f else "not run", "%.2f" % ro if ro else "-",
            "%.2fx" % up if up else "-", "%.2fx" % up_row if up_row else "-",
            "%.1e" % r["tfcc_err"] if r.get("tfcc_err") is not None else "-"))
    return lines + [""]


TRAIN_HEADER = ["workload", "thr", "batch", "tfcc ms/step", "PyTorch ms/step", "tfcc images/s",
                "PyTorch images/s", "tfcc/PyTorch", "speed-up", "same-work check", "notes"]


def train_table_rows(rows):
    out = []
    for r in rows:
        rt = ratio(r, "tfcc", "torch") if r.get("tfcc_status") == "ok" else None
        ips = {s: "%.0f" % r[s + "_images_s"] if r.get(s + "_status") == "ok" else cell(r, s)
               for s in TRAIN_SYSTEMS}
        if r.get("check_err") is not None:
            chk = "losses %s, max rel err %.1e" % (
                "agree" if r["check_ok"] else "FAILED", r["check_err"])
        elif any(str(r.get(s + "_status", "")).startswith("FAILED") for s in TRAIN_SYSTEMS):
            chk = "FAILED"
        else:
            chk = "not compared"
        notes = list(r["notes"])
        for s in TRAIN_SYSTEMS:
            st = r.get(s + "_status")
            if st and st != "ok":
                notes.append("%s: %s" % (LABEL[s], st))
        out.append([r["workload"], str(r["threads"]), str(r["batch"]), cell(r, "tfcc"),
                    cell(r, "torch"), ips["tfcc"], ips["torch"], "%.2f" % rt if rt else "-",
                    "%.2fx" % (1 / rt) if rt else "-", chk, "; ".join(notes)])
    return out


def print_table(rows, header=None, body=None):
    header = header or HEADER
    body = table_rows(rows) if body is None else body
    shown = [h for h in header]
    widths = [max(len(shown[i]), *(len(b[i]) for b in body)) if body else len(shown[i])
              for i in range(len(shown) - 1)]
    fmt = "  ".join("%%-%ds" % w for w in widths)
    print(fmt % tuple(shown[:-1]))
    for b in body:
        print(fmt % tuple(b[:-1]) + ("  " + b[-1] if b[-1] else ""))


def lscpu_info():
    """lscpu's fields by name."""
    info = {}
    for line in sh(["lscpu"]).stdout.splitlines():
        k, _, v = line.partition(":")
        info[k.strip()] = v.strip()
    return info


def machine_info():
    info = lscpu_info()
    flags = set(info.get("Flags", "").split())
    interesting = ["avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
                   "amx_tile"]
    return {
        "cpu": info.get("Model name", platform.processor()),
        "cpus": info.get("CPU(s)", str(os.cpu_count())),
        "threads_per_core": info.get("Thread(s) per core", "?"),
        "flags": " ".join(f for f in interesting if f in flags),
        "hypervisor": info.get("Hypervisor vendor", ""),
        "kernel": platform.release(),
        "memory_gb": "%.0f" % (os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30),
    }


def git_state():
    """HEAD of the checkout, and whether the compiler's sources differ from it."""
    sha = sh(["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"]).stdout.strip()
    dirty = sh(["git", "-C", REPO, "status", "--porcelain", "--", "compiler", "passes", "runtime",
                "dialects", "tools"]).stdout.strip()
    return sha + (" + uncommitted changes in compiler/passes/runtime/dialects/tools"
                  if dirty else "")


def versions(rows, args):
    v = {}
    for r in rows:
        for key, sys_ in (("ort", "ort"), ("torch", "torch"), ("onednn", "onednn"),
                          ("blas", "torch")):
            note = r.get(sys_ + "_note") or ""
            for tok in note.split():
                if tok.startswith(key + "="):
                    v[key] = tok.split("=", 1)[1]
    v["tfcc"] = getattr(args, "git_state", None) or git_state()
    try:
        mtime = os.path.getmtime(getattr(args, "tfcc_used", args.tfcc))  # the snapshot used
        v["tfcc_binary"] = "%s (built %s)" % (os.path.relpath(args.tfcc, REPO),
                                              datetime.datetime.fromtimestamp(mtime)
                                              .strftime("%Y-%m-%d %H:%M"))
    except OSError:
        pass
    return v


def write_csv(path, rows):
    cols = ["workload", "threads", "description", "flops"]
    for s in SYSTEMS:
        cols += [s + "_ms", s + "_min", s + "_max", s + "_k", s + "_reps", s + "_err",
                 s + "_status"]
    cols += ["tfcc_over_ort", "tfcc_over_torch", "tfcc_gflops", "ort_gflops", "torch_gflops",
             "onednn_gflops", "tfcc_compile_s", "load1", "other_cpus", "notes",
             # after the original columns: the section ("inference" or "training") and the
             # training rows' numbers (ms columns are then ms per train step)
             "section", "batch", "tfcc_images_s", "torch_images_s", "speedup_vs_torch",
             "check_max_rel_err", "tfcc_losses", "torch_losses", "tfcc_final_loss",
             "torch_final_loss", "core_rtt_before", "core_rtt_after"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            rec = dict(r)
            rec["tfcc_over_ort"] = ratio(r, "tfcc", "ort") if r.get("tfcc_status") == "ok" else None
            rec["tfcc_over_torch"] = (ratio(r, "tfcc", "torch")
                                      if r.get("tfcc_status") == "ok" else None)
            for s in ("tfcc", "ort", "torch", "onednn"):
                rec[s + "_gflops"] = gflops(r, s)
            rec["notes"] = "; ".join(r["notes"])
            rec["section"] = r.get("section", "inference")
            if rec["section"] == "training":
                rt = rec["tfcc_over_torch"]
                rec["speedup_vs_torch"] = 1 / rt if rt else None
                rec["check_max_rel_err"] = r.get("check_err")
                for s in TRAIN_SYSTEMS:
                    if r.get(s + "_losses") is not None:
                        rec[s + "_losses"] = " ".join("%.6g" % v for v in r[s + "_losses"])

            def val(c):
                x = rec.get(c)
                if x is None:
                    return ""
                if isinstance(x, float):
                    return "%.6g" % x
                return str(x)
            w.writerow([val(c) for c in cols])


def write_png(path, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401
    labels, r_ort, r_torch = [], [], []
    for r in rows:
        if r.get("tfcc_status") != "ok":
            continue
        labels.append("%s t%d%s" % (r["workload"], r["threads"],
                                    " (train step)" if r.get("section") == "training" else ""))
        r_ort.append(ratio(r, "tfcc", "ort") or float("nan"))
        r_torch.append(ratio(r, "tfcc", "torch") or float("nan"))
    if not labels:
        if os.path.exists(path):
            os.remove(path)  # no stale chart beside fresh tables
        return False
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(labels) + 2), 5.5))
    x = range(len(labels))
    w = 0.4
    for off, vals, lab in ((-w / 2, r_ort, "tfcc / ONNX Runtime"), (w / 2, r_torch, "tfcc / PyTorch")):
        # Bars start at 1 (parity): up when tfcc is slower, down when it is faster.
        bars = ax.bar([i + off for i in x], [v - 1 for v in vals], w, bottom=1.0, label=lab)
        for b, v in zip(bars, vals):
            if v == v:  # not NaN
                ax.annotate("%.2g" % v, (b.get_x() + b.get_width() / 2, v), ha="center",
                            va="bottom" if v >= 1 else "top", fontsize=6,
                            xytext=(0, 1 if v >= 1 else -1), textcoords="offset points")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: "%g" % y))
    lo = min(v for v in r_ort + r_torch if v == v)
    hi = max(v for v in r_ort + r_torch if v == v)
    if hi / lo < 100:  # label minor ticks too when the range is narrow
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: "%g" % y))
        ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_ylabel("latency ratio (log; > 1: tfcc slower)")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_title("tfcc latency relative to peers (median, same machine, same run)")
    ax.legend()
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def tfcc_threads_note(rows):
    multi = [r for r in rows if r["threads"] > 1 and r.get("tfcc_note")]
    if not multi:
        return "one thread"
    if any("unsupported" in r["tfcc_note"] for r in multi):
        return "no `<p>_create_with_threads` in the .so: tfcc ran on 1 thread in every row"
    return "threads through `<p>_create_with_threads(max_batch, N, &ctx)`"


def train_md(rows, args):
    """The .md's training section."""
    spec_steps = {r["workload"]: TRAIN_WORKLOADS[r["workload"]]["check_steps"] for r in rows}
    lines = ["## Training (train step, batch 64): tfcc against PyTorch", "",
             "One train step = forward in training mode (batch norm on batch statistics, "
             "dropout), loss, backward, clipping by global norm, the optimizer update of every "
             "weight and of the moving statistics. tfcc: `<p>_train_step` of the `.so` compiled "
             "from the workload's `.mlir` (bench/train/tfcc_train_harness.c). PyTorch: the same "
             "model in eager mode, `model.train()`, `F.cross_entropy`, `loss.backward()`, "
             "`clip_grad_norm_`, `torch.optim.Adam` with the same hyperparameters "
             "(bench/train/torch_train_worker.py), images and model in memory format `%s`, "
             "`set_num_threads(N)`, `OMP_NUM_THREADS=N`, one process per row; glibc malloc "
             "%s. The peer is PyTorch only: ONNX Runtime has no training in "
             "its standard package. Both systems train on the same %d random batches "
             "(images uniform in [0, 1), labels in [0, 10)), in turn."
             % (args.train_torch_format,
                "tuned for both (`GLIBC_TUNABLES=%s`: PyTorch's per-step buffers stay mapped "
                "instead of being page-faulted in at every step)" % TRAIN_MALLOC_TUNABLES
                if args.train_malloc == "tuned" else "with glibc's default settings",
                TRAIN_WORKLOADS[rows[0]["workload"]]["batches"]), "",
             "Same-work check, before timing: PyTorch takes tfcc's initial weights (read with "
             "`<p>_get_variable`; HWIO -> OIHW, dense (in, out) -> Linear (out, in), flatten "
             "order NHWC -> NCHW); from them both compute the eval-mode loss on one batch, "
             "%s train steps on that batch (PyTorch with tfcc's dropout masks, and Adam's "
             "epsilon where Keras/tfcc add it) and the eval-mode loss again. A system fails "
             "when a loss is not finite or the eval loss did not drop; tfcc fails when any of "
             "the losses differs from PyTorch's by more than %g relative."
             % ("/".join(sorted(set(str(v) for v in spec_steps.values()))), args.train_rtol),
             "",
             "Timing as for inference (calibration, warm-up, up to %d repeats of K steps, the "
             "two systems interleaved): ms/step is the median over repeats; images/s = batch / "
             "(ms/step); tfcc/PyTorch is the time ratio (below 1 tfcc is faster), speed-up = "
             "PyTorch time / tfcc time." % args.repeats, ""]
    lines.append("| " + " | ".join(TRAIN_HEADER) + " |")
    lines.append("|" + "---|" * len(TRAIN_HEADER))
    for b in train_table_rows(rows):
        lines.append("| " + " | ".join(c.replace("|", "/") for c in b) + " |")
    lines += ["", "| workload | thr | losses tfcc | losses PyTorch | spread tfcc (ms/step, KxR) "
              "| spread PyTorch | loss after the timed steps tfcc / PyTorch | CPUs used by other "
              "processes | threads' round trip, ns (before / after) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cells = []
        for s in TRAIN_SYSTEMS:
            cells.append(" ".join("%.5g" % v for v in r[s + "_losses"])
                         if r.get(s + "_losses") else "-")
        for s in TRAIN_SYSTEMS:
            cells.append("%s - %s (%dx%d)" % (fmt_ms(r[s + "_min"]), fmt_ms(r[s + "_max"]),
                                              r[s + "_k"], r[s + "_reps"])
                         if r.get(s + "_status") == "ok" else "-")
        cells.append(" / ".join("%.4g" % r[s + "_final_loss"] if r.get(s + "_final_loss")
                                is not None else "-" for s in TRAIN_SYSTEMS))
        lines.append("| %s | %d | %s | %.2f | %s |" % (r["workload"], r["threads"],
                                                      " | ".join(cells),
                                                      r.get("other_cpus", 0.0), fmt_rtt(r)))
    lines += ["", "Losses: eval, %s train steps, eval (the same-work check)."
              % "/".join(sorted(set(str(v) for v in spec_steps.values()))), ""]
    return lines


def fmt_rtt(r):
    """A 2-thread row's core_rtt before / after its timing ('-' for 1 thread)."""
    if r["threads"] < 2:
        return "-"
    return " / ".join("%d" % v if v is not None else "?"
                      for v in (r.get("core_rtt_before"), r.get("core_rtt_after")))


# The kernel level of the runtime archive tfcc --cpu=NAME links (compiler/Compiler.cpp,
# runtimeLibraryFor), for the CPU names the suite is pinned with; others are named as given.
PINNED_LEVELS = {"x86-64": "generic", "x86-64-v2": "generic", "x86-64-v3": "avx2",
                 "haswell": "avx2", "skylake": "avx2", "znver1": "avx2", "znver2": "avx2",
                 "znver3": "avx2", "x86-64-v4": "avx512", "skylake-avx512": "avx512",
                 "znver4": "avx512"}


def kernel_level(flags, tfcc_flags=""):
    """The ISA level tfcc's kernels run at (runtime/src/kernels: the CPU's, capped by
    TFCC_KERNELS_ISA, or the level of the CPU a --cpu in the tfcc flags pins the build to),
    with what set it."""
    have = set(flags.split())
    cpu = ("avx512" if {"avx512f", "avx512bw", "avx512vl"} <= have
           else "avx2" if {"avx2", "fma"} <= have else "generic")
    order = ["generic", "avx2", "avx512"]
    level, why = cpu, "the CPU's"
    for flag in tfcc_flags.split():
        if flag.startswith("--cpu="):
            name = flag[len("--cpu="):]
            pinned = PINNED_LEVELS.get(name)
            if pinned:
                level, why = pinned, ("tfcc --cpu=%s: the model's code and the kernels "
                                      "it links stop at %s" % (name, pinned))
            else:
                why = "tfcc --cpu=%s" % name
    cap = os.environ.get("TFCC_KERNELS_ISA")
    if cap in order and order.index(cap) < order.index(level):
        level, why = cap, "TFCC_KERNELS_ISA=%s" % cap
    if level != cpu:
        why += "; the CPU has %s" % cpu
    return "%s (%s)" % (level, why)


def peer_level(isa):
    """What the peers ran at: the CPU's own kernels, or capped by bench/run.sh --isa."""
    if not isa:
        return "the CPU's (each library's own CPUID dispatch)"
    return ("%s, capped by `bench/run.sh --isa %s`: ONNX Runtime through a copy whose XGETBV "
            "reads show no AVX-512 state (bench/harness/ort_isa_cap.py), oneDNN and PyTorch's "
            "oneDNN ONEDNN_MAX_CPU_ISA=%s, PyTorch ATEN_CPU_CAPABILITY=%s, OpenBLAS "
            "OPENBLAS_CORETYPE=%s" % (isa, isa, os.environ.get("ONEDNN_MAX_CPU_ISA", "?"),
                                      os.environ.get("ATEN_CPU_CAPABILITY", "?"),
                                      os.environ.get("OPENBLAS_CORETYPE", "?")))


def write_md(path, rows, train_rows, compiles, args, started, elapsed, load):
    m = machine_info()
    every = rows + train_rows
    v = versions(every, args)
    lines = ["# tfcc benchmark results", "",
             "Generated by `bash bench/run.sh %s` on %s (UTC), suite took %.0f s."
             % (" ".join(args.argv_echo), started.strftime("%Y-%m-%d %H:%M"), elapsed), "",
             "## Machine and versions", "",
             "| | |", "|---|---|",
             "| CPU | %s (%s logical CPUs, %s thread(s) per core%s) |"
             % (m["cpu"], m["cpus"], m["threads_per_core"],
                ", " + m["hypervisor"] + " guest" if m["hypervisor"] else ""),
             "| ISA flags | %s |" % m["flags"],
             "| tfcc kernel level | %s |" % kernel_level(m["flags"], args.tfcc_flags or ""),
             "| peers' kernel level | %s |" % peer_level(args.isa),
             "| memory, kernel | %s GiB, Linux %s |" % (m["memory_gb"], m["kernel"]),
             "| other work on the machine | load average %s before the run; other processes "
             "kept %s CPUs busy on average during the rows (per row below; 0 on a quiet "
             "machine); the bench ran at nice %d |"
             % (load[0], "%.2f" % (sum(r.get("other_cpus", 0) for r in every) / max(1, len(every))),
                getattr(args, "nice_actual", 0)),
             "| tfcc | git %s; %s; %s |" % (v.get("tfcc", "?"), v.get("tfcc_binary", ""),
                                            tfcc_threads_note(every)),
             "| ONNX Runtime | %s (npm onnxruntime-node, C API; intra-op threads = N, inter-op 1, "
             "sequential, ORT_ENABLE_ALL) |" % v.get("ort", "?" if rows else "not run"),
             "| PyTorch | %s (Debian; %sTorchScript trace + freeze, inference_mode%s; "
             "set_num_threads(N), OPENBLAS_NUM_THREADS=1; BLAS: %s) |"
             % (v.get("torch", "?"), "inference: " if train_rows else "",
                "; training: eager mode, bench/train/torch_train_worker.py" if train_rows else "",
                v.get("blas", "?")),
             "| oneDNN | %s (Debian libdnnl, dnnl_sgemm, OMP_NUM_THREADS=N) |"
             % v.get("onednn", "not run (no matmul rows)"), ""]
    if rows:
        lines += [
             "Method: per workload and thread count N (the same N for every system), each "
             "system runs the same random input once and its outputs are compared with ONNX "
             "Runtime's (a system is FAILED, and not timed, when |a-b| > %g·|b| + %g·max(1, "
             "max|b|) anywhere); then per system a calibration run, a warm-up of K runs and up "
             "to %d repeats of K back-to-back runs (K chosen for ~%.2f s per repeat), the "
             "systems interleaved within each repeat so that one computes at a time. Reported: "
             "the median over repeats of the time per run. Model loading and tfcc's compile "
             "time are excluded. See bench/README.md."
             % (args.rtol, args.atol, args.repeats, args.target), "",
             "## Results", "",
             "Ratios are tfcc latency / peer latency: below 1 tfcc is faster. Max rel err is "
             "max|a-b| / max|b| against ONNX Runtime's outputs on the same inputs.", ""]
        lines.append("| " + " | ".join(HEADER) + " |")
        lines.append("|" + "---|" * len(HEADER))
        for b in table_rows(rows):
            lines.append("| " + " | ".join(c.replace("|", "/") for c in b) + " |")
        lines.append("")
        if any(r["workload"] in INT8_WORKLOADS for r in rows):
            lines += int8_md(rows, args.int8_bits)
    if train_rows:
        lines += train_md(train_rows, args)
    lines += ["## tfcc compile times", "", "| workload | seconds | result |", "|---|---|---|"]
    for n, (so, dt, err) in compiles.items():
        lines.append("| %s | %.1f | %s |" % (n, dt, "ok" if so else tfcc_failure(err) + ": " + err))
    if rows:
        lines += ["", "## Spread (min - max over repeats, ms; K runs per repeat x repeats)", "",
                  "| workload | thr | " + " | ".join(LABEL[s] for s in SYSTEMS) +
                  " | CPUs used by other processes | threads' round trip, ns (before / after) |",
                  "|---|---|" + "---|" * (len(SYSTEMS) + 2)]
        for r in rows:
            cells = []
            for s in SYSTEMS:
                if r.get(s + "_status") == "ok":
                    cells.append("%s - %s (%dx%d)" % (fmt_ms(r[s + "_min"]),
                                                      fmt_ms(r[s + "_max"]),
                                                      r[s + "_k"], r[s + "_reps"]))
                else:
                    cells.append("-")
            lines.append("| %s | %d | %s | %.2f | %s |" % (r["workload"], r["threads"],
                                                          " | ".join(cells),
                                                          r.get("other_cpus", 0.0), fmt_rtt(r)))
        lines += ["", "Threads' round trip: a cache line bounced between two threads "
                  "(bench/harness/core_rtt.c, median ns), measured before and after each "
                  "2-thread row. On a VM it tells whether the two vCPUs share a last-level "
                  "cache at the time (tens of ns) or not (hundreds); a 2-thread row measured "
                  "above %d ns is noted \"far cores\": every system's 2-thread time rises "
                  "then." % FAR_CORES_NS]
    lines += ["", "Workloads:", ""]
    seen = set()
    for r in every:
        if r["workload"] not in seen:
            seen.add(r["workload"])
            lines.append("- `%s`: %s" % (r["workload"], r["description"]))
    if args.append and os.path.exists(args.append):
        with open(args.append) as f:
            lines += ["", "## Kernel level (bench/gemm/run.sh)", "", "```", f.read().rstrip(),
                      "```"]
    lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


# --- Main -----------------------------------------------------------------------------------

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    p.add_argument("--tfcc", default=None, help="tfcc binary (default BUILD/bin/tfcc)")
    p.add_argument("--tfcc-flags", default="", help="extra tfcc options, e.g. '-O3'")
    p.add_argument("--isa", default="", choices=["", "avx2"],
                   help="run as on an AVX2 machine: tfcc --cpu=x86-64-v3; bench/run.sh caps "
                        "the peers and says how")
    p.add_argument("--int8-weight-bits", default="auto", choices=["auto", "7", "8"],
                   help="the QDQ files' weights: 8 bits, or 7 (ONNX Runtime's reduce_range, "
                        "advised for CPUs without VNNI); auto (default): 7 when the int8 "
                        "kernels run without VNNI (no AVX512_VNNI/AVX-VNNI, or --isa avx2)")
    p.add_argument("--ort-lib", default=None, help="libonnxruntime.so.1 (required to run)")
    p.add_argument("--cc", default="cc", help="C compiler for the per-model tfcc harness")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default="")
    p.add_argument("--skip", default="")
    p.add_argument("--target", type=float, default=None,
                   help="seconds per repeat per system (sets K; default 0.25, quick 0.06)")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds of timed runs per system and row before repeats are cut "
                        "(default 40, quick 10)")
    p.add_argument("--wait-idle", type=float, default=0,
                   help="wait up to this many seconds for the 1-minute load average to drop "
                        "below 0.5 before timing (other work on the machine skews timings)")
    p.add_argument("--nice", type=int, default=None,
                   help="scheduling priority for the whole run (e.g. -15, needs root): on a "
                        "shared machine it keeps other work from preempting the timed runs")
    p.add_argument("--max-iters", type=int, default=100000)
    p.add_argument("--pause", type=float, default=0.05)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--atol", type=float, default=1e-4)
    p.add_argument("--train-rtol", type=float, default=1e-4,
                   help="training rows: largest relative difference between tfcc's and "
                        "PyTorch's losses in the same-work check (default 1e-4)")
    p.add_argument("--train-torch-format", default="channels_last",
                   choices=["channels_last", "contiguous"],
                   help="training rows: PyTorch's memory format for the images and the model "
                        "(default channels_last, its faster CPU path for this model)")
    p.add_argument("--train-malloc", default="tuned", choices=["tuned", "default"],
                   help="training rows: glibc malloc of both processes; tuned (default): "
                        "GLIBC_TUNABLES keeps big blocks in the heap (PyTorch steady and "
                        "fast), default: glibc's own settings")
    p.add_argument("--list", action="store_true", help="print the workload names and exit")
    p.add_argument("--results", default=os.path.join(HERE, "results"))
    p.add_argument("--name", default="latest", help="results file stem (default latest)")
    p.add_argument("--append", default=None,
                   help="a text file (bench/gemm output) to include in the .md")
    p.add_argument("--argv-echo", default="", help=argparse.SUPPRESS)
    args = p.parse_args()
    listing = sh([PY, os.path.join(HERE, "models.py"), "--list"]).stdout.split("\n")
    listing = [l for l in listing if l.strip()] + \
        ["%-15s %s, int8 QDQ (bench/qdq.py)" % (n, b) for n, b in INT8_WORKLOADS.items()] + \
        ["%-15s %s" % (n, w["summary"]) for n, w in TRAIN_WORKLOADS.items()]
    if args.list:
        print("\n".join(listing))
        return 0
    if not args.ort_lib:
        p.error("--ort-lib is required")
    args.argv_echo = shlex.split(args.argv_echo)
    if args.isa == "avx2":
        args.tfcc_flags = (args.tfcc_flags + " --cpu=x86-64-v3").strip()
    args.int8_bits = int8_weight_bits(args.int8_weight_bits, args.isa)
    args.tfcc = args.tfcc or os.path.join(args.build_dir, "bin", "tfcc")
    args.repeats = args.repeats or (3 if args.quick else 7)
    args.target = args.target or (0.06 if args.quick else 0.25)
    args.budget = args.budget or (10.0 if args.quick else 40.0)
    threads = [int(t) for t in args.threads.split(",") if t]

    work = os.path.join(args.build_dir, "bench")
    paths = {"work": work, "models": os.path.join(work, "models"),
             "ort_bench": os.path.join(work, "bin", "ort_bench"),
             "dnnl_bench": os.path.join(work, "bin", "dnnl_bench"),
             "core_rtt": os.path.join(work, "bin", "core_rtt"),
             "ort_lib": args.ort_lib}
    if not os.path.exists(paths["dnnl_bench"]):
        paths["dnnl_bench"] = None

    known = [l.split()[0] for l in listing]
    names = [n for n in args.only.split(",") if n] or \
        [n for n in known if not (args.quick and n in QUICK_SKIP)]
    names = [n for n in names if n not in set(args.skip.split(","))]
    for n in names:
        if n not in known:
            sys.exit("bench: unknown workload %r; known: %s" % (n, ", ".join(known)))

    train_names = [n for n in names if n in TRAIN_WORKLOADS]
    names = [n for n in names if n not in TRAIN_WORKLOADS]

    started = datetime.datetime.utcnow()
    t_start = time.time()
    int8_names = [n for n in names if n in INT8_WORKLOADS]
    metas = export_models([n for n in names if n not in INT8_WORKLOADS] +
                          [INT8_WORKLOADS[n] for n in int8_names
                           if INT8_WORKLOADS[n] not in names], paths["models"])
    metas.update(export_int8_models(int8_names, paths["models"], args.tfcc, args.int8_bits))
    paths["train_data"] = {n: write_train_data(n, TRAIN_WORKLOADS[n], os.path.join(work, "train"))
                           for n in train_names}

    tfcc = args.tfcc_used = snapshot_tfcc(args.tfcc, work)
    args.git_state = git_state()  # when the compiler was copied, not when the run ends
    log("compiling %d models with %s (a copy of %s)" % (len(names) + len(train_names),
                                                         os.path.relpath(tfcc),
                                                         os.path.relpath(args.tfcc)))
    compiles = {}
    for n in names:
        compiles[n] = compile_tfcc(tfcc, args.cc, n, paths["models"], os.path.join(work, "so"),
                                   shlex.split(args.tfcc_flags))
        log_compile(n, compiles[n])
    # The float32 builds the int8 rows time beside them, compiled here too where their
    # own rows are not selected: else an int8 row would time a float build left in the
    # work directory by an earlier run (another --isa, another commit).
    for b in sorted({INT8_WORKLOADS[n] for n in int8_names} - set(names)):
        log_compile(b, compile_tfcc(tfcc, args.cc, b, paths["models"], os.path.join(work, "so"),
                                    shlex.split(args.tfcc_flags)),
                    "; float32 beside the int8 rows")
    for n in train_names:
        compiles[n] = compile_tfcc_train(tfcc, args.cc, n, TRAIN_WORKLOADS[n],
                                         os.path.join(work, "so"), shlex.split(args.tfcc_flags))
        log_compile(n, compiles[n])

    if args.nice is not None:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, args.nice)  # inherited by every harness
            log("running at nice %d" % args.nice)
            # With scheduler autogroups (Linux default), nice only ranks processes within one
            # session; the session's group competes with the others by its own nice value.
            # Restored at exit: the group outlives this process.
            if os.path.exists("/proc/self/autogroup"):
                with open("/proc/self/autogroup") as f:
                    previous = f.read().split()[-1]
                with open("/proc/self/autogroup", "w") as f:
                    f.write(str(args.nice))

                def restore(value=previous):
                    try:
                        with open("/proc/self/autogroup", "w") as f:
                            f.write(value)
                    except OSError:
                        pass
                atexit.register(restore)
        except OSError as e:
            log("warning: cannot set nice %d (%s); running at %d"
                % (args.nice, e, os.getpriority(os.PRIO_PROCESS, 0)))
    args.nice_actual = os.getpriority(os.PRIO_PROCESS, 0)
    if args.wait_idle > 0:
        deadline = time.time() + args.wait_idle
        while os.getloadavg()[0] >= 0.5 and time.time() < deadline:
            log("waiting for an idle machine (load %.2f)" % os.getloadavg()[0])
            time.sleep(min(30, max(1, deadline - time.time())))
    load_start = "%.2f" % os.getloadavg()[0]
    if float(load_start) >= 0.5:
        log("warning: load average %s: other work on this machine will skew the timings"
            % load_start)

    rows = []
    for n in names:
        for t in threads:
            t0 = time.time()
            row = run_workload(args, n, metas[n], t, compiles[n][0], paths)
            row["tfcc_compile_s"] = compiles[n][1]
            if not compiles[n][0]:
                row["tfcc_status"] = "%s (%s)" % (tfcc_failure(compiles[n][2]), compiles[n][2])
            rows.append(row)
            b = table_rows([row])[0]
            log("%-13s t%d  tfcc %s  ORT %s  PyTorch %s%s  tfcc/ORT %s  tfcc/PyTorch %s  [%.0f s]%s"
                % (n, t, b[2], b[3], b[4], "  oneDNN " + b[5] if b[5] else "", b[6], b[7],
                   time.time() - t0, "  (" + b[10] + ")" if b[10] else ""))
    train_rows = []
    for n in train_names:
        for t in threads:
            t0 = time.time()
            row = run_train_workload(args, n, TRAIN_WORKLOADS[n], t, compiles[n][0], paths)
            row["tfcc_compile_s"] = compiles[n][1]
            if not compiles[n][0]:
                row["tfcc_status"] = "%s (%s)" % (tfcc_failure(compiles[n][2]), compiles[n][2])
            train_rows.append(row)
            b = train_table_rows([row])[0]
            per = {s: ("%s ms (%s images/s)" % (b[i], b[j])
                       if row.get(s + "_status") == "ok" else b[i])
                   for s, i, j in (("tfcc", 3, 5), ("torch", 4, 6))}
            log("%-15s t%d  train step: tfcc %s  PyTorch %s  tfcc/PyTorch %s  speed-up %s  "
                "check: %s  [%.0f s]%s"
                % (n, t, per["tfcc"], per["torch"], b[7], b[8], b[9], time.time() - t0,
                   "  (" + b[10] + ")" if b[10] else ""))

    elapsed = time.time() - t_start
    load_end = "%.2f" % os.getloadavg()[0]
    print()
    if rows:
        print_table(rows)
        print()
    if train_rows:
        print("Training (ms per train step; peer: PyTorch, eager):")
        print_table(train_rows, TRAIN_HEADER, train_table_rows(train_rows))
        print()
    os.makedirs(args.results, exist_ok=True)
    md = os.path.join(args.results, args.name + ".md")
    write_md(md, rows, train_rows, compiles, args, started, elapsed, (load_start, load_end))
    write_csv(os.path.join(args.results, args.name + ".csv"), rows + train_rows)
    png_ok = write_png(os.path.join(args.results, args.name + ".png"), rows + train_rows)
    log("wrote %s, %s.csv%s (%.0f s)" % (os.path.relpath(md), args.name,
                                          ", %s.png" % args.name if png_ok else "", elapsed))
    failed = [r for r in rows + train_rows if any(str(r.get(s + "_status", "")).startswith("FAILED")
                                     for s in SYSTEMS)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
