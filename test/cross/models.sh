#!/usr/bin/env bash
# Cross-compiled models run under qemu-user (docs/embedded.md): the spec's MLP and seed CNN,
# float32, int8 and mixed precision (the CNN) (tfcc --quantize=int8, calibrated on random inputs), built by tfcc for
# each cross target (--target, --emit=obj and --emit=so, the runtime found in build/lib/<triple>),
# linked with test/cross/model_driver.c (the generated header only) by clang-19 and lld, and run
# under qemu-aarch64-static / qemu-arm-static. Checked:
#   float32: max|out - ref| <= 1e-5 * max|ref| against the host's reference interpreter
#            (tfcc-run --interpret) on the same inputs;
#   int8:    bit-exact against the host's int8 build pinned to the baseline x86-64 level
#            (--cpu=x86-64: the same portable kernels, the same driver compiled for the host);
#            within 1e-6 of max|ref| against the host's own int8 build (its AVX2/AVX-512
#            kernels round float epilogues differently by an ulp).
#
#   test/cross/models.sh BUILD_DIR [TRIPLE...]   (default: aarch64-linux-gnu arm-linux-gnueabihf)
#
# Exits 77 (skipped) when a tool or sysroot is missing, non-zero when a check fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: models.sh BUILD_DIR [TRIPLE...]}" && pwd)
shift
triples=("$@")
[ ${#triples[@]} -gt 0 ] || triples=(aarch64-linux-gnu arm-linux-gnueabihf)
spec=${TFCC_SPEC_DIR:-$root/../shared/spec}
py=/usr/bin/python3
for tool in clang-19 ld.lld-19 llvm-objdump-19 qemu-aarch64-static qemu-arm-static "$py"; do
  command -v "$tool" >/dev/null || { echo "models.sh: $tool not found (.ci/install-deps.sh)"; exit 77; }
done
[ -f "$spec/models/mlp.mlir" ] || { echo "models.sh: no spec models in $spec"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tfcc-cross-models.XXXXXX")
trap 'rm -rf "$work"' EXIT
tfcc="$build/bin/tfcc"
run="$build/bin/tfcc-run"

# Inputs: batch 3, uniform in [0, 1), one file per model (raw for the driver, .npy for
# tfcc-run), and 32 calibration samples.
"$py" - "$work" <<'EOF'
import sys, numpy as np
work = sys.argv[1]
rng = np.random.RandomState(20)
for name, shape in (("mlp", (784,)), ("mnist_cnn", (28, 28, 1))):
    x = rng.rand(3, *shape).astype(np.float32)
    np.save(f"{work}/{name}.x.npy", x)
    x.tofile(f"{work}/{name}.x.bin")
    np.save(f"{work}/{name}.cal.npy", rng.rand(32, *shape).astype(np.float32))
EOF

# cc_for TRIPLE: the clang-19 command line that builds and links a program for TRIPLE.
cc_for() {
  case "$1" in
    host) echo "clang-19 -O2 -fuse-ld=lld" ;;
    aarch64-linux-gnu) echo "clang-19 --target=aarch64-linux-gnu --gcc-install-dir=/usr/lib/gcc-cross/aarch64-linux-gnu/12 -O2 -fuse-ld=lld" ;;
    arm-linux-gnueabihf) echo "clang-19 --target=armv7a-linux-gnueabihf -mfpu=neon -mfloat-abi=hard --gcc-install-dir=/usr/lib/gcc-cross/arm-linux-gnueabihf/12 -O2 -fuse-ld=lld" ;;
  esac
}
runner_for() {
  case "$1" in
    host) echo "" ;;
    aarch64-linux-gnu) echo "qemu-aarch64-static -L /usr/aarch64-linux-gnu" ;;
    arm-linux-gnueabihf) echo "qemu-arm-static -L /usr/arm-linux-gnueabihf" ;;
  esac
}

# build_and_run TRIPLE NAME MODEL EMIT TFCC_FLAGS...: compiles MODEL for TRIPLE, builds the
# driver against it, runs it on NAME's inputs; the outputs go to $work/TRIPLE/NAME.EMIT.out.
build_and_run() {
  local triple=$1 name=$2 model=$3 emit=$4
  shift 4
  local dir="$work/$triple" target=()
  mkdir -p "$dir"
  [ "$triple" = host ] || target=(--target="$triple")
  local prefix base="$dir/$name.$emit"
  prefix=$(echo "$name" | tr -c 'a-z0-9_\n' '_')
  if [ "$emit" = so ]; then
    "$tfcc" "$model" "${target[@]}" --name "$prefix" "$@" -o "$dir/lib$name.so"
    $(cc_for "$triple") -I"$dir" -DTFCC_MODEL_HEADER="\"lib$name.h\"" -DTFCC_PREFIX="$prefix" \
      "$here/model_driver.c" -L"$dir" -l"$name" -lm -pthread -o "$base.driver"
    env LD_LIBRARY_PATH="$dir" $(runner_for "$triple") "$base.driver" \
      "$work/${name%%.*}.x.bin" "$base.out" 3
  else
    "$tfcc" "$model" "${target[@]}" --name "$prefix" --emit=obj "$@" -o "$dir/$name.o"
    $(cc_for "$triple") -I"$dir" -DTFCC_MODEL_HEADER="\"$name.h\"" -DTFCC_PREFIX="$prefix" \
      "$here/model_driver.c" "$dir/$name.o" -lm -pthread -o "$base.driver"
    $(runner_for "$triple") "$base.driver" "$work/${name%%.*}.x.bin" "$base.out" 3
  fi
}

