// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s

// Parameters broadcast along the last axis.
// CHECK-DAG: #[[CHANNEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CHANNEL]], #[[CHANNEL]], #[[CHANNEL]], #[[CHANNEL]], #{{.*}}]
// CHECK: math.sqrt
func.func @batch_norm(%x: tensor<?x4x4x3xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x4x4x3xf32> {
  %r = graph.batch_norm %x, %g, %b, %m, %v : (tensor<?x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x4x4x3xf32>
  return %r : tensor<?x4x4x3xf32>
}

// -----

// layer_norm over axes [1, 2]: the sum, the squared deviations, then one
// elementwise pass reading the statistics through the reduced map. (Float32
// layer norms call the runtime's row-wise kernel instead,
// convert-graph-to-linalg-rowwise-kernels.mlir; this is the f64 path.)
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[TRAILING:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: %[[SQUARES:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[TRAILING]], #[[TRAILING]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %[[SUM]], %[[SQUARES]]
func.func @layer_norm(%x: tensor<2x5x8xf64>, %g: tensor<5x8xf64>, %b: tensor<5x8xf64>) -> tensor<2x5x8xf64> {
  %r = graph.layer_norm %x, %g, %b {axis = 1, epsilon = 1.0e-05 : f32} : (tensor<2x5x8xf64>, tensor<5x8xf64>, tensor<5x8xf64>) -> tensor<2x5x8xf64>
  return %r : tensor<2x5x8xf64>
}

// -----

// Training batch norm (float64: linalg; float32 calls the runtime's
// reductions, convert-graph-to-linalg-kernels.mlir). moments: the sum, the
// sum of squared deviations from sum / N, then rows [mean, variance] of a
// [2, C] tensor. batch_norm_train: scale = gamma * 1 / sqrt(var + eps) once
// per channel, then (x - mean) * scale + beta reading rows 0 of the moments
// through a constant-row map. grad_sums: sum dy and sum dy * (x - mean).
// train_grad: three per-channel coefficients, then one pass over x and dy.
// CHECK-DAG: #[[ROW0:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[ROW1:.*]] = affine_map<(d0) -> (1, d0)>
// CHECK-LABEL: func.func @batch_norm_train
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg0 : tensor<?x4x3xf64>)
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg0, %[[SUM]] :
// CHECK: arith.subf
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[SUM]], %[[SQ]] : tensor<3xf64>, tensor<3xf64>) outs(%{{.*}} : tensor<2x3xf64>)
// CHECK: linalg.index 0
// CHECK: %[[SCALE:.*]] = linalg.generic {indexing_maps = [#[[ROW1]], {{.*}}]{{.*}} ins(%[[M]], %arg2 : tensor<2x3xf64>, tensor<3xf64>)
// CHECK: math.sqrt
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[ROW0]], {{.*}}ins(%arg0, %[[M]], %[[SCALE]], %arg3 :
// CHECK: %[[SDY:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg1 : tensor<?x4x3xf64>)
// CHECK: %[[SDYXC:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg0, %arg1, %[[M]] :
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[SDY]], %[[SDYXC]] : tensor<3xf64>, tensor<3xf64>) outs(%{{.*}} : tensor<2x3xf64>)
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1, %[[M]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4x3xf64>, tensor<?x4x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
// CHECK: return %[[Y]], %[[DX]]
func.func @batch_norm_train(%x: tensor<?x4x3xf64>, %dy: tensor<?x4x3xf64>, %g: tensor<3xf64>, %b: tensor<3xf64>) -> (tensor<?x4x3xf64>, tensor<?x4x3xf64>) {
  %m = graph.moments %x : (tensor<?x4x3xf64>) -> tensor<2x3xf64>
  %y = graph.batch_norm_train %x, %m, %g, %b {epsilon = 1.0e-03 : f32} : (tensor<?x4x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<?x4x3xf64>
  %s = graph.batch_norm_grad_sums %x, %dy, %m : (tensor<?x4x3xf64>, tensor<?x4x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %dx = graph.batch_norm_train_grad %x, %dy, %m, %g, %s {epsilon = 1.0e-03 : f32} : (tensor<?x4x3xf64>, tensor<?x4x3xf64>, tensor<2x3xf64>, tensor<3xf64>, tensor<2x3xf64>) -> tensor<?x4x3xf64>
  return %y, %dx : tensor<?x4x3xf64>, tensor<?x4x3xf64>
}
