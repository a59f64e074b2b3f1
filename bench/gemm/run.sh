#!/usr/bin/env bash
# Builds bench/gemm/bench.c against the runtime's kernel sources (runtime/src/kernels, -O3,
# as in the tfcc_runtime target) and oneDNN, then runs it. Arguments go to the benchmark:
#   --gemm | --conv      only one half
#   --int8               the int8 GEMM (u8s8s32) against oneDNN's instead
#   --bf16               the mixed_bf16 GEMM against oneDNN's bf16 matmul instead
#   --reps N             interleaved repeats per point (median; default 5)
#   --min-time S         seconds per timed repeat (default 0.2)
# Needs: clang-19 (or CC=...), libdnnl-dev (apt-get install -y libdnnl-dev).
# TFCC_KERNELS_ISA=generic|avx2 runs a lower ISA level's kernels (ONEDNN_MAX_CPU_ISA=AVX2
# does the same for oneDNN); TFCC_BENCH_CFLAGS adds compiler flags to the kernel sources
# (e.g. -DTFCC_KC_PACKED=256, for tuning; see build.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${TFCC_BENCH_DIR:-${TMPDIR:-/tmp}/tfcc-gemm-bench}
mkdir -p "$out"
if [ ! -f /usr/include/dnnl.h ]; then
  echo "oneDNN headers missing: apt-get install -y libdnnl-dev" >&2
  exit 1
fi
"$here/build.sh" "$out/bench" "$root/runtime/src/kernels" "$root/runtime/include" "$out/obj" \
  "$root/runtime/CMakeLists.txt"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ISA flags: $(grep -o -w 'avx2\|fma\|avx512f\|avx512bw\|avx512vl\|avx512_vnni\|avx512_bf16\|avx_vnni' /proc/cpuinfo | sort -u | tr '\n' ' ')" \
  "TFCC_KERNELS_ISA=${TFCC_KERNELS_ISA:-(unset)} ONEDNN_MAX_CPU_ISA=${ONEDNN_MAX_CPU_ISA:-(unset)}"
exec "$out/bench" "$@"
