#!/usr/bin/env bash
# Builds bench/gemm/bench.c against the runtime's kernel sources (runtime/src/kernels, -O3,
# as in the tfcc_runtime target) and oneDNN, then runs it. Arguments go to the benchmark:
#   --gemm | --conv      only one half
#   --reps N             interleaved repeats per point (median; default 5)
#   --min-time S         seconds per timed repeat (default 0.2)
# Needs: clang-19 (or CC=...), libdnnl-dev (apt-get install -y libdnnl-dev).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${TFCC_BENCH_DIR:-${TMPDIR:-/tmp}/tfcc-gemm-bench}
mkdir -p "$out"
CC=${CC:-clang-19}
if [ ! -f /usr/include/dnnl.h ]; then
  echo "oneDNN headers missing: apt-get install -y libdnnl-dev" >&2
  exit 1
fi
"$CC" -std=gnu99 -O3 -fvisibility=hidden -I"$root/runtime/include" \
  "$here/bench.c" "$root"/runtime/src/kernels/*.c \
  -ldnnl -lgomp -lm -lpthread -o "$out/bench"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exec "$out/bench" "$@"
