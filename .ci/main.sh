#!/usr/bin/env bash
# The main job: installs what is missing, builds what the demo needs (not the
# tests), then examples/main_job.sh: compile the Keras CNN's train step, train
# it on Fashion-MNIST on this machine, bake the trained weights into an
# inference library and classify the test set with it through its C header.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh
bash .ci/build.sh tfcc tfcc_runtime train_fashion_mnist fashion_mnist_data
bash examples/main_job.sh
