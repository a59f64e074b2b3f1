// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -cse -split-input-file -mlir-elide-elementsattrs-if-larger=64 | FileCheck %s

// The lowering choice between the direct convolution kernel and Winograd
// F(2x2, 3x3) (useWinogradConv in passes/GraphToLinalg/Kernels.cpp, the
// runtime's tfcc_rt_conv2d_winograd_preferred rule): a 3x3, stride 1,
// dilation 1 convolution with a constant kernel, >= 32 input and output
// channels and >= 16 output pixels per image (here 12x12) calls the
// Winograd kernel on weights transformed at compile time: 16 points of
// [32][32] floats. Its arguments: x, batch, H, W, C, weights, OC, top/left
// pads, output H, W, bias, residual, activation, alpha, beta, y.
// CHECK: func.func private @tfcc_rt_conv2d_winograd_f32(!llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i32, f32, f32, !llvm.ptr)
// CHECK-LABEL: func.func @winograd
// CHECK: %[[W:.*]] = arith.constant dense_resource<__elided__> : tensor<16384xf32>
// CHECK: bufferization.to_memref %[[W]] read_only {tfcc.kernel_read = {{[0-9]+}} : i64} : memref<16384xf32>
// CHECK-NOT: tfcc_rt_conv2d_f32(
// CHECK: call @tfcc_rt_conv2d_winograd_f32(%{{.*}}, %{{.*}}, %c12_i64, %c12_i64, %c32_i64, %{{.*}}, %c32_i64, %c1_i64, %c1_i64, %c12_i64, %c12_i64, %{{.*}}, %{{.*}}, %c1_i32, %{{.*}}, %{{.*}}, %{{.*}})
func.func @winograd(%x: tensor<?x12x12x32xf32>, %b: tensor<32xf32>, %r: tensor<?x12x12x32xf32>) -> tensor<?x12x12x32xf32> {
  %k = graph.constant dense<0.5> : tensor<3x3x32x32xf32>
  %0 = graph.fused_conv2d %x, %k bias %b residual %r {activation = "relu", dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x12x12x32xf32>, tensor<3x3x32x32xf32>, tensor<32xf32>, tensor<?x12x12x32xf32>) -> tensor<?x12x12x32xf32>
  return %0 : tensor<?x12x12x32xf32>
}

// -----

