// RUN: tfcc-opt %s -tfcc-collapse-inner-loops -canonicalize | FileCheck %s
// RUN: tfcc-opt %s -tfcc-collapse-inner-loops -canonicalize -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | FileCheck %s --check-prefix=BUFFERS
// Compiled and compared with the interpreter: one-channel images and a
// per-channel operand through the whole pipeline (batch 3).
// RUN: tfcc-run %S/Inputs/collapse-inner-loops-model.mlir --compare --batch 3 | FileCheck %s --check-prefix=COMPARE

// A one-channel image (the map reads the channel as a constant 0): the unit
// loop is dropped, then the three trailing loops become one of 784; the
// dynamic batch stays; the op keeps its attributes.
// CHECK-LABEL: func.func @image
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<?x28x28x1xf32> into tensor<?x784xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<?x784xf32>) outs(%{{.*}} : tensor<?x784xi8>) attrs = {tfcc.test_mark}
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] {{.*}} : tensor<?x784xi8> into tensor<?x28x28x1xi8>
// Bufferized, the reshapes are views: no copy.
// BUFFERS-LABEL: func.func @image
// BUFFERS: memref.collapse_shape
// BUFFERS-NOT: memref.copy
// BUFFERS: return

// A per-channel operand reads only the last loop: nothing to collapse.
// CHECK-LABEL: func.func @per_channel
// CHECK-NOT: collapse_shape
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x7x7x4xf32>, tensor<4xf32>)

// A per-axis operand read through constant indices, (d1, 0, 0): left
// alone (MLIR 19's collapsing turned the constants into loop indices).
// CHECK-LABEL: func.func @per_axis
// CHECK-NOT: collapse_shape
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x3x4x4xf32>, tensor<3x1x1xf32>)

// Static loops of 2 x 3 x 8: one loop of 48.
// CHECK-LABEL: func.func @small
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<2x3x8xf32> into tensor<48xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<48xf32>) outs(%{{.*}} : tensor<48xf32>)

// An innermost loop of 64 already, a reduction, an op reading its indices:
// unchanged.
// CHECK-LABEL: func.func @wide
// CHECK-NOT: collapse_shape
// CHECK: ins(%{{.*}} : tensor<4x64xf32>)
// CHECK-LABEL: func.func @reduction
// CHECK-NOT: collapse_shape
// CHECK: ins(%{{.*}} : tensor<4x8xf32>)
// CHECK-LABEL: func.func @indices
// CHECK-NOT: collapse_shape
// CHECK: linalg.index 1

// COMPARE-DAG: output 0 [3, 28, 28, 1] f32: {{.*}} ok
// COMPARE-DAG: output 1 [3, 7, 7, 4] f32: {{.*}} ok

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @image(%x: tensor<?x28x28x1xf32>, %e: tensor<?x28x28x1xi8>) -> tensor<?x28x28x1xi8> {
  %s = arith.constant 0.5 : f32
  %q = linalg.generic {indexing_maps = [#in, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x28x28x1xf32>) outs(%e : tensor<?x28x28x1xi8>) attrs = {tfcc.test_mark} {
  ^bb0(%in: f32, %out: i8):
    %d = arith.divf %in, %s : f32
    %i = arith.fptosi %d : f32 to i8
    linalg.yield %i : i8
  } -> tensor<?x28x28x1xi8>
  return %q : tensor<?x28x28x1xi8>
}
func.func @per_channel(%x: tensor<2x7x7x4xf32>, %b: tensor<4xf32>) -> tensor<2x7x7x4xf32> {
  %e = tensor.empty() : tensor<2x7x7x4xf32>
  %y = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<2x7x7x4xf32>, tensor<4xf32>) outs(%e : tensor<2x7x7x4xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %a = arith.addf %in, %bias : f32
    linalg.yield %a : f32
  } -> tensor<2x7x7x4xf32>
  return %y : tensor<2x7x7x4xf32>
}
func.func @per_axis(%x: tensor<2x3x4x4xf32>, %s: tensor<3x1x1xf32>) -> tensor<2x3x4x4xf32> {
  %e = tensor.empty() : tensor<2x3x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<2x3x4x4xf32>, tensor<3x1x1xf32>) outs(%e : tensor<2x3x4x4xf32>) {
  ^bb0(%in: f32, %scale: f32, %out: f32):
    %a = arith.mulf %in, %scale : f32
    linalg.yield %a : f32
  } -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}
func.func @small(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %e = tensor.empty() : tensor<2x3x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x3x8xf32>) outs(%e : tensor<2x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.mulf %in, %in : f32
    linalg.yield %a : f32
  } -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}
func.func @wide(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.mulf %in, %in : f32
    linalg.yield %a : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
func.func @reduction(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %y = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @indices(%e: tensor<2x8xi64>) -> tensor<2x8xi64> {
  %y = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<2x8xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<2x8xi64>
  return %y : tensor<2x8xi64>
}
