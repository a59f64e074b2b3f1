#!/bin/sh
# smoke_test.sh PROGRAM DATA_DIR OUT_DIR: trains 3 epochs on 2000 images and checks
# that the program succeeds, writes metrics.csv with one row per epoch and a
# checkpoint per epoch, that the training loss decreases, and that the saved best
# weights evaluate (--eval-checkpoint) to the accuracy the run reported.
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
echo PASS
