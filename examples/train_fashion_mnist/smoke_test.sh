#!/bin/sh
# smoke_test.sh PROGRAM DATA_DIR OUT_DIR: trains 3 epochs on 2000 images and checks
# that the program succeeds, writes metrics.csv with one row per epoch and a
# checkpoint per epoch, that the training loss decreases, that the saved best
# weights evaluate (--eval-checkpoint) to the accuracy the run reported, and that
# the inference build with those weights baked in (tfcc --no-train --weights) gets
# the same accuracy (at most 2 of the 1000 test images classified differently:
# batch norm folded into the weights rounds differently). A tfcc that cannot be
# run is an error. The moving average of the weights (--ema-momentum) leaves the
# training itself unchanged, and a momentum outside [0, 1) is an error.
set -eu
prog=$1 data=$2 out=$3
rm -rf "$out"
"$prog" --data "$data" --out "$out" --epochs 3 --patience 3 --limit-train 2000 \
  --limit-test 1000 > "$out.log"
cat "$out.log"
csv=$out/metrics.csv
test "$(head -1 "$csv")" = \
  "epoch,train_loss,train_accuracy,val_loss,val_accuracy,images_per_s,epoch_seconds"
test "$(wc -l < "$csv")" -eq 4
for e in 1 2 3; do ls "$out"/epoch_$e.* > /dev/null; done
awk -F, 'NR == 2 { first = $2 } NR == 4 { last = $2 }
         END { if (!(last < first)) { print "loss did not decrease: " first " -> " last; exit 1 }
               print "train loss " first " -> " last }' "$csv"
acc=$(sed -n 's/^test: .*accuracy \([0-9.]*\).*/\1/p' "$out.log")
test -n "$acc"
"$prog" --data "$data" --limit-test 1000 --eval-checkpoint "$(ls "$out"/best.*)" > "$out.eval"
cat "$out.eval"
grep -q "test accuracy $acc " "$out.eval"
test -f "$out/fashion_mnist.so"
sed -n 's/^inference build .*: test accuracy \([0-9.]*\) (1000 images); \([0-9]*\) classified differently.*/\1 \2/p' \
  "$out.log" | awk -v acc="$acc" '{ d = $1 - acc; if (d < 0) d = -d; n++ }
    END { if (n != 1 || d > 0.002 || $2 > 2) { print "inference build: " $0 " vs " acc; exit 1 }
          print "inference build accuracy " $1 " (" $2 " predictions differ)" }'
# The weight average only changes what is evaluated: without it (--ema-momentum 0)
# the training losses are the same to the digit and the validation losses differ.
"$prog" --data "$data" --out "$out.raw" --epochs 3 --patience 3 --limit-train 2000 \
  --limit-test 1000 --ema-momentum 0 --no-export > "$out.raw.log"
test "$(cut -d, -f2 "$csv")" = "$(cut -d, -f2 "$out.raw/metrics.csv")"
if test "$(cut -d, -f4 "$csv")" = "$(cut -d, -f4 "$out.raw/metrics.csv")"; then
  echo "the weight average did not change the validation loss"; exit 1
fi
if "$prog" --data "$data" --limit-train 200 --limit-test 100 --ema-momentum 1 \
     > "$out.bad.log" 2>&1; then
  echo "--ema-momentum 1 was not an error"; exit 1
fi
grep -q "ema-momentum 1 is not in \[0, 1)" "$out.bad.log"
if "$prog" --data "$data" --out "$out.bad" --epochs 1 --limit-train 200 --limit-test 100 \
     --tfcc /nonexistent/tfcc > "$out.bad.log" 2>&1; then
  echo "a missing tfcc was not an error"; exit 1
fi
grep -q "cannot run /nonexistent/tfcc" "$out.bad.log"
echo PASS
