#!/usr/bin/env bash
# bench/gemm/build.sh DEST KERNEL_DIR INCLUDE_DIR OBJ_DIR CMAKELISTS: builds
# bench/gemm/bench.c into DEST against the kernel sources in KERNEL_DIR
# (runtime/src/kernels of some revision) and the headers in INCLUDE_DIR, each source
# with the ISA flags that revision's runtime/CMakeLists.txt (CMAKELISTS) gives it, read
# from its TFCC_ISA_FLAGS_src/kernels/<file> lines (and -ffp-contract=fast for the
# portable kernels, vec_*.c, as it adds), -O3.
# Used by run.sh and compare.sh. CC (default clang-19); TFCC_BENCH_CFLAGS adds flags to the
# kernel sources (e.g. -DTFCC_KC_PACKED=256, for tuning).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$1 kdir=$2 inc=$3 objdir=$4 cmakelists=$5
CC=${CC:-clang-19}
mkdir -p "$objdir"
objs=()
for src in "$kdir"/*.c; do
  name=$(basename "$src")
  # shellcheck disable=SC2207  # the flags are words
  flags=($(sed -n "s|^set(TFCC_ISA_FLAGS_src/kernels/${name//./\\.} \(.*\))\$|\1|p" \
    "$cmakelists"))
  case $name in vec_*.c) flags+=(-ffp-contract=fast) ;; esac
  obj="$objdir/$(basename "$src" .c).o"
  # shellcheck disable=SC2086  # TFCC_BENCH_CFLAGS: -D overrides of the blocking, for tuning
  "$CC" -std=gnu99 -O3 -fvisibility=hidden "${flags[@]}" ${TFCC_BENCH_CFLAGS:-} \
    -I"$inc" -c "$src" -o "$obj"
  objs+=("$obj")
done
"$CC" -std=gnu99 -O3 -fvisibility=hidden -I"$inc" \
  "$here/bench.c" "${objs[@]}" -ldnnl -lgomp -lm -lpthread -o "$dest"