// Too few output pixels per image (3x3), too few channels, or a stride of 2:
// the direct kernel.
// CHECK-LABEL: func.func @direct
// CHECK-NOT: call @tfcc_rt_conv2d_winograd_f32(
// CHECK-COUNT-3: call @tfcc_rt_conv2d_f32(
// CHECK-NOT: call @tfcc_rt_conv2d_winograd_f32(
func.func @direct(%x: tensor<1x3x3x32xf32>, %y: tensor<1x12x12x16xf32>, %z: tensor<1x24x24x32xf32>) -> (tensor<1x3x3x32xf32>, tensor<1x12x12x32xf32>, tensor<1x12x12x32xf32>) {
  %k = graph.constant dense<0.5> : tensor<3x3x32x32xf32>
  %k16 = graph.constant dense<0.5> : tensor<3x3x16x32xf32>
  %0 = graph.fused_conv2d %x, %k {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x3x3x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x3x3x32xf32>
  %1 = graph.fused_conv2d %y, %k16 {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x12x12x16xf32>, tensor<3x3x16x32xf32>) -> tensor<1x12x12x32xf32>
  %2 = graph.fused_conv2d %z, %k {dilations = [1, 1], pads = [1, 0, 1, 0], strides = [2, 2]} : (tensor<1x24x24x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x12x12x32xf32>
  return %0, %1, %2 : tensor<1x3x3x32xf32>, tensor<1x12x12x32xf32>, tensor<1x12x12x32xf32>
}

// -----

// A forward kernel that is not a constant (a train step's, see
// useWinogradConv): transformed at run time by tfcc_rt_winograd_pack into a
// buffer of 16 points of [32][32] floats, then the Winograd kernel.
// CHECK-LABEL: func.func @forward_variable
// CHECK: %[[U:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16384xf32>
// CHECK: call @tfcc_rt_winograd_pack(%c32_i64, %c32_i64, %{{.*}}, %{{.*}})
// CHECK: call @tfcc_rt_conv2d_winograd_f32(
// CHECK-NOT: call @tfcc_rt_conv2d_f32(
func.func @forward_variable(%w: tensor<?x12x12x32xf32>, %kv: tensor<3x3x32x32xf32>) -> tensor<?x12x12x32xf32> {
  %3 = graph.fused_conv2d %w, %kv {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<?x12x12x32xf32>, tensor<3x3x32x32xf32>) -> tensor<?x12x12x32xf32>
  return %3 : tensor<?x12x12x32xf32>
}

// -----

// The gradient of a 3x3 convolution with respect to its input (the stride-1
// convolution of dy with the flipped kernel, in and out channels swapped;
// mnist_cnn_train's conv2: 11x11x64 -> 13x13x32, pads 2) on a variable
// kernel: the flip (linalg.generic), then the Winograd transform at run time
// by tfcc_rt_winograd_pack(c = 64, oc = 32) into a buffer of 16 points of
// [64][32] floats (an arena buffer later), which the Winograd kernel reads.
// CHECK-DAG: func.func private @tfcc_rt_conv2d_winograd_f32(
// CHECK-DAG: func.func private @tfcc_rt_winograd_pack(i64, i64, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @backprop_input_variable
// CHECK-NOT: tfcc_rt_sgemm_pack_b
// CHECK: %[[FLIP:.*]] = linalg.generic
// CHECK: %[[U:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32768xf32>
// CHECK: %[[K:.*]] = bufferization.to_memref %[[FLIP]] read_only {tfcc.kernel_read = {{[0-9]+}} : i64} : memref<3x3x64x32xf32>
// CHECK: %[[KP:.*]] = memref.extract_aligned_pointer_as_index %[[K]]
// CHECK: %[[KA:.*]] = arith.index_cast %[[KP]]
// CHECK: %[[KI:.*]] = llvm.inttoptr %[[KA]] : i64 to !llvm.ptr
// CHECK: %[[UP:.*]] = memref.extract_aligned_pointer_as_index %[[U]]
// CHECK: %[[UA:.*]] = arith.index_cast %[[UP]]
// CHECK: %[[UI:.*]] = llvm.inttoptr %[[UA]] : i64 to !llvm.ptr
// CHECK: call @tfcc_rt_winograd_pack(%c64_i64, %c32_i64, %[[KI]], %[[UI]])
// CHECK-NOT: tfcc_rt_conv2d_f32(
// CHECK: call @tfcc_rt_conv2d_winograd_f32(%{{.*}}, %{{.*}}, %c11_i64, %c11_i64, %c64_i64, %[[UI]], %c32_i64, %c2_i64, %c2_i64, %c13_i64, %c13_i64, %{{.*}}, %{{.*}}, %c0_i32, %{{.*}}, %{{.*}}, %{{.*}})
func.func @backprop_input_variable(%dy: tensor<?x11x11x64xf32>, %k: tensor<3x3x32x64xf32>) -> tensor<?x13x13x32xf32> {
  %dx = graph.conv2d_backprop_input %dy, %k {input_size = [13, 13], padding = "valid", strides = [1, 1]} : (tensor<?x11x11x64xf32>, tensor<3x3x32x64xf32>) -> tensor<?x13x13x32xf32>
  return %dx : tensor<?x13x13x32xf32>
}

// -----

// A 7x7 gradient (from 5x5x64, pads 2): the rule takes it, and with a
// constant kernel it is transformed at compile time; a variable kernel's run-time
// transform would cost more than one image saves (9 * 49 - 16 * 16 = 185
// multiply-adds per channel pair, below 320): the direct kernel. A stride
// of 2 (dy spread out, then stride 1) takes the Winograd path too.
// CHECK-LABEL: func.func @backprop_input_rules
// CHECK: arith.constant dense_resource<__elided__> : tensor<32768xf32>
// CHECK-NOT: tfcc_rt_winograd_pack(
// CHECK: call @tfcc_rt_conv2d_winograd_f32(%{{.*}}, %{{.*}}, %c5_i64, %c5_i64, %c64_i64, %{{.*}}, %c32_i64, %c2_i64, %c2_i64, %c7_i64, %c7_i64,
// CHECK: call @tfcc_rt_sgemm_pack_b(
// CHECK: call @tfcc_rt_conv2d_f32(%{{.*}}, %{{.*}}, %c5_i64, %c5_i64, %c64_i64, %{{.*}}, %c32_i64, %c3_i64, %c3_i64,
// CHECK: call @tfcc_rt_winograd_pack(%c64_i64, %c32_i64,
// CHECK: call @tfcc_rt_conv2d_winograd_f32(%{{.*}}, %{{.*}}, %c11_i64, %c11_i64, %c64_i64, %{{.*}}, %c32_i64, %c1_i64, %c1_i64, %c11_i64, %c11_i64,
func.func @backprop_input_rules(%dy: tensor<?x5x5x64xf32>, %k: tensor<3x3x32x64xf32>, %dys: tensor<?x6x6x64xf32>) -> (tensor<?x7x7x32xf32>, tensor<?x7x7x32xf32>, tensor<?x11x11x32xf32>) {
  %kc = graph.constant dense<0.5> : tensor<3x3x32x64xf32>
  %0 = graph.conv2d_backprop_input %dy, %kc {input_size = [7, 7], padding = "valid", strides = [1, 1]} : (tensor<?x5x5x64xf32>, tensor<3x3x32x64xf32>) -> tensor<?x7x7x32xf32>
  %1 = graph.conv2d_backprop_input %dy, %k {input_size = [7, 7], padding = "valid", strides = [1, 1]} : (tensor<?x5x5x64xf32>, tensor<3x3x32x64xf32>) -> tensor<?x7x7x32xf32>
  %2 = graph.conv2d_backprop_input %dys, %k {input_size = [11, 11], padding = "same", strides = [2, 2]} : (tensor<?x6x6x64xf32>, tensor<3x3x32x64xf32>) -> tensor<?x11x11x32xf32>
  return %0, %1, %2 : tensor<?x7x7x32xf32>, tensor<?x7x7x32xf32>, tensor<?x11x11x32xf32>
}
