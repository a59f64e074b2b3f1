#!/usr/bin/env bash
# test/cuda/device_check.sh: the CUDA target on a machine with an NVIDIA GPU
# (docs/cuda.md). Run from anywhere; needs tfcc's build (build/, or $BUILD;
# built with .ci/build.sh if missing), the GPU's driver, and the CUDA toolkit
# ($CUDA_HOME or /usr/local/cuda).
#
#   1. Numerics: every function of ops.mlir, the spec models' inference
#      entries and three train steps of each training model, each compiled
#      with --target=cuda and compared with the reference interpreter by
#      tfcc-run --compare (float32: relative error <= 1e-4).
#   2. Times (tfcc-run --bench: whole calls, host inputs and outputs, copies
#      included): GEMM 4096, the seed CNN (mnist_cnn) at batch 256, ResNet-18
#      at batch 32 (build/bench/models/resnet18.onnx, from bench/models.py),
#      against PyTorch CUDA if it is installed, else cuBLAS directly (GEMM).
#   3. The results replace the "Device check" section of docs/cuda.md and are
#      printed. Exit status: 0 when every comparison passed.
#
# Options (environment): QUICK=1 checks only the first 8 functions of ops.mlir
# (a short device slot); RTOL (default 1e-4); BENCH_RUNS (default 20).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SPEC=${SPEC:-$(dirname "$ROOT")/shared/spec/models}
RTOL=${RTOL:-1e-4}
BENCH_RUNS=${BENCH_RUNS:-20}
CUDA=${CUDA_HOME:-/usr/local/cuda}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
REPORT=$WORK/report.md
failures=0

say() { echo "$@" | tee -a "$REPORT"; }

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "device_check: no NVIDIA GPU here (nvidia-smi -L failed)" >&2
  exit 2
fi
if [ ! -x "$BUILD/bin/tfcc" ] || [ ! -x "$BUILD/bin/tfcc-run" ]; then
  (cd "$ROOT" && bash .ci/build.sh) || { echo "device_check: build failed" >&2; exit 2; }
fi
TFCC=$BUILD/bin/tfcc
RUN=$BUILD/bin/tfcc-run
[ -d "$SPEC" ] || { echo "device_check: no spec models at $SPEC (set SPEC)" >&2; exit 2; }

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
say "Run $(date -u +%Y-%m-%d) on: $gpu; CUDA toolkit $("$CUDA/bin/ptxas" --version | tail -1);"
say "host CPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
say ""

# --- 1. Numerics -------------------------------------------------------------
say "| model | entry | result |"
say "|---|---|---|"
compare() { # file entry [extra tfcc-run options...]
  local file=$1 entry=$2
  shift 2
  local log=$WORK/compare.log
  if "$RUN" --target=cuda "$file" --entry "$entry" --compare --rtol "$RTOL" "$@" > "$log" 2>&1; then
    local worst
    worst=$(grep -o 'relative error [0-9.e+-]*' "$log" | awk '{print $3}' | sort -g | tail -1)
    say "| $(basename "$file") | $entry | ok (largest relative error ${worst:-0}) |"
  else
    failures=$((failures + 1))
    say "| $(basename "$file") | $entry | **FAIL**: $(grep -m1 -E 'error|FAIL' "$log" | tr '|' '/' | cut -c1-200) |"
  fi
}
functions=$(grep -o 'func.func @[A-Za-z0-9_]*' "$SPEC/ops.mlir" | sed 's/func.func @//')
[ "${QUICK:-0}" = 1 ] && functions=$(echo "$functions" | head -8)
for f in $functions; do compare "$SPEC/ops.mlir" "$f"; done
compare "$SPEC/mlp.mlir" predict --batch 4
compare "$SPEC/mnist_cnn.mlir" predict --batch 4
for m in mlp_train mnist_cnn_train; do
  for e in $(grep -o 'func.func @[A-Za-z0-9_]*' "$SPEC/$m.mlir" | sed 's/func.func @//'); do
    compare "$SPEC/$m.mlir" "$e" --no-train --batch 4
  done
done
for m in mlp_train mnist_cnn_train; do
  log=$WORK/train.log
  if "$RUN" --target=cuda "$SPEC/$m.mlir" --train-steps 3 --compare --rtol "$RTOL" --batch 4 > "$log" 2>&1; then
    say "| $m.mlir | 3 train steps (losses, variables) | ok |"
  else
    failures=$((failures + 1))
    say "| $m.mlir | 3 train steps | **FAIL**: $(grep -m1 -E 'error|FAIL' "$log" | tr '|' '/' | cut -c1-200) |"
  fi
done
say ""

