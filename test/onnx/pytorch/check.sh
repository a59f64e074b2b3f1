#!/usr/bin/env bash
# Slices exported by PyTorch against ONNX Runtime (issue 13): PyTorch writes every
# open-ended slice (x[2:], x.shape[2:], x.size(-1)) as an ONNX Slice with ends INT64_MAX,
# which tfcc once imported as an empty tensor. `tfcc-run --compare` cannot see such a bug
# (its interpreter runs the same imported graph), so each case here is exported by
# python3-torch (slices.py; a few forms by hand), compiled with tfcc to a .so, run by
# tfcc-run and by ONNX Runtime 1.30 on the same inputs, and every output compared: shape
# exactly, values within ONNX_PYTORCH_RTOL (default 1e-5) relative, integers exactly.
# ONNX Runtime is itself checked against PyTorch's (or numpy's) result, so that a case
# cannot pass on an export that does not compute what the case says. In `padded` cases
# (NonMaxSuppression) tfcc's outputs are cut to the row count it outputs first
# (cut_padded.py). A few cases may be
# refused by tfcc with a stated error, and one compares tfcc with the ONNX spec where
# ONNX Runtime departs from it (slices.py says which and why).
#
#   test/onnx/pytorch/check.sh [BUILD_DIR]        (default: build)
#
# Prints one line per case (PASS/FAIL and why), then `N passed, M failed`; exits 1 when any
# failed, 2 when it could not run at all.
#
# Environment:
#   TFCC_BIN            tfcc and tfcc-run (default BUILD_DIR/bin)
#   ONNX_PYTORCH_DIR    where models, inputs and outputs go (default BUILD_DIR/onnx-pytorch)
#   ONNX_REAL_DIR       where fetch.sh puts ONNX Runtime (default BUILD_DIR/onnx-real)
#   ONNX_PYTORCH_RTOL   relative tolerance of float outputs (default 1e-5)
#   ONNX_PYTORCH_CASES  extended regex: only the cases whose name matches (default: all)
#   PYTHON              Python with Debian's python3-torch (default /usr/bin/python3)
#
# Needs network access (npm registry) on the first run, as test/onnx/real/check.sh.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD_DIR=${1:-build}
BUILD_DIR=$(cd "$BUILD_DIR" 2>/dev/null && pwd) || { echo "check.sh: no build dir ${1:-build}" >&2; exit 2; }
TFCC_BIN=${TFCC_BIN:-$BUILD_DIR/bin}
WORK=${ONNX_PYTORCH_DIR:-$BUILD_DIR/onnx-pytorch}
ORT_DIR=${ONNX_REAL_DIR:-$BUILD_DIR/onnx-real}
RTOL=${ONNX_PYTORCH_RTOL:-1e-5}
ONLY=${ONNX_PYTORCH_CASES:-}
PYTHON=${PYTHON:-/usr/bin/python3}
ORT_RUN="$HERE/../real/ort_run.js"

# shellcheck source=../real/check_common.sh
. "$HERE/../real/check_common.sh"
"$PYTHON" -c 'import torch, numpy' 2>/dev/null \
  || die "$PYTHON cannot import torch and numpy (Debian: python3-torch)"

t_start=$(now)

# --- ONNX Runtime (shared with the real-model check; idempotent) ---------------------------
mkdir -p "$WORK"
"$HERE/../real/fetch.sh" "$ORT_DIR" >"$WORK/fetch.log" 2>&1 \
  || { cat "$WORK/fetch.log"; die "fetch failed"; }
export ORT_NODE_MODULES="$ORT_DIR/node_modules"

# --- Export (always afresh: the cases are cheap and must follow slices.py) -----------------
rm -rf "$WORK/cases"
for script in slices.py layers.py; do  # slices.py writes cases.txt, layers.py appends
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$PYTHON" "$HERE/$script" "$WORK/cases" \
    >"$WORK/export.log" 2>&1 || { cat "$WORK/export.log"; die "$script failed"; }
  log "$(tail -n 1 "$WORK/export.log") ($(secs "$t_start" "$(now)") s with the fetch)"
