#!/usr/bin/env bash
# The benchmark suite: tfcc against ONNX Runtime, PyTorch and oneDNN on identical models,
# weights and inputs, in one run. See bench/README.md.
#
#   bash bench/run.sh [--quick] [--threads 1,2] [--repeats N] [--only NAME,...] [--skip NAME,...]
#                     [--tfcc PATH] [--tfcc-flags '...'] [--build-dir DIR] [--results DIR]
#                     [--name STEM] [--target SECONDS] [--budget SECONDS] [--wait-idle SECONDS]
#                     [--nice N] [--train-rtol R] [--train-torch-format channels_last|contiguous]
#                     [--train-malloc tuned|default] [--int8-weight-bits auto|7|8]
#                     [--isa avx2] [--gemm] [--no-install] [--list]
#
# Installs what is missing (apt-get: libdnnl-dev, python3-torch, python3-torchvision,
# python3-onnx, python3-matplotlib, libopenblas0-openmp; npm: onnxruntime-node 1.30.0 and the
# ONNX Runtime C headers), builds tfcc when BUILD/bin/tfcc is missing (.ci/build.sh), builds
# the harnesses into BUILD/bench/bin, then runs bench/bench.py. Downloads go to BUILD/bench
# (never committed). Writes bench/results/latest.{md,csv,png} unless --results/--name say
# otherwise. The training workload (mnist_cnn_train: tfcc's compiled train step against
# PyTorch training the same model) is compiled from its .mlir and runs with the others.
# --gemm also runs bench/gemm/run.sh (kernel-level GEMM/conv GFLOP/s against
# oneDNN, owned by bench/gemm; and --int8, the int8 GEMM against oneDNN's u8s8s32) first and
# puts its output into the .md.
# --isa avx2 runs everything as on an AVX2+FMA machine without AVX-512: tfcc builds with
# --cpu=x86-64-v3 (bench/gemm's kernels with TFCC_KERNELS_ISA=avx2) and every peer is capped
# at AVX2: ONNX Runtime through a copy made by bench/harness/ort_isa_cap.py, oneDNN (also
# PyTorch's) with ONEDNN_MAX_CPU_ISA=AVX2, PyTorch's own kernels with ATEN_CPU_CAPABILITY=avx2,
# OpenBLAS with OPENBLAS_CORETYPE=Haswell.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
BUILD_DIR=$REPO/build
TFCC=""
INSTALL=1
GEMM=0
ISA=""
PASS=()
ECHO=("$@")

die() { echo "bench/run.sh: error: $*" >&2; exit 2; }
log() { echo "bench/run.sh: $*"; }

while [ $# -gt 0 ]; do
  case $1 in
    --quick) PASS+=(--quick) ;;
    --threads|--repeats|--only|--skip|--tfcc-flags|--results|--name|--target|--budget|--wait-idle|--nice|--train-rtol|--train-torch-format|--train-malloc|--int8-weight-bits)
      [ $# -ge 2 ] || die "$1 needs a value"; PASS+=("$1" "$2"); shift ;;
    --threads=*|--repeats=*|--only=*|--skip=*|--tfcc-flags=*|--results=*|--name=*|--target=*|--budget=*|--wait-idle=*|--nice=*|--train-rtol=*|--train-torch-format=*|--train-malloc=*|--int8-weight-bits=*)
      PASS+=("$1") ;;
    --tfcc) [ $# -ge 2 ] || die "--tfcc needs a path"; TFCC=$(realpath "$2"); shift ;;
    --tfcc=*) TFCC=$(realpath "${1#--tfcc=}") ;;
    --build-dir) [ $# -ge 2 ] || die "--build-dir needs a path"; BUILD_DIR=$(realpath -m "$2"); shift ;;
    --build-dir=*) BUILD_DIR=$(realpath -m "${1#--build-dir=}") ;;
    --isa) [ $# -ge 2 ] || die "--isa needs a value"; ISA=$2; shift ;;
    --isa=*) ISA=${1#--isa=} ;;
    --no-install) INSTALL=0 ;;
    --gemm) GEMM=1 ;;
    --list) exec /usr/bin/python3 "$HERE/bench.py" --list ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done

