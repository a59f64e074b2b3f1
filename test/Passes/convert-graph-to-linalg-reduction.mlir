// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s

// keep_dims re-inserts the reduced dim with expand_shape.
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_sum_keep
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[SUM]] {{\[\[}}0, 1], [2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
func.func @reduce_sum_keep(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %r = graph.reduce_sum %x {axes = [-2], keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %r : tensor<2x1x4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_i32
// CHECK: %[[LOWEST:.*]] = arith.constant -2147483648 : i32
// CHECK: linalg.fill ins(%[[LOWEST]] : i32)
// CHECK: arith.maxsi
func.func @reduce_max_i32(%x: tensor<2x3xi32>) -> tensor<2xi32> {
  %r = graph.reduce_max %x {axes = [1]} : (tensor<2x3xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[COUNT:.*]] = arith.sitofp
// CHECK: arith.divf %{{.*}}, %[[COUNT]]
func.func @reduce_mean_dynamic(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %r = graph.reduce_mean %x {axes = [0]} : (tensor<?x3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// argmax carries (value, index); a strictly greater value (or the first
// NaN) takes over, so the first maximum wins ties.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[RESULTS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<2x5xf32>) outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xi32>)
// CHECK: arith.cmpf ogt
// CHECK: linalg.index 1
// CHECK: return %[[RESULTS]]#1 : tensor<2xi32>
func.func @argmax(%x: tensor<2x5xf32>) -> tensor<2xi32> {
  %r = graph.argmax %x {axis = -1} : (tensor<2x5xf32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}

// -----

// Softmax along axis 0: max, sum of exp(x - max), then the quotient.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax_axis0
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %[[MAX]], %[[SUM]]
// CHECK: arith.divf
func.func @softmax_axis0(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %r = graph.softmax %x {axis = 0} : tensor<?x5xf32>
  return %r : tensor<?x5xf32>
}
