// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -cse -split-input-file -mlir-elide-elementsattrs-if-larger=64 | FileCheck %s

// The lowering choice between the direct convolution kernel and Winograd
// F(2x2, 3x3) (useWinogradConv in passes/GraphToLinalg/Kernels.cpp, the
// runtime's tfcc_rt_conv2d_winograd_preferred rule): a 3x3, stride 1,
// dilation 1 convolution with a constant kernel, >= 32 input and output
// channels and >= 16 output pixels per image (here 12x12) calls the
// Winograd kernel on weights transformed at compile time: 16 points of
// [32][32] floats. Its arguments: x, batch, H, W, C, weights, OC, top/left
// pads, output H, W, bias, residual, activation, alpha, beta, y.
// CHECK: func.func private @tfcc_rt_conv2d_winograd_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, f32, f32, i64)
// CHECK-LABEL: func.func @winograd
// CHECK: %[[W:.*]] = arith.constant dense_resource<__elided__> : tensor<16384xf32>
// CHECK: bufferization.to_memref %[[W]] read_only : memref<16384xf32>
// CHECK-NOT: tfcc_rt_conv2d_f32(
// CHECK: call @tfcc_rt_conv2d_winograd_f32(%{{.*}}, %{{.*}}, %c12_i64, %c12_i64, %c32_i64, %{{.*}}, %c32_i64, %c1_i64, %c1_i64, %c12_i64, %c12_i64, %{{.*}}, %{{.*}}, %c1_i32, %{{.*}}, %{{.*}}, %{{.*}})
func.func @winograd(%x: tensor<?x12x12x32xf32>, %b: tensor<32xf32>, %r: tensor<?x12x12x32xf32>) -> tensor<?x12x12x32xf32> {
  %k = graph.constant dense<0.5> : tensor<3x3x32x32xf32>
  %0 = graph.fused_conv2d %x, %k bias %b residual %r {activation = "relu", dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x12x12x32xf32>, tensor<3x3x32x32xf32>, tensor<32xf32>, tensor<?x12x12x32xf32>) -> tensor<?x12x12x32xf32>
  return %0 : tensor<?x12x12x32xf32>
}

// -----

// Too few output pixels per image (3x3), too few channels, a stride of 2,
// or a kernel that is not a constant: the direct kernel.
// CHECK-LABEL: func.func @direct
// CHECK-NOT: tfcc_rt_conv2d_winograd_f32(
// CHECK-COUNT-4: call @tfcc_rt_conv2d_f32(
// CHECK-NOT: tfcc_rt_conv2d_winograd_f32(
func.func @direct(%x: tensor<1x3x3x32xf32>, %y: tensor<1x12x12x16xf32>, %z: tensor<1x24x24x32xf32>, %w: tensor<1x12x12x32xf32>, %kv: tensor<3x3x32x32xf32>) -> (tensor<1x3x3x32xf32>, tensor<1x12x12x32xf32>, tensor<1x12x12x32xf32>, tensor<1x12x12x32xf32>) {
  %k = graph.constant dense<0.5> : tensor<3x3x32x32xf32>
  %k16 = graph.constant dense<0.5> : tensor<3x3x16x32xf32>
  %0 = graph.fused_conv2d %x, %k {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x3x3x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x3x3x32xf32>
  %1 = graph.fused_conv2d %y, %k16 {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x12x12x16xf32>, tensor<3x3x16x32xf32>) -> tensor<1x12x12x32xf32>
  %2 = graph.fused_conv2d %z, %k {dilations = [1, 1], pads = [1, 0, 1, 0], strides = [2, 2]} : (tensor<1x24x24x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x12x12x32xf32>
  %3 = graph.fused_conv2d %w, %kv {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x12x12x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x12x12x32xf32>
  return %0, %1, %2, %3 : tensor<1x3x3x32xf32>, tensor<1x12x12x32xf32>, tensor<1x12x12x32xf32>, tensor<1x12x12x32xf32>
}
