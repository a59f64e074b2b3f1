// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg="kernel-calls=false" -split-input-file -verify-diagnostics | FileCheck %s

// Without kernel calls (the CUDA target) the ops that lower to the runtime's
// CPU micro-kernels lower to linalg instead; an op that has no linalg
// lowering is an error naming it.

// CHECK-LABEL: func.func @matmul_softmax
// CHECK-NOT: func.call
// CHECK-NOT: tfcc_rt_
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: math.exp
func.func @matmul_softmax(%a: tensor<5x7xf32>, %b: tensor<7x9xf32>) -> tensor<5x9xf32> {
  %0 = graph.matmul %a, %b : (tensor<5x7xf32>, tensor<7x9xf32>) -> tensor<5x9xf32>
  %1 = graph.softmax %0 {axis = -1} : tensor<5x9xf32>
  return %1 : tensor<5x9xf32>
}

// -----

// CHECK-LABEL: func.func @pool_layer_norm
// CHECK-NOT: tfcc_rt_
// CHECK: linalg.pooling_nhwc_max
func.func @pool_layer_norm(%x: tensor<1x8x8x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = graph.max_pool2d %x {window = [2, 2], strides = [2, 2]} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = graph.layer_norm %0, %g, %b {axis = -1, epsilon = 1.0e-5 : f32} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}

// -----

func.func @top_k(%x: tensor<2x4xf32>) -> tensor<2x3xi64> {
  // expected-error @+1 {{tfcc cannot compile graph.top_k_indices (tensor<2x4xf32>) -> tensor<2x3xi64> for a GPU: it has no GPU lowering}}
  %0 = graph.top_k_indices %x {k = 3} : (tensor<2x4xf32>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}
