#!/usr/bin/env bash
# Configures (once) and builds tfcc in ./build with clang-19 and ninja.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
fi
cmake --build build -j "$(nproc)"