if [ -n "$ISA" ]; then
  [ "$ISA" = avx2 ] || die "--isa $ISA: only avx2 can be emulated (the CPU's own ISA needs no option)"
  for f in avx2 fma; do
    grep -qw "$f" /proc/cpuinfo || die "--isa avx2: this CPU has no $f"
  done
  for a in "${PASS[@]}"; do
    case $a in *--cpu=*|*"--cpu "*|*--target*) die "--isa avx2 pins tfcc's --cpu itself, for the host: drop --cpu/--target from --tfcc-flags" ;; esac
  done
fi

# --- Debian packages ---------------------------------------------------------------------------
# libopenblas0-openmp: PyTorch's BLAS. Without an optimized BLAS, Debian's torch falls back to
# the reference netlib libblas (a 512^3 matmul then runs ~20x slower); the OpenMP build shares
# libgomp's thread pool with PyTorch, so OPENBLAS_NUM_THREADS=N does not oversubscribe.
PACKAGES=(binutils python3 python3-numpy python3-torch python3-torchvision python3-onnx python3-matplotlib
          libdnnl-dev libopenblas0-openmp)
command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)
command -v clang-19 >/dev/null 2>&1 || command -v cc >/dev/null 2>&1 || PACKAGES+=(clang-19)
if [ "$INSTALL" = 1 ]; then
  missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

# --- tfcc ------------------------------------------------------------------------------------
if [ -z "$TFCC" ]; then
  TFCC=$BUILD_DIR/bin/tfcc
  if [ ! -x "$TFCC" ]; then
    [ "$BUILD_DIR" = "$REPO/build" ] || die "$TFCC not found (build it or pass --tfcc)"
    log "no $TFCC: building tfcc (.ci/build.sh)"
    bash "$REPO/.ci/build.sh"
  fi
fi
[ -x "$TFCC" ] || die "$TFCC is not an executable"

# --- ONNX Runtime (npm) ----------------------------------------------------------------------
WORK=$BUILD_DIR/bench
ORT_PKG=onnxruntime-node@1.30.0
HDR_PKG=com.github.asus4.onnxruntime@0.4.9
ORT_LIB=$WORK/npm/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1
HDR_SUB="package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64_x86_64-simulator/onnxruntime.framework/Headers"
ORT_INC=$WORK/ort-headers/$HDR_SUB
NPM_FLAGS=(--no-audit --no-fund --loglevel=error)
mkdir -p "$WORK/npm" "$WORK/ort-headers" "$WORK/bin"
if [ ! -f "$ORT_LIB" ]; then
  command -v npm >/dev/null 2>&1 || die "npm not found (Debian: apt-get install npm)"
  log "npm install $ORT_PKG (CPU only) into $WORK/npm"
  [ -f "$WORK/npm/package.json" ] || echo '{"name":"tfcc-bench","private":true}' >"$WORK/npm/package.json"
  # A plain install runs a script that downloads the CUDA provider; skip it.
  (cd "$WORK/npm" && ONNXRUNTIME_NODE_INSTALL=skip npm install "${NPM_FLAGS[@]}" "$ORT_PKG") \
    || die "npm install $ORT_PKG failed (is the npm registry reachable?)"
  [ -f "$ORT_LIB" ] || die "$ORT_PKG has no $ORT_LIB (not linux x64?)"
