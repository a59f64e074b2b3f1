#!/usr/bin/env bash
# Real-model check (issue 3, "6. Real models"): BlazeFace, PP-OCR cls and ResNet-18 compile
# with tfcc and match ONNX Runtime 1.30 (CPU, 1 thread) within 1e-4 relative on every output
# (issue 18: PP-OCR cls, PP-OCRv4 rec and openWakeWord's mel-spectrogram as shipped, with
# their dynamic dimensions, one build each at three sizes; issue 19: the PP-OCRv4 detector
# at 320x320, 480x640 and 736x960, and Silero VAD over a stream of chunks with its state fed
# back), and ResNet-18's graph IR has no transpose between two
# convolutions.
#
#   test/onnx/real/check.sh [BUILD_DIR]        (default: build)
#
# Environment:
#   TFCC_BIN          tfcc, tfcc-run, tfcc-import, tfcc-opt (default BUILD_DIR/bin)
#   ONNX_REAL_DIR     where models, ONNX Runtime and outputs go (default BUILD_DIR/onnx-real)
#   ONNX_REAL_RTOL    relative tolerance (default 1e-4)
#   ONNX_REAL_MODELS  models to check (default "blazeface ppocr-cls ppocr-rec
#                     ppocr-det-320x320 ppocr-det-480x640 ppocr-det-736x960 oww-mel
#                     silero-vad resnet18 suite-cnn suite-conv3d suite-named suite-reshape": the
#                     last four are test/onnx/Inputs models)
#   TFCC_LAYOUT_DUMP  shell command printing the graph IR of the .onnx model "$1" after the
#                     layout pass, e.g. '"$TFCC_BIN"/tfcc-import "$1" -o - | tfcc-opt ...'
#                     (default: tfcc --emit=graph)
#   PYTHON            Python with Debian's torch/torchvision (default /usr/bin/python3)
#
# Needs network access (npm registry) on the first run; see docs/onnx-real-models.md.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD_DIR=${1:-build}
BUILD_DIR=$(cd "$BUILD_DIR" 2>/dev/null && pwd) || { echo "check.sh: no build dir ${1:-build}" >&2; exit 2; }
TFCC_BIN=${TFCC_BIN:-$BUILD_DIR/bin}
WORK=${ONNX_REAL_DIR:-$BUILD_DIR/onnx-real}
RTOL=${ONNX_REAL_RTOL:-1e-4}
MODELS=${ONNX_REAL_MODELS:-blazeface ppocr-cls ppocr-rec ppocr-det-320x320 ppocr-det-480x640 ppocr-det-736x960 oww-mel silero-vad resnet18 suite-cnn suite-conv3d suite-named suite-reshape}
PYTHON=${PYTHON:-/usr/bin/python3}
ORT_RUN="$HERE/ort_run.js"

# shellcheck source=check_common.sh
. "$HERE/check_common.sh"
"$TFCC_BIN/tfcc" --help 2>&1 | grep -i onnx >/dev/null \
  || die "$TFCC_BIN/tfcc does not import .onnx models (no ONNX in 'tfcc --help')"

# --- Fetch ----------------------------------------------------------------------------------
t0=$(now)
"$HERE/fetch.sh" "$WORK" || die "fetch failed"
export ORT_NODE_MODULES="$WORK/node_modules"
log "fetch: $(secs "$t0" "$(now)") s"

