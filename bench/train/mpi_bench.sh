#!/usr/bin/env bash
# Data-parallel throughput (docs/distributed.md): the seed CNN's train step on
# Fashion-MNIST, one epoch of batch 64 per run, 2 ranks x 1 thread
# (tfcc-train --mpi under mpirun) against 1 process x 2 threads (tfcc-train),
# alternating for ROUNDS rounds in the same session; prints each run's ms/step
# and images/s, then the medians.
#   bench/train/mpi_bench.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
BUILD=${1:-build}
ROUNDS=${2:-3}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
"$BUILD/bin/tfcc" "$SRC/examples/train_fashion_mnist/mnist_cnn_train.mlir" \
  --split-train-step -o "$WORK/cnn.so"
ARGS=("$WORK/cnn.so" --idx-images "$BUILD/data/train-images-idx3-ubyte"
      --idx-labels "$BUILD/data/train-labels-idx1-ubyte" --batch-size 64 --epochs 1)
echo "ISA: $(grep -o 'avx[0-9a-z_]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
one=() two=()
for round in $(seq "$ROUNDS"); do
  a=$("$BUILD/bin/tfcc-train" "${ARGS[@]}" --threads 2 | grep -o '[0-9.]* ms/step' | cut -d' ' -f1)
  b=$(mpirun --oversubscribe -np 2 "$BUILD/bin/tfcc-train" --mpi "${ARGS[@]}" --threads 1 \
      | grep -o '[0-9.]* ms/step' | cut -d' ' -f1)
  echo "round $round: 1 process x 2 threads $a ms/step, 2 ranks x 1 thread $b ms/step"
  one+=("$a") two+=("$b")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
m1=$(median "${one[@]}") m2=$(median "${two[@]}")
awk -v a="$m1" -v b="$m2" 'BEGIN {
  printf "median: 1 process x 2 threads %.2f ms/step (%.0f images/s), 2 ranks x 1 thread %.2f ms/step (%.0f images/s): %.2fx the throughput\n",
         a, 64000 / a, b, 64000 / b, a / b }'
