#!/bin/sh
# mixed_precision_test.sh PROGRAM DATA_DIR OUT_DIR MIXED_LIB_DIR: trains the Fashion-MNIST CNN
# twice with the same seed and epochs, through the float32 library and through
# the --precision=mixed_bf16 one in MIXED_LIB_DIR (the same header: the program
# runs on either, found through LD_LIBRARY_PATH), and checks that the test accuracies are
# within 0.5 points. EPOCHS and LIMIT (training images) may be overridden.
set -eu
prog=$1 data=$2 out=$3 lib=$4
epochs=${EPOCHS:-2}
limit=${LIMIT:-60000}
[ -f "$lib/mnist_cnn_train.so" ] || { echo "no $lib/mnist_cnn_train.so"; exit 1; }
rm -rf "$out" && mkdir -p "$out"
run() {
  "$prog" --data "$data" --out "$out/$1" --epochs "$epochs" --seed 1 --threads 2 \
    --patience "$epochs" --limit-train "$limit" --no-export > "$out/$1.log"
  sed -n 's/^test: .*accuracy \([0-9.]*\).*/\1/p' "$out/$1.log"
}
f32=$(run float32)
bf16=$(LD_LIBRARY_PATH=$lib run mixed_bf16)
cat "$out/float32.log" "$out/mixed_bf16.log"
[ -n "$f32" ] && [ -n "$bf16" ] || { echo "no test accuracy line"; exit 1; }
awk -v f="$f32" -v b="$bf16" 'BEGIN {
  d = 100 * (f - b); if (d < 0) d = -d
  printf "float32 %.2f%%, mixed_bf16 %.2f%%: %.2f points apart\n", 100 * f, 100 * b, d
  if (d > 0.5) exit 1
}'
