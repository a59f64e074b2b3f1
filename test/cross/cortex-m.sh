#!/usr/bin/env bash
# Models as bare-metal firmware on Cortex-M boards under qemu-system-arm (docs/embedded.md):
# the spec's MLP (float32) and a keyword-spotting CNN (test/cross/Inputs/kws_cnn.mlir, int8 by
# tfcc --quantize=int8), compiled by tfcc --target=thumbv7em-none-eabihf --emit=obj (the
# freestanding runtime of build/lib/thumbv7em-none-eabihf), linked with
# test/cross/firmware_main.c (the generated header only, static context and arena) by
# arm-none-eabi-gcc and picolibc (semihosting), and run on qemu's MPS2 boards: AN386
# (Cortex-M4) and AN500 (Cortex-M7). Checked:
#   - the printed outputs: the MLP within 1e-5 of max|ref| of the host's reference interpreter;
#     the MLP and the int8 CNN equal, bit for bit, to the host's build of the same model at
#     the baseline x86-64 level (--cpu=x86-64: the portable kernels, in the same order; the
#     host's AVX2 and AVX-512 builds round some sums differently by an ulp), run by
#     test/cross/model_driver.c on the same input;
#   - no reference to malloc, calloc, realloc or free in the model objects (nm), and with a
#     runtime built without error strings nothing from the C library but memcpy, memset,
#     memmove and the math functions;
#   - the size budgets: runtime code <= 16 KiB and model code + runtime code <= 64 KiB for
#     the MLP (weights apart), counted from the firmware's link map after --gc-sections.
#
#   test/cross/cortex-m.sh BUILD_DIR
#
# Exits 77 (skipped) when a tool or the runtime is missing, non-zero when a check fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: cortex-m.sh BUILD_DIR}" && pwd)
spec=${TFCC_SPEC_DIR:-$root/../shared/spec}
py=/usr/bin/python3
triple=thumbv7em-none-eabihf
for tool in arm-none-eabi-gcc qemu-system-arm clang-19 llvm-nm-19 "$py"; do
  command -v "$tool" >/dev/null || { echo "cortex-m.sh: $tool not found (.ci/install-deps.sh)"; exit 77; }
