#!/bin/sh
# ctest main_job_quick: examples/main_job.sh --quick runs every step, and the
# inference library built from the trained checkpoint classifies the test set
# as the training program's own evaluation of those weights did (to 0.3
# points: folding batch norm into the convolution rounds differently), the
# int8 build within 1 point of it and the mixed_bf16 build within 0.3, and
# reports its latency and kernels' ISA.
#   main_job_test.sh BUILD_DIR OUT_DIR
set -eu
build=$1
out=$2
log=$out.log
bash "$(dirname "$0")/main_job.sh" --quick --build "$build" --out "$out" > "$log" 2>&1 || {
  cat "$log"; echo "main_job_test: main_job.sh failed"; exit 1; }
trained=$(sed -n 's/^test: .* accuracy \([0-9.]*\) .*/\1/p' "$log")
# The float32 library's accuracy, then the int8 library's (step 5).
deployed=$(sed -n 's/^accuracy on all 10000 images: \([0-9.]*\)%$/\1/p' "$log" | sed -n 1p)
int8=$(sed -n 's/^accuracy on all 10000 images: \([0-9.]*\)%$/\1/p' "$log" | sed -n 2p)
bf16=$(sed -n 's/^accuracy on all 10000 images: \([0-9.]*\)%$/\1/p' "$log" | sed -n 3p)
[ -n "$trained" ] && [ -n "$deployed" ] && [ -n "$int8" ] && [ -n "$bf16" ] || { cat "$log"; echo "main_job_test: accuracy lines missing"; exit 1; }
awk -v t="$trained" -v d="$deployed" 'BEGIN {
  diff = 100 * t - d; if (diff < 0) diff = -diff
  if (diff > 0.3 || d < 20) { printf "main_job_test: trained %.2f%%, deployed %.2f%%\n", 100 * t, d; exit 1 }
}' || { cat "$log"; exit 1; }
# int8 within 1 point of float32 (issue 17), its weights a quarter of them.
awk -v d="$deployed" -v q="$int8" 'BEGIN {
  diff = d - q; if (diff < 0) diff = -diff
  if (diff > 1.0) { printf "main_job_test: float32 %.2f%%, int8 %.2f%%\n", d, q; exit 1 }
}' || { cat "$log"; exit 1; }
# mixed_bf16 within 0.3 points of float32 (issue 21).
awk -v d="$deployed" -v b="$bf16" 'BEGIN {
  diff = d - b; if (diff < 0) diff = -diff
  if (diff > 0.3) { printf "main_job_test: float32 %.2f%%, mixed_bf16 %.2f%%\n", d, b; exit 1 }
}' || { cat "$log"; exit 1; }
f32=$(sed -n 's/^float32: Weights: \([0-9]*\) bytes.*/\1/p' "$log")
i8=$(sed -n 's/^int8: *Weights: \([0-9]*\) bytes.*/\1/p' "$log")
[ -n "$f32" ] && [ -n "$i8" ] && [ $((i8 * 100)) -le $((f32 * 27)) ] || {
  cat "$log"; echo "main_job_test: int8 weights $i8 bytes vs float32 $f32"; exit 1; }
grep -Eq '^image +0: predicted ' "$log" || { cat "$log"; echo "main_job_test: no predictions"; exit 1; }
grep -Eq '^latency: [0-9.]+ ms per image at batch 1, [0-9.]+ ms per image at batch 64 \(1 thread, (avx512|avx2|generic) kernels\)$' "$log" || {
  cat "$log"; echo "main_job_test: no latency line"; exit 1; }
echo "main_job_test: trained $trained, deployed $deployed%, int8 $int8% ($i8 of $f32 weight bytes), mixed_bf16 $bf16% - ok"
