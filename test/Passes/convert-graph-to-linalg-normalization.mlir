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
