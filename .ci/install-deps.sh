#!/usr/bin/env bash
# Installs the Debian packages tfcc needs to build, test and run its examples.
# Idempotent: does nothing when every package is already present.
set -euo pipefail
PACKAGES=(
  cmake ninja-build g++ clang-19 lld-19 python3 gzip
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  libgtest-dev libgmock-dev liblld-19-dev
  dataset-fashion-mnist
  libonnx-testdata libonnx-dev libprotobuf-dev protobuf-compiler
  python3-torch python3-torchvision
  flatbuffers-compiler libflatbuffers-dev
  qemu-user-static libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross libgcc-12-dev-arm64-cross
  libc6-dev-armhf-cross libgcc-12-dev-armhf-cross
  gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
  libcpp-httplib-dev nlohmann-json3-dev pkg-config python3-protobuf chromium python3-pil
  python3-onnx
  openmpi-bin libopenmpi-dev
)
# flatbuffers-compiler: flatc reads and writes the checkpoints of test/tools/checkpoint.test
# independently of the runtime's hand-written FlatBuffers code (runtime/src/checkpoint.c);
# libflatbuffers-dev: the compiler reads checkpoints (tfcc --weights) through flatc --cpp code.
# The real-model checks (test/onnx/real) run ONNX Runtime from npm.
# libcpp-httplib-dev, nlohmann-json3-dev and pkg-config: tfcc-serve's HTTP server and JSON
# (httplib is a compiled library whose pkg-config flags must match its build).
# python3-protobuf: the TensorBoard test reads event files through protos compiled with protoc.
# python3-onnx: test/onnx/Inputs/half_models.py writes float16/bfloat16 models with onnx.helper
# and onnx.numpy_helper (libonnx-testdata alone leaves an empty `onnx` namespace package).
# openmpi-bin and libopenmpi-dev: tfcc-train --mpi (data-parallel training, docs/distributed.md)
# and its test under mpirun.
# chromium and python3-pil: test/tools/graph-views renders tfcc --emit=html headless and
# checks the screenshot.
# qemu-user-static and the arm64 and armhf cross sysroots: the build makes the runtime for
# each (tfcc --target=aarch64-linux-gnu / armv7a-linux-gnueabihf, docs/embedded.md);
# test/cross runs the kernel tests and cross-compiled models under qemu-user.
# gcc-arm-none-eabi, picolibc and qemu-system-arm: the Cortex-M runtime (thumbv7em-none-eabihf)
# and firmware images of models run on qemu's MPS2 boards (test/cross/cortex-m.sh).
command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
