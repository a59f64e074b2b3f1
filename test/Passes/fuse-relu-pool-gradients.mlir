// RUN: tfcc-opt %s -tfcc-fuse-relu-pool-gradients -split-input-file | FileCheck %s
// RUN: tfcc-opt %s -tfcc-fuse-relu-pool-gradients -tfcc-fuse-ops -split-input-file | FileCheck %s --check-prefix=FUSED

// A train step's conv -> relu -> max_pool and its gradient: the ReLU mask
// compares the ReLU's output; the masked pooling gradient becomes
// max_pool2d_grad {positive_only}, and as the forward pool has the same
// input and geometry, it records the taps (with the mask) for the gradient
// to scatter through.
// CHECK-LABEL: func.func @relu_mask_into_pool_grad
// CHECK: %[[C:.*]] = graph.conv2d %arg0, %arg1
// CHECK: %[[R:.*]] = graph.relu %[[C]]
// CHECK: %[[P:.*]], %[[T:.*]] = graph.max_pool2d_with_indices %[[R]] {positive_only, strides = [2, 2], window = [2, 2]} : (tensor<?x4x4x2xf32>) -> (tensor<?x2x2x2xf32>, tensor<?x2x2x2xi8>)
// CHECK: %[[G:.*]] = graph.max_pool2d_grad_indices %[[T]], %arg2 {input_size = [4, 4], strides = [2, 2], window = [2, 2]}
// CHECK-NOT: graph.compare
// CHECK-NOT: graph.select
// CHECK: return %[[P]], %[[G]]
// The convolution's result then has one user, so tfcc-fuse-ops takes the
// ReLU into its epilogue.
// FUSED-LABEL: func.func @relu_mask_into_pool_grad
// FUSED: %[[C:.*]] = graph.fused_conv2d %arg0, %arg1 {activation = "relu"
// FUSED: graph.max_pool2d_with_indices %[[C]] {positive_only
// FUSED-NOT: graph.relu
func.func @relu_mask_into_pool_grad(%x: tensor<?x6x6x1xf32>, %k: tensor<3x3x1x2xf32>, %dp: tensor<?x2x2x2xf32>) -> (tensor<?x2x2x2xf32>, tensor<?x4x4x2xf32>) {
  %zero = graph.constant dense<0.0> : tensor<f32>
  %c = graph.conv2d %x, %k : (tensor<?x6x6x1xf32>, tensor<3x3x1x2xf32>) -> tensor<?x4x4x2xf32>
  %r = graph.relu %c : tensor<?x4x4x2xf32>
  %p = graph.max_pool2d %r {window = [2, 2], strides = [2, 2]} : (tensor<?x4x4x2xf32>) -> tensor<?x2x2x2xf32>
  %g = graph.max_pool2d_grad %r, %dp {window = [2, 2], strides = [2, 2]} : (tensor<?x4x4x2xf32>, tensor<?x2x2x2xf32>) -> tensor<?x4x4x2xf32>
  %m = graph.compare %c, %zero {predicate = "gt"} : (tensor<?x4x4x2xf32>, tensor<f32>) -> tensor<?x4x4x2xi1>
  %d = graph.select %m, %g, %zero : (tensor<?x4x4x2xi1>, tensor<?x4x4x2xf32>, tensor<f32>) -> tensor<?x4x4x2xf32>
  return %p, %d : tensor<?x2x2x2xf32>, tensor<?x4x4x2xf32>
}

// -----

// The mask stays when it is not a comparison with zero, or when the pooling
// gradient has another user.
// CHECK-LABEL: func.func @mask_kept
// CHECK: %[[G:.*]] = graph.max_pool2d_grad %arg0, %arg1 {strides = [2, 2], window = [2, 2]}
// CHECK: graph.compare %arg0, %{{.*}} {predicate = "gt"}
// CHECK: graph.select
// CHECK: graph.compare %arg0, %{{.*}} {predicate = "gt"}
// CHECK: graph.select
func.func @mask_kept(%r: tensor<1x4x4x2xf32>, %dp: tensor<1x2x2x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %zero = graph.constant dense<0.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %g = graph.max_pool2d_grad %r, %dp {window = [2, 2], strides = [2, 2]} : (tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x4x4x2xf32>
  %m = graph.compare %r, %half {predicate = "gt"} : (tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x4x4x2xi1>
  %d = graph.select %m, %g, %zero : (tensor<1x4x4x2xi1>, tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x4x4x2xf32>
  %m2 = graph.compare %r, %zero {predicate = "gt"} : (tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x4x4x2xi1>
  %d2 = graph.select %m2, %g, %zero : (tensor<1x4x4x2xi1>, tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x4x4x2xf32>
  return %d, %d2, %g : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}

// -----

// Without a forward pool of the same geometry (here: other strides), the
// gradient keeps reading x.
// CHECK-LABEL: func.func @pool_taps_not_recorded
// CHECK: graph.max_pool2d %arg0 {strides = [1, 1], window = [2, 2]}
// CHECK: graph.max_pool2d_grad %arg0, %arg1 {strides = [2, 2], window = [2, 2]}
// CHECK-NOT: indices
func.func @pool_taps_not_recorded(%x: tensor<1x4x4x2xf32>, %dp: tensor<1x2x2x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x4x4x2xf32>) {
  %p = graph.max_pool2d %x {window = [2, 2], strides = [1, 1]} : (tensor<1x4x4x2xf32>) -> tensor<1x3x3x2xf32>
  %g = graph.max_pool2d_grad %x, %dp {window = [2, 2], strides = [2, 2]} : (tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x4x4x2xf32>
  return %p, %g : tensor<1x3x3x2xf32>, tensor<1x4x4x2xf32>
}