# --- 2. Times ----------------------------------------------------------------
median_ms() { grep -o 'median latency over [0-9]* runs: [0-9.]*' | awk '{print $NF}'; }
have_torch=0
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null && have_torch=1
torch_ms() { # what: gemm N | cnn BATCH | resnet18 BATCH
  python3 - "$@" << 'EOF'
import sys, time, torch
what, n = sys.argv[1], int(sys.argv[2])
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
if what == "gemm":
    a = torch.rand(n, n, device=dev); b = torch.rand(n, n, device=dev)
    run = lambda: a @ b
else:
    if what == "cnn":
        m = torch.nn.Sequential(
            torch.nn.Conv2d(1, 32, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(32, 64, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Flatten(), torch.nn.Linear(1600, 64), torch.nn.ReLU(),
            torch.nn.Linear(64, 10), torch.nn.Softmax(dim=1))
        shape = (n, 1, 28, 28)
    else:
        import torchvision
        m = torchvision.models.resnet18()
        shape = (n, 3, 224, 224)
    m = m.eval().to(dev)
    x = torch.rand(*shape)
    # From host memory and back, as tfcc-run's calls.
    run = lambda: m(x.to(dev)).cpu()
with torch.no_grad():
    for _ in range(3): run()
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        t = time.perf_counter(); run(); torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
print("%.3f" % sorted(times)[10])
EOF
}
say "| workload | tfcc (ms) | peer | peer (ms) | tfcc / peer |"
say "|---|---|---|---|---|"
row() { # name tfcc_ms peer peer_ms
  local ratio="-"
  if [ -n "$2" ] && [ -n "$4" ]; then ratio=$(awk -v a="$2" -v b="$4" 'BEGIN { printf "%.2f", a / b }'); fi
  say "| $1 | ${2:-failed} | $3 | ${4:--} | $ratio |"
}
t=$("$RUN" --target=cuda "$ROOT/test/cuda/Inputs/gemm4096.mlir" --bench "$BENCH_RUNS" 2> "$WORK/gemm.err" | median_ms)
if [ "$have_torch" = 1 ]; then
  row "GEMM 4096 (f32)" "$t" "PyTorch $(python3 -c 'import torch; print(torch.__version__)') (device operands)" "$(torch_ms gemm 4096)"
elif cc -O2 -I"$CUDA/include" "$ROOT/test/cuda/cublas_gemm.c" -L"$CUDA/lib64" -lcublas -lcudart -o "$WORK/cublas_gemm" 2> /dev/null; then
  row "GEMM 4096 (f32)" "$t" "cuBLAS SGEMM (device operands)" "$(LD_LIBRARY_PATH=$CUDA/lib64 "$WORK/cublas_gemm" 4096)"
else
  row "GEMM 4096 (f32)" "$t" "none (no PyTorch, cuBLAS did not build)" ""
fi
t=$("$RUN" --target=cuda "$SPEC/mnist_cnn.mlir" --batch 256 --bench "$BENCH_RUNS" 2> "$WORK/cnn.err" | median_ms)
peer=""; [ "$have_torch" = 1 ] && peer=$(torch_ms cnn 256)
row "seed CNN, batch 256" "$t" "PyTorch (same layers, random weights)" "$peer"
resnet=${RESNET18_ONNX:-$BUILD/bench/models/resnet18.onnx}
if [ ! -f "$resnet" ] && [ "$have_torch" = 1 ]; then
  mkdir -p "$WORK/models" && python3 "$ROOT/bench/models.py" "$WORK/models" > /dev/null 2>&1 &&
    resnet=$WORK/models/resnet18.onnx
fi
if [ -f "$resnet" ]; then
  # bench/models.py exports batch 1 (static): the same graph at batch 32.
  onnx_py=python3
  /usr/bin/python3 -c 'import onnx' 2> /dev/null && onnx_py=/usr/bin/python3
  "$onnx_py" - "$resnet" "$WORK/resnet18_b32.onnx" << 'EOF' 2> "$WORK/resnet.err" && resnet=$WORK/resnet18_b32.onnx
import sys, onnx
m = onnx.load(sys.argv[1])
for v in list(m.graph.input) + list(m.graph.output):
    v.type.tensor_type.shape.dim[0].dim_value = 32
onnx.save(m, sys.argv[2])
EOF
  t=$("$RUN" --target=cuda "$resnet" --bench "$BENCH_RUNS" 2>> "$WORK/resnet.err" | median_ms)
  peer=""; [ "$have_torch" = 1 ] && peer=$(torch_ms resnet18 32)
  row "ResNet-18, batch 32" "$t" "PyTorch (torchvision)" "$peer"
else
  say "| ResNet-18, batch 32 | not run: no resnet18.onnx (bench/models.py needs PyTorch) | | | |"
fi
for err in gemm cnn resnet; do
  [ -s "$WORK/$err.err" ] && { echo "--- $err:"; tail -3 "$WORK/$err.err"; }
done
say ""
say "Times are whole calls from host memory (inputs copied in, outputs copied"
say "back; the weights uploaded by the first call)."

# --- 3. docs/cuda.md ---------------------------------------------------------
DOC=$ROOT/docs/cuda.md
if [ -f "$DOC" ] && grep -q '<!-- device-check:begin -->' "$DOC"; then
  python3 - "$DOC" "$REPORT" << 'EOF'
import sys
doc, report = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read()
begin, end = "<!-- device-check:begin -->", "<!-- device-check:end -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc, "w").write(head + begin + "\n" + report + end + tail)
EOF
  echo "device_check: results written to $DOC"
fi
echo "device_check: $failures comparison(s) failed"
[ "$failures" = 0 ]
