// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file -verify-diagnostics

// Convolutions need static spatial sizes (the SAME padding is computed at
// compile time): the op is reported with its types and what to change, not
// with the conversion driver's "failed to legalize".
func.func @conv2d_dynamic_spatial(%x: tensor<1x?x?x1xf32>, %k: tensor<3x3x1x2xf32>) -> tensor<1x?x?x2xf32> {
  // expected-error @+1 {{tfcc cannot compile graph.conv2d (tensor<1x?x?x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x?x?x2xf32>: its lowering needs static sizes for every dimension but the first (the batch); give the model's inputs static sizes (tfcc --input-shape NAME=1x3x48x192, '?' keeps the batch)}}
  %r = graph.conv2d %x, %k : (tensor<1x?x?x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x?x?x2xf32>
  return %r : tensor<1x?x?x2xf32>
}

// -----

// So do the int8 kernels (tfcc-fuse-int8-ops leaves such convolutions float,
// but a hand-written op reaches the lowering): direct and depthwise.
func.func @conv2d_int8_dynamic_spatial(%x: tensor<?x?x8x3xui8>) -> tensor<?x?x8x4xf32> {
  %w = graph.constant dense<1> : tensor<3x3x3x4xi8>
  %s = graph.constant dense<0.5> : tensor<4xf32>
  // expected-error @+1 {{tfcc cannot compile graph.fused_conv2d_int8 (tensor<?x?x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>) -> tensor<?x?x8x4xf32>: its lowering needs static sizes for every dimension but the first (the batch)}}
  %y = graph.fused_conv2d_int8 %x, %w, %s {dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1], x_zero_point = 4 : i64} : (tensor<?x?x8x3xui8>, tensor<3x3x3x4xi8>, tensor<4xf32>) -> tensor<?x?x8x4xf32>
  return %y : tensor<?x?x8x4xf32>
}

// -----

// A max pooling only the convolution kernel takes, on a 1x1 convolution
// (a plain GEMM of x; tfcc-fuse-int8-ops never makes this, a hand-written
// op reaches the lowering).
func.func @conv2d_int8_pooled_pointwise(%x: tensor<1x8x8x4xui8>) -> tensor<1x4x4x16xf32> {
  %w = graph.constant dense<1> : tensor<1x1x4x16xi8>
  %s = graph.constant dense<0.5> : tensor<16xf32>
  // expected-error @+1 {{tfcc cannot compile graph.fused_conv2d_int8 (tensor<1x8x8x4xui8>, tensor<1x1x4x16xi8>, tensor<16xf32>) -> tensor<1x4x4x16xf32> with these attributes: a case its lowering does not handle}}
  %y = graph.fused_conv2d_int8 %x, %w, %s {dilations = [1, 1], max_pool = [2, 2], pads = [0, 0, 0, 0], strides = [1, 1], x_zero_point = 4 : i64} : (tensor<1x8x8x4xui8>, tensor<1x1x4x16xi8>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  return %y : tensor<1x4x4x16xf32>
}

// -----

func.func @depthwise_int8_dynamic_spatial(%x: tensor<?x?x5x2xui8>) -> tensor<?x?x5x2xf32> {
  %w = graph.constant dense<1> : tensor<3x3x2x1xi8>
  %s = graph.constant dense<0.5> : tensor<2xf32>
  // expected-error @+1 {{tfcc cannot compile graph.fused_conv2d_int8 (tensor<?x?x5x2xui8>, tensor<3x3x2x1xi8>, tensor<2xf32>) -> tensor<?x?x5x2xf32>: its lowering needs static sizes for every dimension but the first (the batch)}}
  %y = graph.fused_conv2d_int8 %x, %w, %s {depthwise = true, dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1], x_zero_point = 4 : i64} : (tensor<?x?x5x2xui8>, tensor<3x3x2x1xi8>, tensor<2xf32>) -> tensor<?x?x5x2xf32>
  return %y : tensor<?x?x5x2xf32>
}

// -----

// ui8 reaches only the lowerings that tell it from i8; a reduction would
// compute as signed.
func.func @ui8_reduction(%x: tensor<2x3xui8>) -> tensor<2xui8> {
  // expected-error @+1 {{'graph.reduce_max' op has ui8 operands or results, which tfcc compiles for casts, comparisons, elementwise arithmetic, data movement and (de)quantization only; cast to i32 or f32 first}}
  %r = graph.reduce_max %x {axes = [1]} : (tensor<2x3xui8>) -> tensor<2xui8>
  return %r : tensor<2xui8>
}

// -----

// uint8 max pooling is the kernel's, which needs the channel count: reported.
func.func @max_pool_uint8_dynamic_channels(%x: tensor<1x4x4x?xui8>) -> tensor<1x2x2x?xui8> {
  // expected-error @+1 {{tfcc cannot compile graph.max_pool2d (tensor<1x4x4x?xui8>) -> tensor<1x2x2x?xui8>: its lowering needs static sizes for every dimension but the first (the batch)}}
  %0 = graph.max_pool2d %x {window = [2, 2]} : (tensor<1x4x4x?xui8>) -> tensor<1x2x2x?xui8>
  return %0 : tensor<1x2x2x?xui8>
}
