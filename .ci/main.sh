#!/usr/bin/env bash
# The main job: install what is missing, build, compile examples/mnist with
# tfcc and classify Fashion-MNIST test images with it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh
bash .ci/build.sh
data=build/data
mkdir -p "$data"
for f in t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  [ -f "$data/$f" ] || gunzip -c "/usr/share/datasets/fashion-mnist/$f.gz" > "$data/$f"
done
build/bin/mnist_demo "$data/t10k-images-idx3-ubyte" "$data/t10k-labels-idx1-ubyte" 10
