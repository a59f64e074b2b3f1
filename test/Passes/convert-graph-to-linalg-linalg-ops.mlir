// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s

// Float32 products call the runtime's GEMM kernel
// (convert-graph-to-linalg-kernels.mlir); the linalg path below serves f64
// and broadcast batch dims.
// CHECK-LABEL: func.func @matmul_2d
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf64>, tensor<3x4xf64>) outs(%[[ZERO]] : tensor<2x4xf64>)
func.func @matmul_2d(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %r = graph.matmul %a, %b : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %r : tensor<2x4xf64>
}

// -----

// A rank-2 rhs applies to every batch: collapse, one matmul, expand.
// CHECK-LABEL: func.func @matmul_shared_rhs
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x2x3xf64> into tensor<?x3xf64>
// CHECK: linalg.matmul
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape
func.func @matmul_shared_rhs(%a: tensor<?x2x3xf64>, %b: tensor<3x4xf64>) -> tensor<?x2x4xf64> {
  %r = graph.matmul %a, %b : (tensor<?x2x3xf64>, tensor<3x4xf64>) -> tensor<?x2x4xf64>
  return %r : tensor<?x2x4xf64>
}

// -----

// Transposes and broadcast batch dims: one generic over [batch, m, n, k].
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_transpose_b_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul_transpose_b_broadcast(%a: tensor<1x2x3xf32>, %b: tensor<5x4x3xf32>) -> tensor<5x2x4xf32> {
  %r = graph.matmul %a, %b {transpose_b = true} : (tensor<1x2x3xf32>, tensor<5x4x3xf32>) -> tensor<5x2x4xf32>
  return %r : tensor<5x2x4xf32>
}

// -----

// The bias, broadcast over the batch, is the accumulator's initial value.
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @dense
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[K:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x2xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #{{.*}}]{{.*}} ins(%[[B]] : tensor<2xf32>) outs(%[[EMPTY]]
// CHECK: linalg.matmul ins(%[[X]], %[[K]] : tensor<?x3xf32>, tensor<3x2xf32>) outs(%[[INIT]] : tensor<?x2xf32>)
func.func @dense(%x: tensor<?x3xf32>, %k: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<?x2xf32> {
  %r = graph.dense %x, %k, %b : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}
