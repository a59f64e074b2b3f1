# Shared by the checks against ONNX Runtime (test/onnx/real/check.sh,
# test/onnx/pytorch/check.sh): messages, timing, and the tools they need.
# Sourced after TFCC_BIN is set.

log() { echo "check.sh: $*"; }
die() { echo "check.sh: error: $*" >&2; exit 2; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

for tool in tfcc tfcc-run; do
  [ -x "$TFCC_BIN/$tool" ] || die "$TFCC_BIN/$tool not found (set TFCC_BIN or build first)"
done
command -v node >/dev/null || die "node not found (Debian: nodejs)"
