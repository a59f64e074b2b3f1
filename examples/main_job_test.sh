#!/bin/sh
# ctest main_job_quick: examples/main_job.sh --quick runs every step, and the
# inference library built from the trained checkpoint classifies the test set
# as the training program's own evaluation of those weights did (to 0.3
# points: folding batch norm into the convolution rounds differently), and
# reports its latency and kernels' ISA.
#   main_job_test.sh BUILD_DIR OUT_DIR
set -eu
build=$1
out=$2
log=$out.log
bash "$(dirname "$0")/main_job.sh" --quick --build "$build" --out "$out" > "$log" 2>&1 || {
  cat "$log"; echo "main_job_test: main_job.sh failed"; exit 1; }
trained=$(sed -n 's/^test: .* accuracy \([0-9.]*\) .*/\1/p' "$log")
deployed=$(sed -n 's/^accuracy on all 10000 images: \([0-9.]*\)%$/\1/p' "$log")
[ -n "$trained" ] && [ -n "$deployed" ] || { cat "$log"; echo "main_job_test: accuracy lines missing"; exit 1; }
awk -v t="$trained" -v d="$deployed" 'BEGIN {
  diff = 100 * t - d; if (diff < 0) diff = -diff
  if (diff > 0.3 || d < 20) { printf "main_job_test: trained %.2f%%, deployed %.2f%%\n", 100 * t, d; exit 1 }
}' || { cat "$log"; exit 1; }
grep -Eq '^image +0: predicted ' "$log" || { cat "$log"; echo "main_job_test: no predictions"; exit 1; }
grep -Eq '^latency: [0-9.]+ ms per image at batch 1, [0-9.]+ ms per image at batch 64 \(1 thread, (avx512|avx2|generic) kernels\)$' "$log" || {
  cat "$log"; echo "main_job_test: no latency line"; exit 1; }
echo "main_job_test: trained $trained, deployed $deployed% - ok"
