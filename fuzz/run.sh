#!/usr/bin/env bash
# Runs the libFuzzer harnesses (docs/reliability.md, "Fuzzing").
#
#   bash fuzz/run.sh [--seconds N] [--build DIR] [--no-build] [HARNESS...]
#
# Configures and builds DIR (default build-fuzz: clang-19, -DTFCC_FUZZ=ON)
# when needed, builds each harness's seed corpus (the spec's models and the
# tests' graph IR, the tests' and ONNX's own node-test models, the TFLite
# models of test/tflite/tflite_models.py, .npy files, checkpoints the harness
# writes), then runs each HARNESS (default: all) for
# N seconds (default 60) on DIR/fuzz/corpus/HARNESS, which grows across runs.
# Crashes land in DIR/fuzz/crashes/HARNESS/; each one becomes a regression
# input in fuzz/regressions/HARNESS/ (replayed by ctest in DIR) and a test
# in the normal suite before it is fixed. Prints one line per harness:
# executions, corpus size, crashes.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
seconds=60
build=build-fuzz
harnesses=()
no_build=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --no-build) no_build=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "fuzz/run.sh: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
all=(graph_ir_compile onnx_import tflite_import checkpoint_load npy_read c_api rest_predict)
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
  [[ " ${all[*]} " == *" $h "* ]] || { echo "fuzz/run.sh: no harness '$h' (${all[*]})" >&2; exit 2; }
done
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz/run.sh: --seconds '$seconds' is not a number" >&2; exit 2; }

if [[ $no_build == 0 && ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S . -B "$build" -DCMAKE_C_COMPILER=clang-19 \
    -DCMAKE_CXX_COMPILER=clang++-19 -DTFCC_FUZZ=ON > /dev/null
fi
if [[ $no_build == 0 ]]; then
  ninja -C "$build" fuzz > "$build/fuzz-build.log" || { tail -30 "$build/fuzz-build.log"; exit 1; }
fi
for h in "${harnesses[@]}"; do
  [[ -x $build/bin/fuzz/$h ]] || { echo "fuzz/run.sh: $build/bin/fuzz/$h is not built" >&2; exit 1; }
done

work=$build/fuzz
mkdir -p "$work/dict"
# The graph-IR dictionary comes from the dialect's op and attribute names.
{
  grep -oE 'def Graph_[A-Za-z0-9]+Op : Graph_[A-Za-z]*Op<"[a-z0-9_]+"' \
      dialects/graph/IR/GraphOps.td | sed -E 's/.*<"([a-z0-9_]+)"/"graph.\1"/'
  grep -ohE ':\$[a-z_]+' dialects/graph/IR/*.td | sort -u | sed -E 's/:\$(.*)/"\1"/'
  for t in 'func.func' 'return' 'module' 'tensor<' 'xf32>' 'xi32>' 'xi64>' 'xi1>' \
      'xf64>' '?x' 'dense<' 'func.call' 'graph.train_step' '#graph.sgd<' \
      '#graph.adam<' '#graph.init<' 'learning_rate' 'loss = @' '-> ' ' : (' \
      'private' 'tfcc.name' '{axis = ' 'loc("'; do
    printf '"%s"\n' "$t"
  done
} > "$work/dict/graph_ir.dict"
cp fuzz/dict/npy.dict "$work/dict/npy.dict"

seed_dir() {
  local h=$1 d=$work/seeds/$1
  rm -rf "$d"; mkdir -p "$d"
  case $h in
    graph_ir_compile)
      find ../shared/spec/models examples test -name '*.mlir' -size -64k 2>/dev/null |
        while read -r f; do cp "$f" "$d/$(echo "$f" | tr '/' '_')"; done ;;
    onnx_import)
      find test -name '*.onnx' -size -256k | while read -r f; do
        cp "$f" "$d/$(echo "$f" | tr '/' '_')"; done
      local node=/usr/lib/python3/dist-packages/onnx/backend/test/data/node
      if [[ -d $node ]]; then
        for m in "$node"/*/model.onnx; do cp "$m" "$d/$(basename "$(dirname "$m")").onnx"; done
      fi ;;
    tflite_import)
      # Every operator and broken-file model of the tests (flatc writes them),
      # and MediaPipe's smaller models where a build fetched them
      # (tflite-real-models).
      local name
      for name in $(/usr/bin/python3 test/tflite/tflite_models.py --list ops) \
                  $(/usr/bin/python3 test/tflite/tflite_models.py --list errors); do
        /usr/bin/python3 test/tflite/tflite_models.py "$name" -o "$d/$name.tflite" ||
          { echo "fuzz/run.sh: tflite_models.py $name failed" >&2; exit 1; }
      done
      find build*/tflite-real -name '*.tflite' -size -512k 2>/dev/null |
        while read -r f; do cp "$f" "$d/$(basename "$f")"; done || true ;;
    checkpoint_load)
      TFCC_FUZZ_WRITE_SEEDS=$d "$build/bin/fuzz/checkpoint_load" ;;
    npy_read)
      find test -name '*.npy' | while read -r f; do cp "$f" "$d/$(echo "$f" | tr '/' '_')"; done
      /usr/bin/python3 - "$d" <<'PY' 2>/dev/null || true
