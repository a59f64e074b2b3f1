// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -cse -split-input-file | FileCheck %s

// A 3x3 convolution: one call of the fused int8 convolution, which gathers
// the 27 taps of each of the n * 64 pixels into rows padded to 28 bytes
// (ldc; pad value 3, the zero point) per task and multiplies them (M = n *
// 64, N = 4, K = 28), requantizing (out_scale 0.25, zero point 7) with the
// bias and relu (activation 1): no rows buffer.
// The weights are packed at compile time: 16 columns x 7 groups of 4, then
// the column sums (27 for the 4 real columns, 0 for the padding), then the
// flag saying every pair of weights fits vpmaddubsw's int16 (1).
// CHECK: func.func private @tfcc_rt_qconv2d_u8s8_u8(!llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, f32, f32, f32, i32, !llvm.ptr)
// CHECK-LABEL: func.func @conv3x3
// CHECK: arith.constant dense<"0x01010101{{.*}}1B0000001B0000001B0000001B000000{{0+}}01000000"> : tensor<516xi8>
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK-NOT: memref.alloc({{.*}}) {{.*}} : memref<?x28xui8>
// CHECK: %[[Y:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x8x8x4xui8>
// CHECK: call @tfcc_rt_qconv2d_u8s8_u8(%{{.*}}, %{{.*}}, %c8_i64, %c8_i64, %c3_i64, %c3_i64, %c3_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c8_i64, %c8_i64, %c1_i64, %c1_i64, %c28_i64, %c3_i32, %{{.*}}, %c4_i64, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i32, %cst{{.*}}, %cst{{.*}}, %cst{{.*}}, %c7_i32, %{{.*}})
// CHECK-NOT: im2col
// CHECK: bufferization.to_tensor %[[Y]]
func.func @conv3x3(%x: tensor<?x8x8x3xui8>, %b: tensor<4xf32>) -> tensor<?x8x8x4xui8> {
  %w = graph.constant dense<1> : tensor<3x3x3x4xi8>
  %s = graph.constant dense<0.5> : tensor<4xf32>
  %y = graph.fused_conv2d_int8 %x, %w, %s bias %b {activation = "relu", dilations = [1, 1], out_scale = 2.500000e-01 : f32, out_zero_point = 7 : i64, pads = [1, 1, 1, 1], strides = [1, 1], x_zero_point = 3 : i64} : (tensor<?x8x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x8x8x4xui8>
  return %y : tensor<?x8x8x4xui8>
}

// -----

// A convolution with its max pooling (max_pool, tfcc-fuse-int8-ops): the
// kernel gets the convolution's output size (26 x 26) and the window
// (2 x 2); the result is the pooled 13 x 13.
// CHECK-LABEL: func.func @conv_max_pool
// CHECK: %[[Y:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x13x13x32xui8>
// CHECK: call @tfcc_rt_qconv2d_u8s8_u8(%{{.*}}, %{{.*}}, %c28_i64, %c28_i64, %c1_i64, %c3_i64, %c3_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c26_i64, %c26_i64, %c2_i64, %c2_i64, %c12_i64, %c127_i32,
// CHECK: bufferization.to_tensor %[[Y]]
func.func @conv_max_pool(%x: tensor<?x28x28x1xui8>) -> tensor<?x13x13x32xui8> {
  %w = graph.constant dense<1> : tensor<3x3x1x32xi8>
  %s = graph.constant dense<0.5> : tensor<32xf32>
  %y = graph.fused_conv2d_int8 %x, %w, %s {activation = "relu", dilations = [1, 1], max_pool = [2, 2], out_scale = 2.500000e-01 : f32, pads = [0, 0, 0, 0], strides = [1, 1], x_zero_point = 127 : i64} : (tensor<?x28x28x1xui8>, tensor<3x3x1x32xi8>, tensor<32xf32>) -> tensor<?x13x13x32xui8>
  return %y : tensor<?x13x13x32xui8>
}

// -----

// Weights of more than TFCC_RT_QCONV_FUSED_MAX_B_BYTES (3x3x128 -> 256:
// 16 panels x 288 groups x 64 bytes = 294,912 plus the sums): the rows are
// gathered whole first by tfcc_rt_im2col_u8 (K = 1152, strided, float
// output), then one int8 GEMM.
// CHECK-LABEL: func.func @conv_large_weights
// CHECK: %[[COLS:.*]] = memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?x1152xui8>
// CHECK: call @tfcc_rt_im2col_u8(%{{.*}}, %{{.*}}, %c9_i64, %c9_i64, %c128_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c0_i64, %c0_i64, %c4_i64, %c4_i64, %c5_i32, %c1152_i64, %{{.*}})
// CHECK: call @tfcc_rt_qgemm_u8s8_f32(%{{.*}}, %c256_i64, %c1152_i64, %{{.*}}, %c1152_i64, %c5_i32,
// CHECK: return
func.func @conv_large_weights(%x: tensor<?x9x9x128xui8>) -> tensor<?x4x4x256xf32> {
  %w = graph.constant dense<1> : tensor<3x3x128x256xi8>
  %s = graph.constant dense<0.5> : tensor<256xf32>
  %y = graph.fused_conv2d_int8 %x, %w, %s {dilations = [1, 1], pads = [0, 0, 0, 0], strides = [2, 2], x_zero_point = 5 : i64} : (tensor<?x9x9x128xui8>, tensor<3x3x128x256xi8>, tensor<256xf32>) -> tensor<?x4x4x256xf32>
  return %y : tensor<?x4x4x256xf32>
}

// -----

// Rows of more than TFCC_RT_QCONV_MAX_LDC bytes (3x3x512: 4608) are
// gathered whole first too; a smaller float-output convolution is the fused
// kernel's f32 form.
// CHECK-LABEL: func.func @conv_long_rows
// CHECK: call @tfcc_rt_im2col_u8({{.*}}, %c4608_i64, %{{.*}})
// CHECK: call @tfcc_rt_qgemm_u8s8_f32(%{{.*}}, %c2_i64, %c4608_i64,
// CHECK: call @tfcc_rt_qconv2d_u8s8_f32(%{{.*}}, %c1_i64, %c5_i64, %c5_i64, %c2_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c3_i64, %c3_i64, %c1_i64, %c1_i64, %c8_i64, %c0_i32, %{{.*}}, %c3_i64,
func.func @conv_long_rows(%x: tensor<1x4x4x512xui8>, %z: tensor<1x5x5x2xui8>) -> (tensor<1x2x2x2xf32>, tensor<1x3x3x3xf32>) {
  %w = graph.constant dense<1> : tensor<3x3x512x2xi8>
  %s = graph.constant dense<0.5> : tensor<2xf32>
  %y = graph.fused_conv2d_int8 %x, %w, %s {dilations = [1, 1], pads = [0, 0, 0, 0], strides = [1, 1], x_zero_point = 0 : i64} : (tensor<1x4x4x512xui8>, tensor<3x3x512x2xi8>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %w2 = graph.constant dense<1> : tensor<2x2x2x3xi8>
  %s2 = graph.constant dense<0.5> : tensor<3xf32>
  %y2 = graph.fused_conv2d_int8 %z, %w2, %s2 {dilations = [2, 2], pads = [0, 0, 0, 0], strides = [1, 1], x_zero_point = 0 : i64} : (tensor<1x5x5x2xui8>, tensor<2x2x2x3xi8>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  return %y, %y2 : tensor<1x2x2x2xf32>, tensor<1x3x3x3xf32>
}

// -----

// A 1x1 convolution reads its NHWC input in place as the [pixels, 6]
// matrix (no im2col, K = lda = 6) and writes float32.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: im2col
// CHECK: call @tfcc_rt_qgemm_u8s8_f32(%{{.*}}, %c5_i64, %c6_i64, %{{.*}}, %c6_i64, %c0_i32,
func.func @pointwise(%x: tensor<2x4x4x6xui8>) -> tensor<2x4x4x5xf32> {
  %w = graph.constant dense<1> : tensor<1x1x6x5xi8>
  %s = graph.constant dense<0.5> : tensor<5xf32>
  %y = graph.fused_conv2d_int8 %x, %w, %s {dilations = [1, 1], pads = [0, 0, 0, 0], strides = [1, 1], x_zero_point = 0 : i64} : (tensor<2x4x4x6xui8>, tensor<1x1x6x5xi8>, tensor<5xf32>) -> tensor<2x4x4x5xf32>
  return %y : tensor<2x4x4x5xf32>
}

// -----

// A dense layer: M is the product of the leading dims (batch * 3), weights
// that are not constant are packed at run time (tfcc_rt_qgemm_pack_b into a
// buffer of tfcc_rt_qgemm_packed_b_size(7, 2) = 16 * (8 + 4) + 4 bytes).
// CHECK-LABEL: func.func @dense
// CHECK: %[[B:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[M:.*]] = arith.muli %[[B]], %c3
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<196xi8>
// CHECK: %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[P]]
// CHECK: %[[PL:.*]] = arith.index_cast %[[PI]] : index to i64
// CHECK: %[[PA:.*]] = llvm.inttoptr %[[PL]] : i64 to !llvm.ptr
// CHECK: call @tfcc_rt_qgemm_pack_b(%c7_i64, %c2_i64, %{{.*}}, %[[PA]])
// CHECK: %[[MI:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK: call @tfcc_rt_qgemm_u8s8_f32(%[[MI]], %c2_i64, %c7_i64, %{{.*}}, %c7_i64, %c9_i32, %[[PA]],
func.func @dense(%x: tensor<?x3x7xui8>, %w: tensor<7x2xi8>) -> tensor<?x3x2xf32> {
  %s = graph.constant dense<0.5> : tensor<2xf32>
  %y = graph.fused_dense_int8 %x, %w, %s {x_zero_point = 9 : i64} : (tensor<?x3x7xui8>, tensor<7x2xi8>, tensor<2xf32>) -> tensor<?x3x2xf32>
  return %y : tensor<?x3x2xf32>
}

// -----

// A depthwise convolution: its int8 weights [3, 3, 2, 1] packed at compile
// time as floats (tap by tap, 2 channels) then each channel's weight sum
// (tfcc_rt_depthwise_u8s8_pack: 9 and -9), and one call of the uint8
// depthwise kernel with the geometry (h 6, w 5, c 2, 3x3, stride 2,
// dilation 1, pads top 1 and left 0, output 3x2), the input's zero point
// 4 and the requantization (out_scale 0.5, zero point 9).
// CHECK: func.func private @tfcc_rt_depthwise_conv2d_u8s8_u8(!llvm.ptr, i64, i64, i64, i64, i32, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i32, f32, f32, f32, i32, !llvm.ptr)
// CHECK-LABEL: func.func @depthwise
// CHECK: arith.constant dense<[1.000000e+00, -1.000000e+00, 1.000000e+00, -1.000000e+00, {{.*}}, 9.000000e+00, -9.000000e+00]> : tensor<20xf32>
// CHECK: call @tfcc_rt_depthwise_conv2d_u8s8_u8(%{{.*}}, %{{.*}}, %c6_i64, %c5_i64, %c2_i64, %c4_i32, %{{.*}}, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c0_i64, %c3_i64, %c2_i64, %{{.*}}, %{{.*}}, %c2_i32, %cst{{.*}}, %cst{{.*}}, %cst{{.*}}, %c9_i32, %{{.*}})
func.func @depthwise(%x: tensor<?x6x5x2xui8>) -> tensor<?x3x2x2xui8> {
  %w = graph.constant dense<[[[[1], [-1]], [[1], [-1]], [[1], [-1]]], [[[1], [-1]], [[1], [-1]], [[1], [-1]]], [[[1], [-1]], [[1], [-1]], [[1], [-1]]]]> : tensor<3x3x2x1xi8>
  %s = graph.constant dense<0.5> : tensor<2xf32>
  %y = graph.fused_conv2d_int8 %x, %w, %s {activation = "clip", beta = 6.0 : f32, depthwise = true, dilations = [1, 1], out_scale = 5.000000e-01 : f32, out_zero_point = 9 : i64, pads = [1, 1, 0, 1], strides = [2, 2], x_zero_point = 4 : i64} : (tensor<?x6x5x2xui8>, tensor<3x3x2x1xi8>, tensor<2xf32>) -> tensor<?x3x2x2xui8>
  return %y : tensor<?x3x2x2xui8>
}