done
[ -f "$build/lib/$triple/libtfcc_runtime.a" ] || { echo "cortex-m.sh: no runtime for $triple in $build/lib"; exit 77; }
[ -f "$spec/models/mlp.mlir" ] || { echo "cortex-m.sh: no spec models in $spec"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tfcc-cortex-m.XXXXXX")
trap 'rm -rf "$work"' EXIT
tfcc="$build/bin/tfcc"

# Inputs (batch 1) as .npy and .bin for the host, and as C arrays for the firmware; 32
# calibration samples for the int8 build.
"$py" - "$work" <<'EOF'
import sys, numpy as np
work = sys.argv[1]
rng = np.random.RandomState(7)
for name, shape in (("mlp", (784,)), ("kws", (49, 10, 1))):
    x = (rng.rand(1, *shape) if name == "mlp" else rng.randn(1, *shape)).astype(np.float32)
    np.save(f"{work}/{name}.x.npy", x)
    x.tofile(f"{work}/{name}.x.bin")
    with open(f"{work}/{name}.input.c", "w") as f:
        f.write("#include <stdint.h>\n")
        f.write(f"const uint32_t model_input_floats = {x.size};\n")
        f.write("const float model_input[] = {\n")
        f.write(",\n".join(np.format_float_scientific(v, unique=True) + "f" for v in x.ravel()))
        f.write("\n};\n")
    cal = rng.rand(32, *shape) if name == "mlp" else rng.randn(32, *shape)
    np.save(f"{work}/{name}.cal.npy", cal.astype(np.float32))
EOF

status=0
check() { # LABEL COMMAND...: runs a check, prints ok/FAIL
  local label=$1
  shift
  if "$@"; then echo "ok   $label"; else echo "FAIL $label"; status=1; fi
}

# firmware NAME MODEL EMIT TFCC_FLAGS...: $work/NAME.o (EMIT obj) or $work/libNAME.a (EMIT
# static), + the header; $work/NAME.elf, $work/NAME.map
firmware() {
  local name=$1 model=$2 emit=$3 linked
  shift 3
  if [ "$emit" = static ]; then
    "$tfcc" "$model" --target=$triple --emit=static --name "$name" "$@" -o "$work/lib$name.a"
    cp "$work/lib$name.h" "$work/$name.h"
    linked=(-L"$work" -l"$name")
  else
    "$tfcc" "$model" --target=$triple --emit=obj --name "$name" "$@" -o "$work/$name.o"
    linked=("$work/$name.o")
  fi
  local upper
  upper=$(echo "$name" | tr 'a-z' 'A-Z')
  arm-none-eabi-gcc --specs=picolibc.specs --oslib=semihost --crt0=semihost \
    -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -O2 -Wall -Werror \
    -Wl,--gc-sections -Wl,-Map="$work/$name.map" -Wl,--no-warn-execstack \
    -Wl,--defsym=__flash=0x00000000 -Wl,--defsym=__flash_size=0x400000 \
    -Wl,--defsym=__ram=0x20000000 -Wl,--defsym=__ram_size=0x400000 \
    -Wl,--defsym=__stack_size=0x40000 \
    -I"$work" -DTFCC_MODEL_HEADER="\"$name.h\"" -DTFCC_PREFIX="$name" \
    -DMODEL_ARENA_BYTES="${upper}_ARENA_BYTES" -DBATCH=1 \
    "$here/firmware_main.c" "$work/${name%%_*}.input.c" "${linked[@]}" -lm -o "$work/$name.elf"
}

# run_on BOARD NAME: the firmware's printed outputs -> $work/NAME.BOARD.txt (semihosting's
# console is qemu's stderr here); its exit status is the firmware's.
run_on() {
  timeout 120 qemu-system-arm -M "$1" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel "$work/$2.elf" \
    2> "$work/$2.$1.txt" > /dev/null || { echo "FAIL $2 on $1: exit status $?"; cat "$work/$2.$1.txt"; status=1; }
}

# host_run NAME MODEL TFCC_FLAGS...: the same model built for the host (an object and
# test/cross/model_driver.c), run on the same input -> $work/NAME.host.bin
host_run() {
  local name=$1 model=$2
  shift 2
  mkdir -p "$work/host"
  "$tfcc" "$model" --emit=obj --name "$name" "$@" -o "$work/host/$name.o"
  clang-19 -O2 -fuse-ld=lld -I"$work/host" -DTFCC_MODEL_HEADER="\"$name.h\"" -DTFCC_PREFIX="$name" \
    "$here/model_driver.c" "$work/host/$name.o" -lm -pthread -o "$work/host/$name.driver"
  "$work/host/$name.driver" "$work/${name%%_*}.x.bin" "$work/$name.host.bin" 1
}

# compare PRINTED REF TOLERANCE LABEL (compare_outputs.py; PRINTED: the firmware's lines).
compare() { "$py" "$here/compare_outputs.py" "$@"; }

no_malloc() { # OBJECT: no allocator among its undefined symbols
  ! llvm-nm-19 -u "$1" | grep -wE 'malloc|calloc|realloc|free'
}

# The MLP in float32.
firmware mlp "$spec/models/mlp.mlir" obj
"$build/bin/tfcc-run" "$spec/models/mlp.mlir" --interpret --input "$work/mlp.x.npy" \
  --output-dir "$work/mlp.ref" >/dev/null
host_run mlp_host "$spec/models/mlp.mlir" --cpu=x86-64
check "mlp: no malloc, calloc, realloc or free" no_malloc "$work/mlp.o"
for board in mps2-an386 mps2-an500; do
  run_on $board mlp
  compare "$work/mlp.$board.txt" "$work/mlp.ref/output_0.npy" 1e-5 \
    "mlp float32 on $board vs the host's interpreter" || status=1
  compare "$work/mlp.$board.txt" "$work/mlp_host.host.bin" 0 \
    "mlp float32 on $board vs the host's baseline build" || status=1
done

# The MLP again with a runtime built with TFCC_NO_ERROR_STRINGS (statuses only): no
# formatting code (vsnprintf, picolibc's printf core) comes with the model; the same outputs.
cmake -G Ninja -S "$root/runtime" -B "$work/rt-nostrings" \
  -DCMAKE_TOOLCHAIN_FILE="$root/runtime/toolchains/$triple.cmake" -DTFCC_NO_ERROR_STRINGS=ON \
  > "$work/rt-nostrings.log" 2>&1
cmake --build "$work/rt-nostrings" --target tfcc_runtime >> "$work/rt-nostrings.log" 2>&1 ||
  { cat "$work/rt-nostrings.log"; exit 1; }
firmware mlp_ns "$spec/models/mlp.mlir" obj --runtime-lib="$work/rt-nostrings/lib/libtfcc_runtime.a"
libc_needed() { # OBJECT: its undefined symbols other than the compiler's helpers (__aeabi_*)
  llvm-nm-19 -u "$1" | awk '{ print $NF }' | grep -v '^__aeabi_' | sort -u | tr '\n' ' '
}
echo "mlp without error strings needs: $(libc_needed "$work/mlp_ns.o")"
check "mlp without error strings: nothing from the C library but memcpy, memset and libm" \
  eval '[ -z "$(libc_needed "$work/mlp_ns.o" | tr " " "\n" | grep -vxE "memcpy|memset|memmove|expf|logf|tanhf|erff|powf|sqrtf|floorf|ceilf|roundf|fmodf|" )" ]'
run_on mps2-an386 mlp_ns
compare "$work/mlp_ns.mps2-an386.txt" "$work/mlp.ref/output_0.npy" 1e-5 \
  "mlp float32 without error strings on mps2-an386 vs the host's interpreter" || status=1

# The keyword-spotting CNN in int8, calibrated on the host, as a static library.
firmware kws "$here/Inputs/kws_cnn.mlir" static --quantize=int8 --calibration "$work/kws.cal.npy"
host_run kws_host "$here/Inputs/kws_cnn.mlir" --cpu=x86-64 --quantize=int8 \
  --calibration "$work/kws.cal.npy"
check "kws int8: no malloc, calloc, realloc or free" no_malloc "$work/libkws.a"
# The int8 dot products on the DSP extension (SMLAD, two 16-bit multiply-adds), as CMSIS-NN.
smlads() { # ARCHIVE FUNCTION: SMLAD instructions in FUNCTION
  llvm-objdump-19 -d "$1" | awk -v f="<$2>:" '/^[0-9a-f]+ <.*>:$/ { in_f = ($2 == f) }
                                             in_f && /\tsmlad\t/ { n++ } END { print n + 0 }'
}
check "kws int8: the int8 kernel uses SMLAD ($(smlads "$work/libkws.a" tfcc_quk_base) in tfcc_quk_base)" \
  eval '[ "$(smlads "$work/libkws.a" tfcc_quk_base)" -ge 2 ]'
for board in mps2-an386 mps2-an500; do
  run_on $board kws
  compare "$work/kws.$board.txt" "$work/kws_host.host.bin" 0 \
    "kws int8 on $board vs the host's baseline int8 build" || status=1
done

# Sizes from the MLP firmware's map: code (.text) kept by --gc-sections from the model's
# object, split into the runtime's functions (-ffunction-sections: .text.<name>) and the
# model's own code (.text); read-only data (the weights) apart.
"$py" - "$work/mlp.map" "$work/mlp.o" "$work/kws.map" "libkws.o" "$work/mlp_ns.map" "$work/mlp_ns.o" <<'EOF' || status=1
import re, sys

def sizes(map_path, obj):
    text = open(map_path).read()
    start = text.find("Linker script and memory map")
    sections = {"runtime": 0, "model": 0, "rodata": 0}
    # An input section: " NAME ADDRESS SIZE FILE", NAME alone on its line when long.
    pattern = re.compile(r"^ (\.[\w.$]+)\s*\n?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", re.M)
    for m in pattern.finditer(text, start):
        name, size, path = m.group(1), int(m.group(2), 16), m.group(3)
        base = obj.split("/")[-1]  # an object, or an archive member: lib.a(member.o)
        if not (path.endswith(base) or path.endswith("(" + base + ")")):
            continue
        if name.startswith(".text."):
            sections["runtime"] += size
        elif name == ".text":
            sections["model"] += size
        elif name.startswith(".rodata"):
            sections["rodata"] += size
    return sections

budget_ok = True
for map_path, obj, name in ((sys.argv[1], sys.argv[2], "mlp"), (sys.argv[3], sys.argv[4], "kws"),
                            (sys.argv[5], sys.argv[6], "mlp without error strings")):
    s = sizes(map_path, obj)
    print(f"size {name}: runtime code {s['runtime']} bytes, model code {s['model']} bytes, "
          f"read-only data (weights) {s['rodata']} bytes")
    if name == "mlp":
        ok = s["runtime"] <= 16 * 1024 and s["runtime"] + s["model"] <= 64 * 1024
        print(f"{'ok  ' if ok else 'FAIL'} mlp budgets: runtime code <= 16384, "
              f"model + runtime code <= 65536")
        budget_ok = budget_ok and ok and s["runtime"] > 0 and s["model"] > 0
sys.exit(0 if budget_ok else 1)
EOF
# Whole firmware images (picolibc's start-up, printf and libm included), for docs/embedded.md.
arm-none-eabi-size "$work/mlp.elf" "$work/mlp_ns.elf" "$work/kws.elf" | sed 's|/[^ ]*/||'
exit $status
