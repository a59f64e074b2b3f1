#!/usr/bin/env bash
# The kernel table (runtime/include/tfcc/tfcc_kernels.def) is the one source
# of the kernel interface: a kernel definition or a compiler call site that
# differs from it does not build, and a parameter added to the table alone
# changes both sides (each then fails to build until it follows).
# Usage: check.sh CC CXX SOURCE_DIR INCLUDE_DIRS(;-separated, MLIR/LLVM)
set -u
CC=$1 CXX=$2 SRC=$3
IFS=';' read -r -a dirs <<< "$4"
SYSTEM=()
for d in "${dirs[@]}"; do [ -n "$d" ] && SYSTEM+=(-isystem "$d"); done
HERE=$SRC/test/unit/kernel_table
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

# compile NAME EXPECT(ok|fail) PATTERN -- command...: runs the compiler;
# a failure expected must also print PATTERN (the reason, not any error).
compile() {
  local name=$1 expect=$2 pattern=$3
  shift 4
  if "$@" > "$TMP/out" 2>&1; then status=ok; else status=fail; fi
  if [ "$status" != "$expect" ]; then
    echo "FAIL: $name: expected the build to $([ "$expect" = ok ] && echo succeed || echo fail)"
    sed -n 1,20p "$TMP/out"
    failures=$((failures + 1))
  elif [ "$expect" = fail ] && ! grep -q -- "$pattern" "$TMP/out"; then
    echo "FAIL: $name: failed, but without '$pattern':"
    sed -n 1,20p "$TMP/out"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

c_kernel() { # INCLUDE_FIRST FILE
  "$CC" -std=c99 -fsyntax-only -I"$1" -I"$SRC/runtime/include" \
    -I"$SRC/runtime/src/kernels" "$2"
}
cxx_call() { # INCLUDE_FIRST FLAGS...
  local first=$1
  shift
  "$CXX" -std=c++20 -fsyntax-only -I"$first" -I"$SRC" -I"$SRC/runtime/include" \
    "${SYSTEM[@]}" "$@" "$HERE/call_site.cpp"
}

REAL=$SRC/runtime/include
compile "the runtime's softmax kernel follows the table" ok "" -- \
  c_kernel "$REAL" "$SRC/runtime/src/kernels/rowwise.c"
compile "a definition differing from the table" fail "conflicting types" -- \
  c_kernel "$REAL" "$HERE/mismatched_definition.c"
compile "a call naming every parameter" ok "" -- cxx_call "$REAL"
compile "a call missing a parameter" fail "field 'cols'" -- \
  cxx_call "$REAL" -DOMIT_PARAMETER
compile "a call passing a value for an int32_t constant" fail "no viable conversion from 'Value'" -- \
  cxx_call "$REAL" -DWRONG_KIND
compile "a call passing a parameter the table lacks" fail "'temperature' does not refer" -- \
  cxx_call "$REAL" -DWITH_TEMPERATURE

# A copy of the table with one more softmax parameter, ahead on the path.
mkdir -p "$TMP/include"
cp -r "$SRC/runtime/include/tfcc" "$TMP/include/tfcc"
sed -i 's/TFCC_ARG(I32, log_softmax) TFCC_ARG(OUT_F32, y))/TFCC_ARG(I32, log_softmax) TFCC_ARG(F32, temperature) TFCC_ARG(OUT_F32, y))/' \
  "$TMP/include/tfcc/tfcc_kernels.def"
if ! grep -q temperature "$TMP/include/tfcc/tfcc_kernels.def"; then
  echo "FAIL: could not add a parameter to the softmax entry of the table copy"
  exit 1
fi
EDITED=$TMP/include
compile "table edit: the kernel's old definition no longer builds" fail "conflicting types" -- \
  c_kernel "$EDITED" "$SRC/runtime/src/kernels/rowwise.c"
compile "table edit: the old call site no longer builds" fail "field 'temperature'" -- \
  cxx_call "$EDITED"
compile "table edit: a call site passing the new parameter builds" ok "" -- \
  cxx_call "$EDITED" -DWITH_TEMPERATURE

if [ "$failures" -ne 0 ]; then
  echo "$failures kernel-table check(s) failed"
  exit 1
fi
echo "all kernel-table checks passed"