# compare OUT REF TOLERANCE LABEL (compare_outputs.py): 1e-5 for float32 against the
# interpreter, 0 against the host's baseline build, 1e-6 against its own build.
compare() { "$py" "$here/compare_outputs.py" "$@"; }

status=0
for name in mlp mnist_cnn; do
  model="$spec/models/$name.mlir"
  "$run" "$model" --interpret --input "$work/$name.x.npy" --output-dir "$work/$name.ref" >/dev/null
  build_and_run host "$name.int8" "$model" obj --cpu=x86-64 --quantize=int8 --calibration "$work/$name.cal.npy"
  build_and_run host "$name.int8-native" "$model" obj --quantize=int8 --calibration "$work/$name.cal.npy"
  for triple in "${triples[@]}"; do
    [ -f "$build/lib/$triple/libtfcc_runtime.a" ] || { echo "models.sh: no runtime for $triple in $build/lib"; exit 77; }
    build_and_run "$triple" "$name" "$model" obj
    compare "$work/$triple/$name.obj.out" "$work/$name.ref/output_0.npy" 1e-5 \
      "$triple $name float32 (--emit=obj) vs the interpreter" || status=1
    build_and_run "$triple" "$name.int8" "$model" obj --quantize=int8 --calibration "$work/$name.cal.npy"
    compare "$work/$triple/$name.int8.obj.out" "$work/host/$name.int8.obj.out" 0 \
      "$triple $name int8 (--emit=obj) vs the host's baseline int8 build" || status=1
    compare "$work/$triple/$name.int8.obj.out" "$work/host/$name.int8-native.obj.out" 1e-6 \
      "$triple $name int8 (--emit=obj) vs the host's own int8 build" || status=1
  done
done
# NEON in the convolutions and matmuls: the GEMM micro-kernel (every convolution, dense
# layer and matmul runs on it) and the rows of a one-input-channel convolution, in the
# CNN's object, each hold at least 64 4-float vector multiply(-add)s (ARMv7's NEON has no
# fused multiply-add: vmul + vadd).
for triple in "${triples[@]}"; do
  case "$triple" in
    aarch64-*) pattern='fmla[[:space:]]+v[0-9]+\.4s' ;;
    *) pattern='v(mla|fma|mul|add)\.f32[[:space:]]+q' ;;
  esac
  # Per function, from the whole disassembly (--disassemble-symbols stops at ARM's literal
  # pools inside a function).
  llvm-objdump-19 -d --mattr=+neon "$work/$triple/mnist_cnn.o" |
    awk -v pattern="$pattern" '/^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3) }
                               $0 ~ pattern { count[fn]++ }
                               END { for (f in count) print f, count[f] }' > "$work/$triple/neon.txt"
  for fn in tfcc_uk_base tfcc_conv_c1_rows_base; do
    n=$(awk -v f="$fn" '$1 == f { print $2 }' "$work/$triple/neon.txt")
    if [ "${n:-0}" -ge 64 ]; then
      echo "ok   $triple $fn: $n NEON vector multiply(-add)s"
    else
      echo "FAIL $triple $fn: ${n:-0} NEON vector multiply(-add)s (at least 64 expected)"
      status=1
    fi
  done
done

# Mixed precision (docs/mixed-precision.md): the CNN's mixed_bf16 and mixed_f16 builds (16-bit
# roundings as integer code, in the kernels' epilogues too) on each target against the host's
# baseline build of the same policy. The targets' f32 arithmetic differs from the host's by
# float ulps (fused multiply-adds on AArch64), which can move a rounding to the next 16-bit
# value: measured 5e-8 of max|ref| (AArch64 bf16), 0 otherwise. The bounds, 1e-4 and 1e-5,
# are a tenth of what a missing rounding changes (on these inputs the float32 build's outputs
# differ from the mixed_bf16 build's by 1.3e-3 of max|ref|, from the mixed_f16 one's by
# 1.1e-4).
for policy in bf16 f16; do
  build_and_run host "mnist_cnn.$policy" "$spec/models/mnist_cnn.mlir" obj --cpu=x86-64 \
    --precision=mixed_$policy
  tol=$([ $policy = bf16 ] && echo 1e-4 || echo 1e-5)
  for triple in "${triples[@]}"; do
    build_and_run "$triple" "mnist_cnn.$policy" "$spec/models/mnist_cnn.mlir" obj \
      --precision=mixed_$policy
    compare "$work/$triple/mnist_cnn.$policy.obj.out" "$work/host/mnist_cnn.$policy.obj.out" \
      "$tol" "$triple mnist_cnn mixed_$policy vs the host's baseline mixed_$policy build" || status=1
  done
done

# The shared-library form: the MLP through the dynamic loader of each target.
for triple in "${triples[@]}"; do
  build_and_run "$triple" mlp "$spec/models/mlp.mlir" so
  compare "$work/$triple/mlp.so.out" "$work/mlp.ref/output_0.npy" 1e-5 \
    "$triple mlp float32 (--emit=so) vs the interpreter" || status=1
done
exit $status