import sys, numpy as np
d = sys.argv[1]
for t in ("<f4", "<f8", "<i4", "<i8", "|b1", "<f2", "|i1"):
    for shape in ((), (3,), (2, 3), (0, 4)):
        np.save("%s/%s_%s.npy" % (d, t.strip("<|"), "x".join(map(str, shape)) or "scalar"),
                np.ones(shape, dtype=t))
PY
      ;;
    c_api)
      head -c 256 /dev/urandom > "$d/random0"; head -c 4096 /dev/urandom > "$d/random1" ;;
    rest_predict)
      # Requests in both forms against the harness's table (rest_predict.cpp).
      printf '%s' '{"instances": [{"image": [[1, 2, 3]], "label": 1, "mask": true}], "inputs": 1}' > "$d/rows"
      printf '%s' '{"signature_name": "predict", "inputs": {"image": [[[1, 2, 3], [4, 5, 6]]], "label": [7], "scale": 0.5, "mask": [false]}}' > "$d/columns"
      printf '%s' '{"signature_name": "single", "instances": [[1.5, -2e3], [3, 4]]}' > "$d/single"
      printf '%s' '{"signature_name": "train_step", "inputs": [[1, 2]]}' > "$d/train" ;;
  esac
}

for h in "${harnesses[@]}"; do
  seed_dir "$h"
  mkdir -p "$work/corpus/$h" "$work/crashes/$h"
  flags=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1
         -artifact_prefix="$work/crashes/$h/")
  case $h in
    graph_ir_compile) flags+=(-dict="$work/dict/graph_ir.dict" -close_fd_mask=3 -max_len=16384) ;;
    onnx_import) flags+=(-close_fd_mask=2 -max_len=262144) ;;
    tflite_import) flags+=(-close_fd_mask=2 -max_len=524288) ;;
    npy_read) flags+=(-dict="$work/dict/npy.dict") ;;
    c_api) flags+=(-max_len=8192) ;;
    rest_predict) flags+=(-max_len=4096) ;;
  esac
  log=$work/$h.log
  status=0
  start=$(date +%s)
  "$build/bin/fuzz/$h" "${flags[@]}" "$work/corpus/$h" "$work/seeds/$h" > "$log" 2>&1 || status=$?
  elapsed=$(( $(date +%s) - start ))
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  corpus=$(ls "$work/corpus/$h" | wc -l)
  crashes=$(ls "$work/crashes/$h" | wc -l)
  echo "$h: ${runs:-?} executions in ${elapsed} s, corpus $corpus files, $crashes crash files (exit $status; log $log)"
done
