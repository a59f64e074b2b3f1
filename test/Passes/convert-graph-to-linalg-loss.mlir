// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s

// Labels outside [0, classes) are reported (code 2) and clamped; the loss
// is max + log(sum exp(x - max)) - x[label], averaged over the batch.
// CHECK-LABEL: func.func @sparse_cross_entropy
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<?x5xf32>, %[[LABELS:.*]]: tensor<?xi64>)
// CHECK: scf.if
// CHECK: func.call @tfcc_rt_report_error
// CHECK: %[[TOTAL:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}}, %{{.*}}, %[[LABELS]] : tensor<?xf32>, tensor<?xf32>, tensor<?xi64>) outs(%{{.*}} : tensor<f32>)
// CHECK: tensor.extract %[[LOGITS]]
// CHECK: math.log
// CHECK: %[[N:.*]] = tensor.dim %[[LOGITS]], %c0
// CHECK: linalg.generic {{.*}} ins(%[[TOTAL]] : tensor<f32>)
// CHECK: arith.divf
func.func @sparse_cross_entropy(%l: tensor<?x5xf32>, %y: tensor<?xi64>) -> tensor<f32> {
  %r = graph.sparse_softmax_cross_entropy %l, %y : (tensor<?x5xf32>, tensor<?xi64>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @cross_entropy
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<f32>)
func.func @cross_entropy(%l: tensor<4x5xf32>, %p: tensor<4x5xf32>) -> tensor<f32> {
  %r = graph.softmax_cross_entropy %l, %p : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @mean_squared_error
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} {{.*}} outs(%{{.*}} : tensor<f32>)
// CHECK: arith.constant 1.200000e+01 : f32
func.func @mean_squared_error(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>) -> tensor<f32> {
  %r = graph.mean_squared_error %a, %b : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
