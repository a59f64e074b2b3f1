#!/usr/bin/env bash
# Builds everything and runs every test (GoogleTest + lit/FileCheck via ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh
bash .ci/build.sh
cd build
ctest --output-on-failure -j "$(nproc)"
