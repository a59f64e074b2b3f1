#!/usr/bin/env bash
# TFLite models against LiteRT (issue 19, "TFLite import"): MediaPipe's models as shipped
# on npm and tfcc's operator models (test/tflite/tflite_models.py) compile with tfcc and
# match LiteRT.js (@litertjs/core, TFLite's WebAssembly build, CPU, 1 thread) output by
# output: max|tfcc - LiteRT| <= RTOL * max|LiteRT| (+ ATOL where stated).
#
#   test/tflite/real/check.sh [BUILD_DIR]        (default: build)
#
# Environment:
#   TFCC_BIN           tfcc and tfcc-run (default BUILD_DIR/bin)
#   TFLITE_REAL_DIR    where packages, models and outputs go (default BUILD_DIR/tflite-real)
#   TFLITE_MODELS      models to check (default: all below)
#   PYTHON             Python with numpy, for tflite_models.py (default /usr/bin/python3)
#
# Needs the npm registry on the first run; see docs/tflite.md.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD_DIR=${1:-build}
BUILD_DIR=$(cd "$BUILD_DIR" 2>/dev/null && pwd) || { echo "check.sh: no build dir ${1:-build}" >&2; exit 2; }
TFCC_BIN=${TFCC_BIN:-$BUILD_DIR/bin}
WORK=${TFLITE_REAL_DIR:-$BUILD_DIR/tflite-real}
PYTHON=${PYTHON:-/usr/bin/python3}
RUN="$HERE/litert_run.js"
OPS=$("$PYTHON" "$HERE/../tflite_models.py" --list ops) || { echo "check.sh: tflite_models.py failed" >&2; exit 2; }
MEDIAPIPE="face_detection_short_range face_detection_full_range hand_landmark_lite hand_landmark_full pose_landmark_lite pose_landmark_full selfie_segmentation selfie_segmentation_landscape"
MODELS=${TFLITE_MODELS:-$MEDIAPIPE $(for m in $OPS; do echo "ops-$m"; done)}

log() { echo "check.sh: $*"; }
die() { echo "check.sh: error: $*" >&2; exit 2; }
for tool in tfcc tfcc-run; do
  [ -x "$TFCC_BIN/$tool" ] || die "$TFCC_BIN/$tool not found (set TFCC_BIN or build first)"
done
command -v node >/dev/null || die "node not found (Debian: nodejs)"
command -v npm >/dev/null || die "npm not found (Debian: npm)"

# --- Fetch: LiteRT.js and the MediaPipe packages, exact versions ----------------------------
PACKAGES=(@litertjs/core@2.5.3 @litertjs/wasm-utils@2.5.3
          @mediapipe/face_detection@0.4.1657300184 @mediapipe/hands@0.4.1675469240
          @mediapipe/pose@0.5.1675469404 @mediapipe/selfie_segmentation@0.1.1675465747)
mkdir -p "$WORK"
if [ ! -f "$WORK/node_modules/@litertjs/core/package.json" ] ||
   [ ! -s "$WORK/node_modules/@mediapipe/selfie_segmentation/selfie_segmentation.tflite" ]; then
  log "npm install ${PACKAGES[*]}"
  [ -f "$WORK/package.json" ] || echo '{"name":"tfcc-tflite-real","private":true}' > "$WORK/package.json"
  (cd "$WORK" && npm install --no-audit --no-fund --loglevel=error "${PACKAGES[@]}") \
    || die "npm install failed (is the npm registry reachable?)"
fi
export LITERT_NODE_MODULES="$WORK/node_modules"

model_path() {
  local mp="$WORK/node_modules/@mediapipe"
  case $1 in
    face_detection_*) echo "$mp/face_detection/$1.tflite" ;;
    hand_landmark_*) echo "$mp/hands/$1.tflite" ;;
    pose_landmark_*) echo "$mp/pose/$1.tflite" ;;
    selfie_segmentation*) echo "$mp/selfie_segmentation/$1.tflite" ;;
    ops-*) echo "$WORK/ops/${1#ops-}.tflite" ;;
    *) die "unknown model $1" ;;
  esac
}
# Inputs: MediaPipe's detectors take pixels in [-1,1], the landmark models [0,1]; the
# segmenters a head-and-shoulders image (on noise they answer ~0 everywhere).
input_opts() {
  case $1 in
    face_detection_*) echo "--seed 1 --range -1,1" ;;
    hand_landmark_*|pose_landmark_*) echo "--seed 2 --range 0,1" ;;
    selfie_segmentation*) echo "--seed 3 --silhouette" ;;
    ops-*) echo "--seed 4 --range -2,2" ;;
  esac
}
# Tolerances: 1e-4 of the output's largest magnitude, except
# - pose_landmark_*: its segmentation logits (output 2, up to ~600 on noise) come from
#   long cancellations; the interpreter (double) is as far from LiteRT (2.2e-4) as tfcc;
#   its presence output is ~1e-12 on noise (hence the absolute floor);
# - selfie_segmentation: the interpreter (double) is 1.0e-4 from LiteRT at the pixel where
#   tfcc is 1.2e-4 from it (tfcc to the interpreter: 3.9e-5);
# - ops-int8*: see below.
tolerance() {
  case $1 in
    pose_landmark_*) echo "--rtol 5e-4 --atol 1e-6" ;;
    selfie_segmentation*) echo "--rtol 2e-4 --atol 1e-7" ;;
    # Quantized outputs: one step of their grid (0.04 and 0.05 in ops-int8, 1/256 in
    # ops-int8_head); tfcc rounds as graph.quantize does, TFLite's kernels with their
    # fixed-point multipliers, a step apart at some halves.
    ops-int8) echo "--rtol 0 --atol 0.0501" ;;
    ops-int8_head) echo "--rtol 0 --atol 0.0040" ;;
    *) echo "--rtol 1e-4 --atol 1e-7" ;;
  esac
}