done

# --- Self-test: --compare must reject a shape mismatch, even one with equal values ----------
st="$WORK/cases/compare-selftest"
for other in empty flat; do
  node "$ORT_RUN" --compare "$st/$other.npy" "$st/a.npy" --rtol 1e-5 >"$st/$other.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ] || ! grep -q '^shape mismatch' "$st/$other.log"; then
    die "ort_run.js --compare accepted $other.npy against a.npy (rc $rc): $(cat "$st/$other.log")"
  fi
done

# --- Cases -----------------------------------------------------------------------------------
passed=0
failed=0
result() {  # result PASS|FAIL CASE TEXT
  echo "$1 $2: $3"
  if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

# The first error line of a log (an MLIR diagnostic, or ort_run.js's message), else its tail.
first_error() {
  local line
  line=$(grep -m 1 -iE 'error|unsupported|fail' "$1")
  [ -n "$line" ] || line=$(tail -n 1 "$1")
  echo "${line//$WORK\/cases\//}" | cut -c 1-300
}

npy_shape() {  # [d0,d1,...] from a .npy header
  head -c 256 "$1" | grep -aoE "'shape': *\([^)]*\)" | sed -E "s/.*\((.*)\)/\1/; s/ //g; s/,\$//; s/.*/[&]/"
}

join() {  # join ARGS with "; "
  local out=$1
  shift
  for a in "$@"; do out+="; $a"; done
  echo "$out"
}

is_integer_npy() { head -c 128 "$1" | grep -qaE "'descr': *'[<|>]?[iub]"; }

# compare_outputs DIR_A DIR_B PREFIX_B LABEL: compares A/output_i.npy with B/PREFIX_Bi.npy
# for every i. Prints "ok WORST" (the largest relative error) and returns 0 when all
# agree, else the reasons and returns 1.
compare_outputs() {
  local a=$1 b=$2 prefix=$3 label=$4 n i rtol line err worst=0 bad=()
  n=$(ls "$b"/"$prefix"*.npy 2>/dev/null | wc -l)
  for ((i = 0; i < n; ++i)); do
    rtol=$RTOL
    is_integer_npy "$b/$prefix$i.npy" && rtol=0  # integers exactly
    line=$(node "$ORT_RUN" --compare "$a/output_$i.npy" "$b/$prefix$i.npy" --rtol "$rtol" 2>&1)
    case $? in
      0)
        err=$(echo "$line" | sed -n 's/^max relative error \([^:]*\):.*/\1/p')
        worst=$(awk -v a="$worst" -v b="${err:-0}" 'BEGIN { print (b + 0 > a + 0) ? b : a }') ;;
      2)  # "shape mismatch: A [0,3] vs B [3,3]", or an unreadable file
        line=$(echo "$line" | sed -nE -e "s/^shape mismatch: [^ ]* (\[[^]]*\]) vs [^ ]* /shape \1, $label /p" \
                                      -e 's/^ort_run.js: //p' | head -n 1)
        bad+=("output_$i $line") ;;
      *)
        bad+=("output_$i $(echo "$line" | head -n 1 | sed -E 's/: max\|a-b\|.*//') (rtol $rtol) against $label") ;;
    esac
  done
  if [ ${#bad[@]} -eq 0 ]; then
    echo "ok $worst"
    return 0
  fi
  join "${bad[@]}"
  return 1
}

run_case() {
  local case=$1 expect=$2 note=$3 d="$WORK/cases/$1"
  if [ "$expect" = export-failed ]; then
    result FAIL "$case" "the export failed: $note"
    return
  fi
  local inputs=("$d"/input_*.npy) in_args=() f reason
  for f in "${inputs[@]}"; do in_args+=("--input=$f"); done

  # ONNX Runtime, checked against PyTorch's / numpy's result. tfcc is then compared with
  # ONNX Runtime, except in `spec` cases (ONNX Runtime departs from the spec there).
  local oracle_dir="$d/ort" oracle_prefix=output_ oracle="ONNX Runtime" extra=""
  if ! node "$ORT_RUN" "$d/model.onnx" "$d/ort" "${inputs[@]}" >"$d/ort.log" 2>&1; then
    result FAIL "$case" "ONNX Runtime rejected the model: $(first_error "$d/ort.log") [$note]"
    return
  fi
  if ! reason=$(compare_outputs "$d/ort" "$d" ref_ "reference"); then
    if [ "$expect" != spec ]; then
      result FAIL "$case" "ONNX Runtime disagrees with the PyTorch/numpy reference: $reason [$note]"
      return
    fi
    extra="; ONNX Runtime departs from the spec: $reason"
  fi
  if [ "$expect" = spec ]; then
    oracle_dir=$d oracle_prefix=ref_ oracle="the ONNX spec"
  fi

  # tfcc: compile to a .so, run it with tfcc-run.
  if ! "$TFCC_BIN/tfcc" "$d/model.onnx" -o "$d/tfcc.so" >"$d/tfcc.log" 2>&1; then
    if [[ $expect == refuse=* ]] && grep -qiE "${expect#refuse=}" "$d/tfcc.log"; then
      result PASS "$case" "expected refusal: $(first_error "$d/tfcc.log") [$note]"
    else
      result FAIL "$case" "tfcc could not compile it: $(first_error "$d/tfcc.log")$extra [$note]"
    fi
    return
  fi
  if ! "$TFCC_BIN/tfcc-run" "$d/tfcc.so" "${in_args[@]}" --output-dir="$d/tfcc" \
         >"$d/run.log" 2>&1; then
    # tfcc-run prints each output's shape ("output 0 [0, 3] f32") before writing it: name
    # a wrong shape even when writing failed (tfcc-run cannot write empty outputs).
    local i dims want bad=()
    while read -r i dims; do
      want=$(npy_shape "$oracle_dir/$oracle_prefix$i.npy")
      [ "[${dims// /}]" = "$want" ] || bad+=("output_$i shape [${dims// /}], $oracle $want")
    done < <(sed -nE 's/^output ([0-9]+) \[([^]]*)\].*/\1 \2/p' "$d/run.log")
    local shapes=""
    [ ${#bad[@]} -eq 0 ] || shapes="tfcc $(join "${bad[@]}"); "
    result FAIL "$case" "${shapes}tfcc-run failed: $(first_error "$d/run.log")$extra [$note]"
    return
  fi
  local n_want n_tfcc
  n_want=$(ls "$oracle_dir"/"$oracle_prefix"*.npy | wc -l)
  if [ "$expect" = padded ]; then
    # NonMaxSuppression: padded rows and a count output (cut_padded.py).
    local rows
    rows=$("$PYTHON" "$HERE/cut_padded.py" "$d/tfcc" "$n_want" 2>&1) \
      || { result FAIL "$case" "$rows [$note]"; return; }
    extra="; $rows rows kept"
  fi
  n_tfcc=$(ls "$d"/tfcc/output_*.npy 2>/dev/null | wc -l)
  if [ "$n_want" != "$n_tfcc" ]; then
    result FAIL "$case" "$n_tfcc outputs from tfcc, $n_want from $oracle [$note]"
    return
  fi
  if ! reason=$(compare_outputs "$d/tfcc" "$oracle_dir" "$oracle_prefix" "$oracle"); then
    result FAIL "$case" "tfcc $reason$extra [$note]"
    return
  fi
  [[ $expect == refuse=* ]] && extra="; compiled although tfcc may refuse it"
  result PASS "$case" "$n_want output(s) match $oracle, max relative error ${reason#ok }$extra [$note]"
}

while read -r case expect note; do
  [ -n "$case" ] || continue
  if [ -n "$ONLY" ] && ! [[ $case =~ $ONLY ]]; then continue; fi
  run_case "$case" "$expect" "$note" </dev/null
done <"$WORK/cases/cases.txt"

echo
log "$(secs "$t_start" "$(now)") s; outputs and logs in $WORK/cases/<case>/"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
