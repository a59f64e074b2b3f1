#!/usr/bin/env bash
# Builds the runtime's kernels, KernelsTest and QuantizedKernelsTest for AArch64 (NEON) with
# clang-19 and Debian's cross sysroot, and runs the tests under qemu-aarch64-static.
#
#   test/cross/run.sh [BUILD_DIR]     (default: build/cross-aarch64)
#
# Needs: clang-19, lld-19, cmake, ninja, qemu-user-static, libc6-dev-arm64-cross,
# libstdc++-12-dev-arm64-cross, libgtest-dev (its sources) -- .ci/install-deps.sh.
# Exits non-zero when either test fails; prints GoogleTest's summaries. Arguments after
# BUILD_DIR go to both tests (e.g. --gtest_filter=...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../build/cross-aarch64}
for tool in clang-19 ld.lld-19 qemu-aarch64-static cmake ninja; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not found (.ci/install-deps.sh)" >&2; exit 2; }
done
[ -d /usr/aarch64-linux-gnu/include ] || { echo "run.sh: no AArch64 sysroot (libc6-dev-arm64-cross)" >&2; exit 2; }
[ -f /usr/src/googletest/CMakeLists.txt ] || { echo "run.sh: no GoogleTest sources (libgtest-dev)" >&2; exit 2; }
if [ ! -f "$out/build.ninja" ]; then
  cmake -G Ninja -S "$here" -B "$out" -DCMAKE_TOOLCHAIN_FILE="$here/../../runtime/toolchains/aarch64-linux-gnu.cmake" \
    -DCMAKE_LINKER=ld.lld-19 >/dev/null
fi
cmake --build "$out" --target KernelsTest QuantizedKernelsTest
status=0
for test in KernelsTest QuantizedKernelsTest; do
  qemu-aarch64-static -L /usr/aarch64-linux-gnu "$out/$test" "${@:2}" || status=1
done
exit $status
