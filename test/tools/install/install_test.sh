#!/usr/bin/env bash
# install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR: `cmake --install` into a fresh
# prefix, then use only the installed tree, as a user would:
#   1. the installed tfcc compiles a model (finding its runtime archive beside
#      itself) and the installed package's tfcc.load(...).predict(x) equals the
#      installed tfcc-run's outputs for the same input;
#   2. an outside CMake project (find_package(tfcc), tfcc_add_model, static and
#      shared) builds, and its programs print outputs equal to tfcc-run's;
#   3. tfcc_add_model refuses OPTIONS that it sets itself.
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/tfcc bin/tfcc-run bin/tfcc-serve bin/tfcc-train lib/libtfcc_runtime.a \
         lib/cmake/tfcc/tfccConfig.cmake lib/cmake/tfcc/TfccAddModel.cmake \
         lib/python3/dist-packages/tfcc/__init__.py include/tfcc/tfcc_types.h \
         lib/libtfcc_summary.a include/tfcc/tfcc_summary.h; do
  [ -e "$prefix/$f" ] || { echo "FAILED: $f not installed"; exit 1; }
done
"$prefix/bin/tfcc-serve" --help > /dev/null

# 1. The installed compiler and Python package.
cp "$src/examples/mnist/mnist_cnn.mlir" "$work/model.mlir"
"$prefix/bin/tfcc" "$work/model.mlir" -o "$work/cnn.so"
/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
work = sys.argv[1]
x = np.random.default_rng(1).uniform(0, 1, (3, 28, 28, 1)).astype(np.float32)
np.save(f"{work}/x.npy", x)
PY
"$prefix/bin/tfcc-run" "$work/cnn.so" --input "$work/x.npy" --output-dir "$work/ref" > /dev/null
# Run from elsewhere so that nothing but the installed package can be imported.
(cd / && PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c "
import sys, numpy as np, tfcc
assert tfcc.__file__.startswith('$prefix/'), tfcc.__file__
m = tfcc.load('$work/cnn.so')
y = m.predict(np.load('$work/x.npy'))
ref = np.load('$work/ref/output_0.npy')
assert y.shape == ref.shape and np.array_equal(y, ref), (y, ref)
print('installed package: predict equals tfcc-run, shape', y.shape)
")

# 2. An outside project against the installed tree.
mkdir -p "$work/outside"
cp "$work/model.mlir" "$work/outside/model.mlir"
cat > "$work/outside/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(outside C)
find_package(tfcc 0.1 REQUIRED)
tfcc_add_model(cnn model.mlir)
tfcc_add_model(cnn_shared model.mlir SHARED OPTIONS --cpu=x86-64-v3)
add_executable(app main.c)
target_link_libraries(app PRIVATE cnn)
add_executable(app_shared main_shared.c)
target_link_libraries(app_shared PRIVATE cnn_shared)
CM
for variant in cnn cnn_shared; do
  file=main.c; [ $variant = cnn_shared ] && file=main_shared.c
  cat > "$work/outside/$file" <<C
#include "$variant.h"
#include <stdio.h>
/* Reads 3 images (raw float32) from argv[1], prints the 30 probabilities. */
int main(int argc, char** argv) {
  static float x[3 * 28 * 28], y[3 * 10];
  FILE* f = argc > 1 ? fopen(argv[1], "rb") : NULL;
  if (!f || fread(x, sizeof x, 1, f) != 1) return 2;
  fclose(f);
  tfcc_context* ctx;
  tfcc_status_t s = ${variant}_create(3, &ctx);
  if (s == TFCC_OK) s = ${variant}_predict(ctx, 3, x, y);
  if (s != TFCC_OK) { fprintf(stderr, "%s\n", ${variant}_status_string(s)); return 1; }
  for (int i = 0; i < 30; ++i) printf("%.9g\n", y[i]);
  ${variant}_destroy(ctx);
  return 0;
}
C
done
cmake -S "$work/outside" -B "$work/outside/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/outside-configure.log"
cmake --build "$work/outside/build" > "$work/outside-build.log"
/usr/bin/python3 -c "
import numpy as np
np.load('$work/x.npy').tofile('$work/x.raw')
np.savetxt('$work/ref.txt', np.load('$work/ref/output_0.npy').reshape(-1), fmt='%.9g')"
for app in app app_shared; do
  "$work/outside/build/$app" "$work/x.raw" > "$work/$app.txt"
  /usr/bin/python3 -c "
import numpy as np, sys
got = np.loadtxt('$work/$app.txt', dtype=np.float32)
ref = np.loadtxt('$work/ref.txt', dtype=np.float32)
# The shared build is pinned to AVX2 (--cpu): other kernels, same results
# up to float reassociation.
tol = 0 if '$app' == 'app' else 1e-5
err = np.max(np.abs(got - ref))
print('$app: max abs difference to tfcc-run', err, '(tolerance', tol, ')')
sys.exit(0 if got.shape == ref.shape and err <= tol else 1)"
done
[ -f "$work/outside/build/tfcc_models/cnn/cnn.h" ] || { echo "FAILED: no cnn.h"; exit 1; }

# 3. OPTIONS that tfcc_add_model sets itself are refused at configure time.
mkdir -p "$work/refused"
cp "$work/model.mlir" "$work/refused/"
cat > "$work/refused/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(refused C)
find_package(tfcc REQUIRED)
tfcc_add_model(cnn model.mlir OPTIONS -o other.so)
CM
if cmake -S "$work/refused" -B "$work/refused/build" -DCMAKE_PREFIX_PATH="$prefix" \
     > "$work/refused.log" 2>&1; then
  echo "FAILED: OPTIONS -o accepted"; exit 1
fi
grep -q "OPTIONS cannot hold '-o'" "$work/refused.log" || { cat "$work/refused.log"; exit 1; }
echo "install test passed"