# --- Models ---------------------------------------------------------------------------------
# name | path | random-input options
model_path() {
  case $1 in
    blazeface) echo "$WORK/blazeface/package/ONNX/face_detection_front_128x128_barracuda.onnx" ;;
    ppocr-cls) echo "$WORK/ocr-models/package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx" ;;
    ppocr-rec) echo "$WORK/ocr-models/package/assets/ch_PP-OCRv4_rec_infer.onnx" ;;
    ppocr-det-*) echo "$WORK/ocr-models/package/assets/ch_PP-OCRv4_det_infer.onnx" ;;
    oww-mel) echo "$WORK/openwakeword/package/models/melspectrogram.onnx" ;;
    silero-vad) echo "$WORK/silero-vad/package/weights/silero_vad.onnx" ;;
    resnet18)  echo "$WORK/resnet18/resnet18.onnx" ;;
    # The suite's own ONNX models (test/onnx/Inputs): elsewhere checked only by
    # --compare, which cannot see an import bug (issue 13).
    suite-cnn) echo "$HERE/../Inputs/cnn.onnx" ;;
    suite-conv3d) echo "$HERE/../Inputs/conv3d.onnx" ;;
    suite-named) echo "$HERE/../Inputs/named_dims.onnx" ;;
    suite-reshape) echo "$HERE/../Inputs/named_reshape.onnx" ;;
    *) die "unknown model $1" ;;
  esac
}
input_opts() {
  case $1 in
    # NHWC [1,128,128,3]; MediaPipe feeds pixels scaled to [-1,1].
    blazeface) echo "--seed 1 --range -1,1" ;;
    # NCHW, dynamic N/H/W: the PaddleOCR direction classifier runs on 3x48x192 crops scaled
    # to [-1,1].
    ppocr-cls) echo "--seed 2 --range -1,1 --shape x=1x3x48x192" ;;
    # NCHW [N, 3, 48, W] text-line crops in [-1,1]; output [N, W/8, 6625].
    ppocr-rec) echo "--seed 8 --range -1,1 --shape x=1x3x48x160" ;;
    # NCHW [1, 3, H, W] pages (H, W multiples of 32): lines of glyph-like strokes at -2
    # on a background at 2 (ort_run.js --text; on noise the map stays near 0 and the
    # check would compare nothing); output the text probability map [1, 1, H, W], about
    # 19% of it above 0.3 here (two ConvTranspose upsamplings at the end).
    ppocr-det-*) echo "--seed 10 --range -2,2 --text --shape x=1x3x$(det_size "$1")" ;;
    # [batch, samples] 16 kHz audio as int16-range floats; output [?, 1, frames, 32].
    oww-mel) echo "--seed 9 --range -3000,3000 --shape input=1x16000" ;;
    # NCHW [1,3,224,224].
    resnet18)  echo "--seed 3 --range -1,1" ;;
    # Dynamic batch: 3.
    suite-cnn) echo "--seed 4 --range -1,1 --dim N=3" ;;
    suite-conv3d) echo "--seed 5 --range -1,1" ;;
    # Dynamic N, H, W.
    suite-named) echo "--seed 6 --range -1,1 --shape x=2x3x13x10" ;;
    suite-reshape) echo "--seed 7 --range -1,1 --shape x=2x4x1x9" ;;
  esac
}

# Options for tfcc: PP-OCR cls has dynamic N, H and W (dim_params p2o.DynamicDimension.0,
# .1, .2): H and W become named dimensions of at most 64 and 640 (docs/c-api.md,
# "Dimensions"), so one build runs every size below.
# PP-OCRv4 det at one size per build: ppocr-det-HxW (its Resize and ConvTranspose
# layers over named H and W are not supported yet; docs/onnx-real-models.md).
det_size() { echo "${1#ppocr-det-}"; }
tfcc_opts() {
  case $1 in
    ppocr-det-*) echo "--input-shape x=1x3x$(det_size "$1")" ;;
    ppocr-cls) echo "--dim-bound p2o.DynamicDimension.1=64 --dim-bound p2o.DynamicDimension.2=640" ;;
    ppocr-rec) echo "--dim-bound p2o.DynamicDimension.1=640" ;;
    oww-mel) echo "--dim-bound samples=32000" ;;
    suite-named) echo "--dim-bound H=32 --dim-bound W=32" ;;
    suite-reshape) echo "--dim-bound W=50" ;;
  esac
}

# More input shapes each model's one build runs, checked against ONNX Runtime as the
# first (ONNX Runtime and random inputs at each).
more_shapes() {
  case $1 in
    ppocr-cls) echo "x=2x3x48x160 x=1x3x48x320" ;;
    ppocr-rec) echo "x=1x3x48x320 x=1x3x48x640" ;;
    oww-mel) echo "input=1x1280 input=1x32000" ;;
    suite-named) echo "x=1x3x32x32 x=3x3x2x3" ;;
    suite-reshape) echo "x=1x4x1x50 x=3x4x1x1" ;;
  esac
}

if [[ " $MODELS " == *" resnet18 "* ]] && [ ! -s "$(model_path resnet18)" ]; then
  t0=$(now)
  OPENBLAS_NUM_THREADS=1 "$PYTHON" "$HERE/resnet18.py" "$(model_path resnet18)" --opset 13 \
    || die "ResNet-18 export failed (needs Debian's python3-torch python3-torchvision)"
  log "resnet18 export: $(secs "$t0" "$(now)") s"
