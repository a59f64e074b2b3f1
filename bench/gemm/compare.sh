#!/usr/bin/env bash
# Before/after on one machine: builds bench.c (this tree) against the kernel
# sources of git revision REF (default HEAD) and of the working tree, then runs
# both binaries alternately (ROUNDS times, default 2) with the given benchmark
# arguments (default: --small --reps 5 --min-time 0.05).
#   bench/gemm/compare.sh [REF] [-- bench args...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=HEAD
if [ $# -gt 0 ] && [ "$1" != "--" ]; then ref=$1; shift; fi
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--small --reps 5 --min-time 0.05)
out=${TFCC_BENCH_DIR:-${TMPDIR:-/tmp}/tfcc-gemm-compare}
rm -rf "$out/base"
mkdir -p "$out/base/kernels" "$out/base/include/tfcc"
for f in $(git -C "$root" ls-tree --name-only "$ref" runtime/src/kernels/ runtime/include/tfcc/); do
  case $f in
    runtime/src/kernels/*) dest=$out/base/kernels ;;
    *) dest=$out/base/include/tfcc ;;
  esac
  git -C "$root" show "$ref:$f" > "$dest/$(basename "$f")"
done
git -C "$root" show "$ref:runtime/CMakeLists.txt" > "$out/base/CMakeLists.txt"
if [ ! -f /usr/include/dnnl.h ]; then
  echo "oneDNN headers missing: apt-get install -y libdnnl-dev" >&2
  exit 1
fi
"$here/build.sh" "$out/bench-base" "$out/base/kernels" "$out/base/include" "$out/obj-base" \
  "$out/base/CMakeLists.txt"
"$here/build.sh" "$out/bench-new" "$root/runtime/src/kernels" "$root/runtime/include" \
  "$out/obj-new" "$root/runtime/CMakeLists.txt"
echo "machine: $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "${ROUNDS:-2}"); do
  echo "== base ($ref), round $r"; "$out/bench-base" "${args[@]}"
  echo "== new (working tree), round $r"; "$out/bench-new" "${args[@]}"
done
