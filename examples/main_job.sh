#!/usr/bin/env bash
# What tfcc is for, end to end, on Fashion-MNIST (the main job's steps after
# the build; .ci/main.sh runs it, README.md says what it prints):
#   1. the spec's CNN with its train step compiled into a library that trains
#      itself (done by the build: examples/train_fashion_mnist);
#   2. trained on this machine like Keras' fit, a checkpoint saved;
#   3. an inference-only library built with the trained weights baked in, and a
#      C program linked against it through its generated header;
#   4. the test set classified with it: accuracy, predictions, latency, ISA;
#   5. an int8 build of it (tfcc --quantize=int8, calibrated on 1000 training
#      images): its weight bytes and test accuracy;
#   6. a mixed-precision build (tfcc --precision=mixed_bf16): its accuracy and
#      latency.
#
#   bash examples/main_job.sh [--build DIR] [--out DIR] [--epochs N] [--quick]
#
# --quick (the ctest main_job_quick): one epoch on the first 2000 training
# images, so the steps run in seconds; the accuracy is then far lower.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/build
OUT=""
EPOCHS=2
LIMIT=()
die() { echo "main_job.sh: error: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || die "--build needs a directory"; BUILD=$(realpath -m "$2"); shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$(realpath -m "$2"); shift ;;
    --epochs) [ $# -ge 2 ] || die "--epochs needs a number"; EPOCHS=$2; shift ;;
    --quick) EPOCHS=1; LIMIT=(--limit-train 2000) ;;
    *) die "unknown option $1" ;;
  esac
  shift
done
OUT=${OUT:-$BUILD/main_job}
DATA=$BUILD/data
for tool in "$BUILD/bin/tfcc" "$BUILD/bin/train_fashion_mnist"; do
  [ -x "$tool" ] || die "$tool is missing: build first (bash .ci/build.sh)"
done
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  [ -f "$DATA/$f" ] || die "$DATA/$f is missing (Debian's dataset-fashion-mnist; the build's fashion_mnist_data target decompresses it)"
done
CC=${CC:-clang-19}
rm -rf "$OUT"
mkdir -p "$OUT/deploy"
SECONDS=0
step() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "${*//$REPO\//}"; "$@"; }

step "1. The Keras CNN with its train step, compiled by the build into a library that trains itself"
echo "$ tfcc examples/train_fashion_mnist/mnist_cnn_train.mlir --name=mnist_cnn_train -o ${BUILD#"$REPO"/}/examples/train_fashion_mnist/model/mnist_cnn_train.so"

step "2. Training it on this machine ($EPOCHS epoch(s), batch 64, $(nproc) threads)"
run "$BUILD/bin/train_fashion_mnist" --data "$DATA" --out "$OUT/train" --epochs "$EPOCHS" \
    --batch-size 64 --threads "$(nproc)" --validation-split 0.1 --seed 1 --no-export "${LIMIT[@]}"

step "3. An inference library with the trained weights baked in, and a C program linked through its header"
run "$BUILD/bin/tfcc" "$REPO/examples/train_fashion_mnist/mnist_cnn_train.mlir" --no-train \
    --weights "$OUT/train/best.tfck" --name mnist_cnn --report="$OUT/deploy/report.txt" \
    -o "$OUT/deploy/mnist_cnn.so"
run "$CC" -std=c99 -O2 -Wall -Wextra -Werror -I "$OUT/deploy" "$REPO/examples/mnist/main.c" \
    "$OUT/deploy/mnist_cnn.so" -Wl,-rpath,"$OUT/deploy" -o "$OUT/deploy/classify"

step "4. Classifying the 10,000 test images with it"
run "$OUT/deploy/classify" "$DATA/t10k-images-idx3-ubyte" "$DATA/t10k-labels-idx1-ubyte" 10

step "5. An int8 build: weights per output channel, inputs calibrated on 1000 training images"
mkdir -p "$OUT/int8"
printf '$ python3 (the first 1000 training images as calibration.npy, pixels / 255)\n'
/usr/bin/python3 - "$DATA/train-images-idx3-ubyte" "$OUT/int8/calibration.npy" <<'PY'
import sys
import numpy as np
raw = open(sys.argv[1], "rb").read()
images = np.frombuffer(raw, np.uint8, offset=16).reshape(-1, 28, 28, 1)[:1000]
np.save(sys.argv[2], images.astype(np.float32) / np.float32(255))
PY
run "$BUILD/bin/tfcc" "$REPO/examples/train_fashion_mnist/mnist_cnn_train.mlir" --no-train \
    --weights "$OUT/train/best.tfck" --name mnist_cnn --quantize=int8 \
    --calibration "$OUT/int8/calibration.npy" --report="$OUT/int8/report.txt" -o "$OUT/int8/mnist_cnn.so"
printf 'float32: %s\nint8:    %s\n' "$(head -1 "$OUT/deploy/report.txt")" "$(head -1 "$OUT/int8/report.txt")"
run "$CC" -std=c99 -O2 -Wall -Wextra -Werror -I "$OUT/int8" "$REPO/examples/mnist/main.c" \
    "$OUT/int8/mnist_cnn.so" -Wl,-rpath,"$OUT/int8" -o "$OUT/int8/classify"
run "$OUT/int8/classify" "$DATA/t10k-images-idx3-ubyte" "$DATA/t10k-labels-idx1-ubyte" 0

step "6. A mixed-precision build (Keras' mixed_bfloat16: layers in bfloat16, softmax in float32)"
mkdir -p "$OUT/bf16"
run "$BUILD/bin/tfcc" "$REPO/examples/train_fashion_mnist/mnist_cnn_train.mlir" --no-train \
    --weights "$OUT/train/best.tfck" --name mnist_cnn --precision=mixed_bf16 -o "$OUT/bf16/mnist_cnn.so"
run "$CC" -std=c99 -O2 -Wall -Wextra -Werror -I "$OUT/bf16" "$REPO/examples/mnist/main.c" \
    "$OUT/bf16/mnist_cnn.so" -Wl,-rpath,"$OUT/bf16" -o "$OUT/bf16/classify"
run "$OUT/bf16/classify" "$DATA/t10k-images-idx3-ubyte" "$DATA/t10k-labels-idx1-ubyte" 0
printf '\nmain_job.sh: done in %d s (after the build); files in %s\n' "$SECONDS" "$OUT"
