#!/usr/bin/env bash
# bench/gemm/build.sh DEST KERNEL_DIR INCLUDE_DIR OBJ_DIR: builds bench/gemm/bench.c into
# DEST against the kernel sources in KERNEL_DIR (runtime/src/kernels of some revision) and
# the headers in INCLUDE_DIR, each source with the flags runtime/CMakeLists.txt gives it
# (the per-ISA builds of the portable kernels, vec_<isa>.c, with their -march), -O3.
# Used by run.sh and compare.sh. CC (default clang-19); TFCC_BENCH_CFLAGS adds flags to the
# kernel sources (e.g. -DTFCC_KC_PACKED=256, for tuning).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$1 kdir=$2 inc=$3 objdir=$4
CC=${CC:-clang-19}
mkdir -p "$objdir"
objs=()
for src in "$kdir"/*.c; do
  flags=()
  case $(basename "$src") in
    vec_avx2.c) flags=(-march=x86-64-v3 -ffp-contract=fast) ;;
    vec_avx512.c) flags=(-march=x86-64-v4 -ffp-contract=fast) ;;
    vec_*.c) flags=(-ffp-contract=fast) ;;
    qgemm_avx2.c) flags=(-march=x86-64-v3) ;;
    qgemm_avxvnni.c | depthwise_u8_avxvnni.c) flags=(-march=x86-64-v3 -mavxvnni) ;;
    qgemm_avx512vnni.c | depthwise_u8_avx512vnni.c) flags=(-march=x86-64-v4 -mavx512vnni) ;;
    gemm_bf16_avx512.c) flags=(-march=x86-64-v4 -mavx512bf16) ;;
  esac
  obj="$objdir/$(basename "$src" .c).o"
  # shellcheck disable=SC2086  # TFCC_BENCH_CFLAGS: -D overrides of the blocking, for tuning
  "$CC" -std=gnu99 -O3 -fvisibility=hidden "${flags[@]}" ${TFCC_BENCH_CFLAGS:-} \
    -I"$inc" -c "$src" -o "$obj"
  objs+=("$obj")
done
"$CC" -std=gnu99 -O3 -fvisibility=hidden -I"$inc" \
  "$here/bench.c" "${objs[@]}" -ldnnl -lgomp -lm -lpthread -o "$dest"