fi

failures=0
summary=()

check_model() {
  local name=$1 model dir
  model=$(model_path "$name")
  dir="$WORK/out/$name"
  rm -rf "$dir"
  mkdir -p "$dir"
  [ -s "$model" ] || { summary+=("$name: FAIL (no model $model)"); return 1; }

  local t0 t1
  t0=$(now)
  # shellcheck disable=SC2046
  "$TFCC_BIN/tfcc" "$model" $(tfcc_opts "$name") -o "$dir/$name.so" >"$dir/tfcc.log" 2>&1 \
    || { tail -n 30 "$dir/tfcc.log"; summary+=("$name: FAIL (tfcc could not compile it)"); return 1; }
  t1=$(now)
  local ok=0 shape
  # shellcheck disable=SC2046
  check_inputs "$name" "$model" "$dir" "$name" "$(secs "$t0" "$t1")" $(input_opts "$name") || ok=1
  for shape in $(more_shapes "$name"); do
    # shellcheck disable=SC2046
    check_inputs "$name" "$model" "$dir/$shape" "$name $shape" "$(secs "$t0" "$t1")" \
      $(input_opts "$name" | sed 's/--shape [^ ]*//') --shape "$shape" || ok=1
  done
  return $ok
}

# Random inputs (options after the fifth argument), ONNX Runtime and the build in
# $dir/$name.so on them, compared output by output.
check_inputs() {
  local name=$1 model=$2 dir=$3 label=$4 compile_s=$5 so
  shift 5
  so="$WORK/out/$name/$name.so"
  mkdir -p "$dir"
  node "$ORT_RUN" --random-inputs "$model" "$dir/in" "$@" >"$dir/inputs.log" 2>&1 \
    || { cat "$dir/inputs.log"; summary+=("$label: FAIL (random inputs)"); return 1; }
  local inputs=("$dir"/in/input_*.npy)

  node "$ORT_RUN" "$model" "$dir/ort" "${inputs[@]}" >"$dir/ort.log" 2>&1 \
    || { cat "$dir/ort.log"; summary+=("$label: FAIL (ONNX Runtime)"); return 1; }

  local t1 t2
  t1=$(now)
  local in_args=()
  for f in "${inputs[@]}"; do in_args+=("--input=$f"); done
  "$TFCC_BIN/tfcc-run" "$so" "${in_args[@]}" --output-dir="$dir/tfcc" >"$dir/run.log" 2>&1 \
    || { tail -n 30 "$dir/run.log"; summary+=("$label: FAIL (tfcc-run)"); return 1; }
  t2=$(now)

  local n_ort n_tfcc worst="" ok=1 i line err
  n_ort=$(ls "$dir"/ort/output_*.npy | wc -l)
  n_tfcc=$(ls "$dir"/tfcc/output_*.npy 2>/dev/null | wc -l)
  if [ "$n_ort" != "$n_tfcc" ]; then
    summary+=("$label: FAIL ($n_tfcc outputs from tfcc, $n_ort from ONNX Runtime)")
    return 1
  fi
  for ((i = 0; i < n_ort; ++i)); do
    line=$(node "$ORT_RUN" --compare "$dir/tfcc/output_$i.npy" "$dir/ort/output_$i.npy" --rtol "$RTOL")
    [ $? -eq 0 ] || ok=0
    echo "  $label output_$i: $line" | head -n 1
    err=$(echo "$line" | sed -n 's/^max relative error \([^:]*\):.*/\1/p')
    [ -n "$err" ] || err=inf
    worst=$(awk -v a="$worst" -v b="$err" 'BEGIN { print (a == "" || b == "inf" || (a != "inf" && b + 0 > a + 0)) ? b : a }')
  done
  local verdict=ok
  [ $ok = 1 ] || verdict=FAIL
  summary+=("$(printf '%s: %s, max relative error %s over %d outputs (rtol %s); tfcc compile %s s, run %s s' \
    "$label" "$verdict" "$worst" "$n_ort" "$RTOL" "$compile_s" "$(secs "$t1" "$t2")")")
  [ $ok = 1 ]
}

