#!/usr/bin/env bash
# bench/run.sh --isa: what cannot take effect is refused by name with exit 2, before
# anything is installed or built.
#   run_isa_check.sh SOURCE_DIR
set -uo pipefail
RUN=$1/bench/run.sh
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_refusal() {  # expected-substring args...
  local want=$1; shift
  out=$(bash "$RUN" "$@" 2>&1); rc=$?
  [ $rc = 2 ] || fail "'$*' exited $rc, not 2: $out"
  grep -qF -- "$want" <<<"$out" || fail "'$*' said '$out', not '$want'"
}
expect_refusal "--isa needs a value" --isa
expect_refusal "--isa avx512: only avx2 can be emulated" --isa avx512
expect_refusal "--isa generic: only avx2 can be emulated" --isa=generic
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
  expect_refusal "drop --cpu/--target from --tfcc-flags" --isa avx2 --tfcc-flags=--cpu=znver3
  expect_refusal "drop --cpu/--target from --tfcc-flags" --isa avx2 --tfcc-flags "-O3 --cpu haswell"
  expect_refusal "drop --cpu/--target from --tfcc-flags" --isa=avx2 \
    --tfcc-flags=--target=aarch64-linux-gnu
else
  expect_refusal "--isa avx2: this CPU has no" --isa avx2
fi
echo PASS
