// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s
// Float32 NHWC pooling calls the runtime kernel
// (convert-graph-to-linalg-pool-kernels.mlir); this linalg path serves the
// other element types, here f64.

// Max pooling pads with -inf so that padding never wins.
// CHECK-LABEL: func.func @max_pool_same
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: tensor.yield %[[NEG_INF]]
// CHECK: linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
func.func @max_pool_same(%x: tensor<1x7x7x2xf64>) -> tensor<1x4x4x2xf64> {
  %r = graph.max_pool2d %x {window = [3, 3], strides = [2, 2], padding = "same"} : (tensor<1x7x7x2xf64>) -> tensor<1x4x4x2xf64>
  return %r : tensor<1x4x4x2xf64>
}

// -----

// Average pooling with SAME divides by the count of real elements: 4 in the
// corners, 6 on the edges, 9 inside.
// CHECK-DAG: #[[COUNTS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, 0)>
// CHECK-LABEL: func.func @avg_pool_same
// CHECK: %[[SUMS:.*]] = linalg.pooling_nhwc_sum
// CHECK: %[[COUNT:.*]] = arith.constant dense<{{\[\[}}[4.000000e+00], [6.000000e+00], [6.000000e+00], [6.000000e+00], [4.000000e+00]], {{\[\[}}6.000000e+00], [9.000000e+00]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[COUNTS]], #{{.*}}]
// CHECK-SAME: ins(%[[SUMS]], %[[COUNT]]
// CHECK: arith.divf
func.func @avg_pool_same(%x: tensor<?x5x5x2xf64>) -> tensor<?x5x5x2xf64> {
  %r = graph.avg_pool2d %x {window = [3, 3], strides = [1, 1], padding = "same"} : (tensor<?x5x5x2xf64>) -> tensor<?x5x5x2xf64>
  return %r : tensor<?x5x5x2xf64>
}

// -----

// CHECK-LABEL: func.func @global_avg
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction", "parallel"]
// CHECK: arith.addf
// CHECK: arith.divf
func.func @global_avg(%x: tensor<?x4x4x3xf64>) -> tensor<?x3xf64> {
  %r = graph.global_avg_pool2d %x : (tensor<?x4x4x3xf64>) -> tensor<?x3xf64>
  return %r : tensor<?x3xf64>
}