# --- Layout: no graph.transpose between two convolutions in ResNet-18 ----------------------
# Prints the graph IR of an .onnx model after tfcc's graph-level passes
# (inlining and layout propagation): what tfcc actually lowers.
layout_dump() {
  local model=$1 out=$2
  if [ -n "${TFCC_LAYOUT_DUMP:-}" ]; then
    bash -c "$TFCC_LAYOUT_DUMP" layout-dump "$model" >"$out"
    return
  fi
  "$TFCC_BIN/tfcc" "$model" --emit=graph -o "$out"
}

# Reads MLIR on stdin; counts graph.transpose ops and those with a convolution both upstream
# and downstream (through any chain of ops). Exit 1 when there is one.
count_transposes() {
  node -e '
const text = require("fs").readFileSync(0, "utf8");
const defs = new Map();  // SSA name -> op index
const ops = [];          // {name, operands, line}
const isConv = (n) => /^graph\.(fused_conv2d|conv2d|depthwise_conv2d|conv[\w]*)$/.test(n);
const lines = text.split("\n");
const end = lines.findIndex((l) => l.startsWith("{-#"));  // dialect_resources: weight blobs
lines.slice(0, end < 0 ? lines.length : end).forEach((raw, lineNo) => {
  if (raw.length > 100000) return;  // an inline weight constant
  const line = raw.replace(/"[^"]*"/g, (s) => (/^"[\w.]+"$/.test(s) ? s : "\"\""))
                  .replace(/\bloc\(.*$/, "");
  const m = /^\s*((?:%[\w$.-]+(?::\d+)?\s*,\s*)*%[\w$.-]+(?::\d+)?)\s*=\s*"?([A-Za-z_][\w.]*)"?(.*)$/.exec(line);
  const opM = m ? null : /^\s*"?([A-Za-z_][\w.]*)"?(.*)$/.exec(line);
  if (!m && !opM) return;
  const name = m ? m[2] : opM[1];
  const rest = m ? m[3] : opM[2];
  const operands = (rest.match(/%[\w$.-]+/g) || []);
  const idx = ops.length;
  ops.push({name, operands, line: lineNo + 1});
  if (m) m[1].split(",").forEach((r) => defs.set(r.trim().replace(/:\d+$/, ""), idx));
});
const users = ops.map(() => []);
ops.forEach((op, i) => op.operands.forEach((v) => {
  const d = defs.get(v.replace(/#\d+$/, ""));
  if (d !== undefined) users[d].push(i);
}));
const producers = ops.map((op) => op.operands.map((v) => defs.get(v.replace(/#\d+$/, "")))
                                     .filter((d) => d !== undefined));
function reaches(start, next) {  // is there a conv reachable from start (exclusive)?
  const seen = new Set(), stack = [...next(start)];
  while (stack.length) {
    const i = stack.pop();
    if (seen.has(i)) continue;
    seen.add(i);
    if (isConv(ops[i].name)) return true;
    stack.push(...next(i));
  }
  return false;
}
let total = 0, convs = 0, between = [];
ops.forEach((op, i) => {
  if (isConv(op.name)) ++convs;
  if (op.name !== "graph.transpose") return;
  ++total;
  if (reaches(i, (k) => producers[k]) && reaches(i, (k) => users[k])) between.push(op.line);
});
console.log(`${convs} convolutions, ${total} graph.transpose ops, ${between.length} between two ` +
            `convolutions${between.length ? " (lines " + between.join(", ") + ")" : ""}`);
if (convs === 0) { console.log("no graph convolutions found: not graph IR?"); process.exit(2); }
process.exit(between.length ? 1 : 0);
'
}

check_layout() {
  local model dir
  model=$(model_path resnet18)
  dir="$WORK/out/resnet18"
  mkdir -p "$dir"
  if ! layout_dump "$model" "$dir/layout.mlir" 2>"$dir/layout.err"; then
    cat "$dir/layout.err"
    summary+=("resnet18 layout: FAIL (no graph-IR dump after the layout pass; set TFCC_LAYOUT_DUMP)")
    return 1
  fi
  local line
  line=$(count_transposes <"$dir/layout.mlir")
  local rc=$?
  if [ $rc -eq 0 ]; then
    summary+=("resnet18 layout: ok, $line")
    rm -f "$dir/layout.mlir"
  else
    summary+=("resnet18 layout: FAIL, $line (see $dir/layout.mlir)")
    return 1
  fi
}

# --- Silero VAD: a stream of chunks, each runtime feeding its own state back ---------------
# The model as shipped (an If on the sample rate around the 16 kHz and 8 kHz networks, an
# LSTM in each), compiled for 16 kHz chunks of 512 samples (--input-value sr=16000 folds
# the If; the 8 kHz branch cannot be built for 512-sample chunks). Both outputs (the
# speech probability and the LSTM state) of every chunk are compared.
check_silero() {
  local model dir so t0 t1 chunks=24 i worst=0 bad=()
  model=$(model_path silero-vad)
  dir="$WORK/out/silero-vad"
  rm -rf "$dir"
  mkdir -p "$dir"
  [ -s "$model" ] || { summary+=("silero-vad: FAIL (no model $model)"); return 1; }
  "$PYTHON" "$HERE/vad_chunks.py" "$dir/in" "$chunks" >"$dir/chunks.log" 2>&1 \
    || { cat "$dir/chunks.log"; summary+=("silero-vad: FAIL (vad_chunks.py)"); return 1; }
  so="$dir/silero-vad.so"
  t0=$(now)
  "$TFCC_BIN/tfcc" "$model" --input-value sr=16000 --input-shape input=1x512 \
    --input-shape state=2x1x128 -o "$so" >"$dir/tfcc.log" 2>&1 \
    || { tail -n 30 "$dir/tfcc.log"; summary+=("silero-vad: FAIL (tfcc could not compile it)"); return 1; }
  t1=$(now)
  cp "$dir/in/state.npy" "$dir/ort_state.npy"
  cp "$dir/in/state.npy" "$dir/tfcc_state.npy"
  for ((i = 0; i < chunks; ++i)); do
    node "$ORT_RUN" "$model" "$dir/ort_$i" "$dir/in/chunk_$i.npy" "$dir/ort_state.npy" \
      "$dir/in/sr.npy" >"$dir/ort.log" 2>&1 \
      || { cat "$dir/ort.log"; summary+=("silero-vad: FAIL (ONNX Runtime, chunk $i)"); return 1; }
    "$TFCC_BIN/tfcc-run" "$so" --input="$dir/in/chunk_$i.npy" --input="$dir/tfcc_state.npy" \
      --output-dir="$dir/tfcc_$i" >"$dir/run.log" 2>&1 \
      || { tail -n 30 "$dir/run.log"; summary+=("silero-vad: FAIL (tfcc-run, chunk $i)"); return 1; }
    cp "$dir/ort_$i/output_1.npy" "$dir/ort_state.npy"
    cp "$dir/tfcc_$i/output_1.npy" "$dir/tfcc_state.npy"
    local k line err
    for k in 0 1; do
      line=$(node "$ORT_RUN" --compare "$dir/tfcc_$i/output_$k.npy" "$dir/ort_$i/output_$k.npy" \
               --rtol "$RTOL" 2>&1) || bad+=("chunk $i output_$k: $line")
      err=$(echo "$line" | sed -n 's/^max relative error \([^:]*\):.*/\1/p')
      worst=$(awk -v a="$worst" -v b="${err:-0}" 'BEGIN { print (b + 0 > a + 0) ? b : a }')
    done
  done
  if [ ${#bad[@]} -ne 0 ]; then
    printf '  %s\n' "${bad[@]}"
    summary+=("silero-vad: FAIL, ${#bad[@]} outputs over rtol $RTOL in $chunks chunks")
    return 1
  fi
  summary+=("$(printf 'silero-vad: ok, max relative error %s over %d chunks x 2 outputs, state fed back (rtol %s); tfcc compile %s s' \
    "$worst" "$chunks" "$RTOL" "$(secs "$t0" "$t1")")")
}

for name in $MODELS; do
  log "checking $name"
  if [ "$name" = silero-vad ]; then
    check_silero || failures=$((failures + 1))
    continue
  fi
  check_model "$name" || failures=$((failures + 1))
  if [ "$name" = resnet18 ]; then
    check_layout || failures=$((failures + 1))
  fi
done

echo
for s in "${summary[@]}"; do echo "$s"; done
if [ $failures -ne 0 ]; then
  echo "check.sh: $failures FAILED"
  exit 1
fi
echo "check.sh: all passed"