fi
if [ ! -f "$ORT_INC/onnxruntime_c_api.h" ]; then
  log "npm pack $HDR_PKG (150 MB; only the C headers are kept)"
  rm -rf "$WORK/ort-headers" && mkdir -p "$WORK/ort-headers"
  tgz=$(cd "$WORK/ort-headers" && npm pack "${NPM_FLAGS[@]}" "$HDR_PKG" | tail -n 1) \
    || die "npm pack $HDR_PKG failed"
  tar -xzf "$WORK/ort-headers/$tgz" -C "$WORK/ort-headers" --wildcards "$HDR_SUB/*.h" \
    || die "cannot untar the headers from $tgz"
  rm -f "$WORK/ort-headers/$tgz"
  [ -f "$ORT_INC/onnxruntime_c_api.h" ] || die "$HDR_PKG has no onnxruntime_c_api.h"
fi

# No switch caps ONNX Runtime's ISA: a copy of the library whose XGETBV reads say the OS has
# not enabled AVX-512 state (bench/harness/ort_isa_cap.py) is what it sees on an AVX2 machine.
if [ "$ISA" = avx2 ]; then
  CAPPED=$WORK/ort-avx2/libonnxruntime.so.1
  if [ ! -f "$CAPPED" ] || [ "$ORT_LIB" -nt "$CAPPED" ] || [ "$HERE/harness/ort_isa_cap.py" -nt "$CAPPED" ]; then
    mkdir -p "$WORK/ort-avx2"
    n=$(/usr/bin/python3 "$HERE/harness/ort_isa_cap.py" "$ORT_LIB" "$CAPPED") \
      || die "cannot make an AVX2-capped copy of $ORT_LIB"
    log "ONNX Runtime capped at AVX2: $n XGETBV instructions patched in $CAPPED"
  fi
  ORT_LIB=$CAPPED
  export ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 OPENBLAS_CORETYPE=Haswell
  export TFCC_KERNELS_ISA=avx2  # bench/gemm's kernels (the models' are pinned by --cpu)
  PASS+=(--isa "$ISA")
fi

# --- Harnesses -------------------------------------------------------------------------------
CC=${CC:-$(command -v clang-19 || command -v cc)}
CFLAGS=(-O2 -std=c11 -Wall -Wextra -Werror)
H=$HERE/harness
# tfcc_bench.c is built per model by bench.py, against the header tfcc writes for it.
"$CC" "${CFLAGS[@]}" -I"$ORT_INC" "$H/ort_bench.c" -o "$WORK/bin/ort_bench" -ldl
"$CC" "${CFLAGS[@]}" "$H/core_rtt.c" -o "$WORK/bin/core_rtt" -lpthread
if [ -f /usr/include/dnnl.h ]; then
  "$CC" "${CFLAGS[@]}" "$H/dnnl_bench.c" -o "$WORK/bin/dnnl_bench" -ldnnl
else
  log "no oneDNN headers (libdnnl-dev): the matmul rows go without oneDNN"
  rm -f "$WORK/bin/dnnl_bench"
fi

# --- Run -------------------------------------------------------------------------------------
if [ "$GEMM" = 1 ]; then
  if [ -x "$HERE/gemm/run.sh" ] || [ -f "$HERE/gemm/run.sh" ]; then
    log "bench/gemm/run.sh (kernel level)"
    TFCC_BENCH_DIR=$WORK/gemm bash "$HERE/gemm/run.sh" --reps 3 | tee "$WORK/gemm.txt" \
      || die "bench/gemm/run.sh failed"
    # The int8 GEMM against oneDNN's u8s8s32 (issue 17), in the same file.
    { echo; TFCC_BENCH_DIR=$WORK/gemm bash "$HERE/gemm/run.sh" --int8 --reps 3 | tail -n +4; } \
      | tee -a "$WORK/gemm.txt" || die "bench/gemm/run.sh --int8 failed"
    PASS+=(--append "$WORK/gemm.txt")
  else
    log "no bench/gemm/run.sh: --gemm ignored"
  fi
fi
exec /usr/bin/python3 "$HERE/bench.py" --build-dir "$BUILD_DIR" --tfcc "$TFCC" \
  --ort-lib "$ORT_LIB" --cc "$CC" --argv-echo="${ECHO[*]:-}" "${PASS[@]}"
