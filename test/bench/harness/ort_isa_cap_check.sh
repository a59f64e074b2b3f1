#!/usr/bin/env bash
# bench/harness/ort_isa_cap.py: the capped copy of a library reads XCR0 as x87|SSE|AVX,
# only XGETBV instructions are patched (not the same bytes in data), and bad input is
# refused by name with a non-zero exit.
#   ort_isa_cap_check.sh CC SOURCE_DIR WORK_DIR
set -euo pipefail
CC=$1 SRC=$2 WORK=$3
CAP=$SRC/bench/harness/ort_isa_cap.py
[ "$(uname -m)" = x86_64 ] || { echo "skipped: XGETBV is x86-64"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >xcr0.c <<'C'
#include <stdint.h>
/* The same bytes as XGETBV, in data: must stay as they are. */
const unsigned char decoy[8] = {0x0f, 0x01, 0xd0, 0x0f, 0x01, 0xd0, 0, 0};
uint64_t read_xcr0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return lo;
}
C
"$CC" -O2 -shared -fPIC xcr0.c -o libxcr0.so
cat >noxgetbv.c <<'C'
int f(int x) { return x + 1; }
C
"$CC" -O2 -shared -fPIC noxgetbv.c -o libplain.so

n=$(/usr/bin/python3 "$CAP" libxcr0.so libcapped.so) || fail "capping libxcr0.so failed"
[ "$n" = 1 ] || fail "expected 1 XGETBV patched, got '$n'"
/usr/bin/python3 - <<'PY' || fail "capped library"
import ctypes
orig = ctypes.CDLL("./libxcr0.so")
cap = ctypes.CDLL("./libcapped.so")
for lib in (orig, cap):
    lib.read_xcr0.restype = ctypes.c_uint64
x0, x1 = orig.read_xcr0(), cap.read_xcr0()
assert x0 & 0x7 == 0x7, "this CPU's XCR0 %#x has no AVX state" % x0
assert x1 == 0x7, "capped XCR0 is %#x, not 0x7" % x1
d = (ctypes.c_ubyte * 8).in_dll(cap, "decoy")
assert bytes(d[:6]) == b"\x0f\x01\xd0\x0f\x01\xd0", "data bytes were patched: %r" % bytes(d)
print("XCR0 %#x -> %#x; data untouched" % (x0, x1))
PY

# Bad input: each refused by name, non-zero exit, nothing written.
expect_refusal() {  # expected-substring args...
  local want=$1; shift
  if out=$(/usr/bin/python3 "$CAP" "$@" 2>&1); then fail "accepted: $*"; fi
  echo "$out" | grep -q -- "$want" || fail "'$*' said '$out', not '$want'"
  ! grep -q Traceback <<<"$out" || fail "'$*' crashed: $out"
}
echo "not an ELF file" >notelf.so
expect_refusal "not a little-endian ELF64 file" notelf.so out1.so
expect_refusal "no xgetbv" libplain.so out2.so
expect_refusal "cannot read" missing.so out3.so
[ ! -e out1.so ] && [ ! -e out2.so ] && [ ! -e out3.so ] || fail "a refused run wrote its output"
echo "PASS"