failures=0
summary=()

check_model() {
  local name=$1 model dir
  model=$(model_path "$name")
  dir="$WORK/out/$name"
  rm -rf "$dir"
  mkdir -p "$dir"
  if [[ $name == ops-* ]]; then
    mkdir -p "$WORK/ops"
    "$PYTHON" "$HERE/../tflite_models.py" "${name#ops-}" -o "$model" >"$dir/model.log" 2>&1 \
      || { cat "$dir/model.log"; summary+=("$name: FAIL (tflite_models.py)"); return 1; }
  fi
  [ -s "$model" ] || { summary+=("$name: FAIL (no model $model)"); return 1; }
  "$TFCC_BIN/tfcc" "$model" -o "$dir/$name.so" >"$dir/tfcc.log" 2>&1 \
    || { tail -n 20 "$dir/tfcc.log"; summary+=("$name: FAIL (tfcc could not compile it)"); return 1; }
  # shellcheck disable=SC2046
  node "$RUN" --random-inputs "$model" "$dir/in" $(input_opts "$name") >"$dir/inputs.log" 2>&1 \
    || { cat "$dir/inputs.log"; summary+=("$name: FAIL (inputs)"); return 1; }
  local inputs=() f
  while IFS= read -r f; do inputs+=("$f"); done < <(ls "$dir"/in/input_*.npy | sort -V)
  node "$RUN" "$model" "$dir/litert" "${inputs[@]}" >"$dir/litert.log" 2>&1 \
    || { tail -n 20 "$dir/litert.log"; summary+=("$name: FAIL (LiteRT)"); return 1; }
  local in_args=()
  for f in "${inputs[@]}"; do in_args+=("--input=$f"); done
  "$TFCC_BIN/tfcc-run" "$dir/$name.so" "${in_args[@]}" --output-dir="$dir/tfcc" >"$dir/run.log" 2>&1 \
    || { tail -n 20 "$dir/run.log"; summary+=("$name: FAIL (tfcc-run)"); return 1; }
  local n_ref n_tfcc i line ok=1 worst=0 err
  n_ref=$(ls "$dir"/litert/output_*.npy | wc -l)
  n_tfcc=$(ls "$dir"/tfcc/output_*.npy 2>/dev/null | wc -l)
  [ "$n_ref" = "$n_tfcc" ] || { summary+=("$name: FAIL ($n_tfcc outputs from tfcc, $n_ref from LiteRT)"); return 1; }
  for ((i = 0; i < n_ref; ++i)); do
    # shellcheck disable=SC2046
    line=$(node "$RUN" --compare "$dir/tfcc/output_$i.npy" "$dir/litert/output_$i.npy" $(tolerance "$name"))
    [ $? -eq 0 ] || { ok=0; echo "  $name output_$i: $line"; }
    err=$(echo "$line" | sed -n 's/^max relative error \([^:]*\):.*/\1/p')
    worst=$(awk -v a="$worst" -v b="${err:-inf}" 'BEGIN { print (b == "inf" || b + 0 > a + 0) ? b : a }')
  done
  local verdict=ok
  [ $ok = 1 ] || verdict=FAIL
  summary+=("$name: $verdict, max relative error $worst over $n_ref outputs ($(tolerance "$name"))")
  [ $ok = 1 ]
}

for name in $MODELS; do
  check_model "$name" || failures=$((failures + 1))
done
printf '%s\n' "${summary[@]}"
[ $failures = 0 ] || { echo "check.sh: $failures model(s) failed"; exit 1; }
echo "check.sh: all TFLite models match LiteRT"
