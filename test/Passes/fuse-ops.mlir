// RUN: tfcc-opt %s -tfcc-fuse-ops -split-input-file | FileCheck %s

// A plain convolution becomes a fused op with explicit SAME padding (the odd
// row/column at the bottom/right, as TF does).
// CHECK-LABEL: func.func @conv_same
// CHECK: %[[R:.*]] = graph.fused_conv2d %arg0, %arg1 {dilations = [1, 1], pads = [0, 1, 0, 1], strides = [2, 2]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x4x4x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @conv_same(%x: tensor<?x8x8x3xf32>, %k: tensor<3x3x3x4xf32>) -> tensor<?x4x4x4xf32> {
  %0 = graph.conv2d %x, %k {padding = "same", strides = [2, 2]} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

// pad -> conv -> add(bias) -> relu: the pad becomes the kernel's padding, the
// constant add the bias, the relu the activation.
// CHECK-LABEL: func.func @pad_conv_bias_relu
// CHECK-DAG: %[[BIAS:.*]] = graph.constant dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf32>
// CHECK: %[[R:.*]] = graph.fused_conv2d %arg0, %arg1 bias %[[BIAS]] {activation = "relu", {{.*}}pads = [1, 2, 3, 0]{{.*}}} : (tensor<1x4x4x1xf32>, tensor<1x1x1x2xf32>, tensor<2xf32>) -> tensor<1x7x7x2xf32>
// CHECK-NOT: graph.pad
// CHECK-NOT: graph.add
// CHECK-NOT: graph.relu
// CHECK: return %[[R]]
func.func @pad_conv_bias_relu(%x: tensor<1x4x4x1xf32>, %k: tensor<1x1x1x2xf32>) -> tensor<1x7x7x2xf32> {
  %b0 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b1 = graph.constant dense<[[[[0.5, 0.5]]]]> : tensor<1x1x1x2xf32>
  %p = graph.pad %x {pads = [0, 0, 1, 2, 3, 0, 0, 0]} : (tensor<1x4x4x1xf32>) -> tensor<1x7x7x1xf32>
  %c = graph.conv2d %p, %k, %b0 : (tensor<1x7x7x1xf32>, tensor<1x1x1x2xf32>, tensor<2xf32>) -> tensor<1x7x7x2xf32>
  %a = graph.add %c, %b1 : (tensor<1x7x7x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x7x7x2xf32>
  %r = graph.relu %a : tensor<1x7x7x2xf32>
  return %r : tensor<1x7x7x2xf32>
}

// -----

// batch_norm after a convolution with constant weights folds into them:
// scale = gamma / sqrt(var + eps) = [2, 0.5]; kernel * scale per output
// channel; bias = (0 - mean) * scale + beta = [-2 + 1, -1.5 + 0] = [-1, -1.5].
// The residual add of a same-shaped tensor then relu6 complete the epilogue.
// CHECK-LABEL: func.func @conv_bn_residual_relu6
// CHECK-DAG: %[[K:.*]] = graph.constant dense<{{\[\[\[\[}}2.000000e+00, 5.000000e-01], [4.000000e+00, 1.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[-1.000000e+00, -1.500000e+00]> : tensor<2xf32>
// CHECK: %[[R:.*]] = graph.fused_conv2d %arg0, %[[K]] bias %[[B]] residual %arg1 {activation = "clip", beta = 6.000000e+00 : f32
// CHECK-NOT: graph.batch_norm
// CHECK: return %[[R]]
func.func @conv_bn_residual_relu6(%x: tensor<?x3x3x2xf32>, %shortcut: tensor<?x3x3x2xf32>) -> tensor<?x3x3x2xf32> {
  %k = graph.constant dense<[[[[1.0, 1.0], [2.0, 2.0]]]]> : tensor<1x1x2x2xf32>
  %gamma = graph.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %beta = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = graph.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.5, 3.5]> : tensor<2xf32>
  %c = graph.conv2d %x, %k : (tensor<?x3x3x2xf32>, tensor<1x1x2x2xf32>) -> tensor<?x3x3x2xf32>
  %n = graph.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 0.5 : f32} : (tensor<?x3x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x3x3x2xf32>
  %s = graph.add %shortcut, %n : (tensor<?x3x3x2xf32>, tensor<?x3x3x2xf32>) -> tensor<?x3x3x2xf32>
  %r = graph.relu6 %s : tensor<?x3x3x2xf32>
  return %r : tensor<?x3x3x2xf32>
}

// -----

// Depthwise: the output channel c * m + mi is innermost in the kernel too, so
// batch_norm scales kernel[..., c, mi] by scale[c * m + mi].
// CHECK-LABEL: func.func @depthwise_bn_hard_swish
// CHECK-DAG: %[[K:.*]] = graph.constant dense<{{\[\[\[\[}}2.000000e+00, 6.000000e+00], [1.500000e+01, 2.800000e+01]]]]> : tensor<1x1x2x2xf32>
// CHECK: graph.fused_conv2d %arg0, %[[K]] bias %{{.*}} {activation = "hard_swish", {{.*}}depthwise = true
func.func @depthwise_bn_hard_swish(%x: tensor<1x5x5x2xf32>) -> tensor<1x5x5x4xf32> {
  %k = graph.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %gamma = graph.constant dense<[2.0, 3.0, 5.0, 7.0]> : tensor<4xf32>
  %zero = graph.constant dense<0.0> : tensor<4xf32>
  %one = graph.constant dense<1.0> : tensor<4xf32>
  %c = graph.depthwise_conv2d %x, %k : (tensor<1x5x5x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x5x5x4xf32>
  %n = graph.batch_norm %c, %gamma, %zero, %zero, %one {epsilon = 0.0 : f32} : (tensor<1x5x5x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x5x5x4xf32>
  %h = graph.hard_swish %n : tensor<1x5x5x4xf32>
  return %h : tensor<1x5x5x4xf32>
}

// -----

// Dense with its bias add and activation; a matmul by a constant transposed
// matrix becomes a dense with the matrix transposed at compile time.
// CHECK-LABEL: func.func @dense_and_matmul
// CHECK-DAG: %[[T:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[D:.*]] = graph.fused_dense %arg0, %arg1 bias %arg2 {activation = "leaky_relu", alpha = 1.000000e-01 : f32
// CHECK: graph.fused_dense %[[D]], %[[T]] {activation = "sigmoid"
func.func @dense_and_matmul(%x: tensor<?x3xf32>, %k: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<?x2xf32> {
  %w = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %d = graph.dense %x, %k, %b : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %l = graph.leaky_relu %d {alpha = 0.1 : f32} : tensor<?x2xf32>
  %m = graph.matmul %l, %w {transpose_b = true} : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %s = graph.sigmoid %m : tensor<?x2xf32>
  return %s : tensor<?x2xf32>
}

// -----

// What must not fuse: a conv result with a second user keeps its epilogue
// empty (the relu stays), a non-zero pad stays, grouped convolutions with
// several channels per group, f64,
// and a matmul of two activations stay as they are.
// CHECK-LABEL: func.func @not_fused
// CHECK: graph.pad
// CHECK: %[[C:.*]] = graph.fused_conv2d %0, %arg1 {dilations
// CHECK: graph.relu %[[C]]
// CHECK: graph.conv2d {{.*}}groups = 2
// CHECK: graph.dense {{.*}}f64
// CHECK: graph.matmul
func.func @not_fused(%x: tensor<1x4x4x2xf32>, %k: tensor<1x1x2x2xf32>, %xg: tensor<1x4x4x4xf32>, %kg: tensor<1x1x2x4xf32>,
                     %xd: tensor<1x2xf64>, %kd: tensor<2x2xf64>, %a: tensor<2x2xf32>, %b: tensor<2x2xf32>)
    -> (tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>, tensor<1x4x4x4xf32>, tensor<1x2xf64>, tensor<2x2xf32>) {
  %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0], value = 1.0 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x6x6x2xf32>
  %c = graph.conv2d %p, %k : (tensor<1x6x6x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x6x6x2xf32>
  %r = graph.relu %c : tensor<1x6x6x2xf32>
  %g = graph.conv2d %xg, %kg {groups = 2} : (tensor<1x4x4x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x4x4x4xf32>
  %d = graph.dense %xd, %kd : (tensor<1x2xf64>, tensor<2x2xf64>) -> tensor<1x2xf64>
  %m = graph.matmul %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %c, %r, %g, %d, %m : tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>, tensor<1x4x4x4xf32>, tensor<1x2xf64>, tensor<2x2xf32>
}

// -----

// ONNX's depthwise form (one group per input channel, kernel [kh, kw, 1,
// c * m]) becomes a depthwise fused op on the kernel reshaped to [kh, kw, c,
// m]. (A pad of an NCHW input reaches the convolution through
// tfcc-sink-pads-through-transposes: sink-pads-through-transposes.mlir.)
// CHECK-LABEL: func.func @grouped_depthwise
// CHECK: %[[K:.*]] = graph.reshape %arg1 : (tensor<3x3x1x6xf32>) -> tensor<3x3x3x2xf32>
// CHECK: graph.fused_conv2d %arg0, %[[K]] {depthwise = true, dilations = [1, 1], pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x6xf32>
func.func @grouped_depthwise(%x: tensor<1x6x6x3xf32>, %k: tensor<3x3x1x6xf32>) -> tensor<1x4x4x6xf32> {
  %c = graph.conv2d %x, %k {groups = 3} : (tensor<1x6x6x3xf32>, tensor<3x3x1x6xf32>) -> tensor<1x4x4x6xf32>
  return %c : tensor<1x4x4x6xf32>
}

// -----

// A batch norm after a convolution of dequantized int8 weights scales the
// dequantize's per-channel scales, not the integers: gamma / sqrt(var + eps)
// = [2, -0.5] (eps 0) times the scales [0.5, 0.25] = [1, -0.125]; the bias
// becomes (0 - mean) * scale + beta = [-1 + 1, 0.5 + 0] = [0, 0.5].
// CHECK-LABEL: func.func @batch_norm_of_int8_kernel
// CHECK-DAG: %[[S:.*]] = graph.constant dense<[1.000000e+00, -1.250000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<0> : tensor<2xi8>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[0.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[W:.*]] = graph.dequantize %{{.*}}, %[[S]], %[[Z]] {axis = 3 : i64} : (tensor<1x1x3x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x1x3x2xf32>
// CHECK: graph.fused_conv2d %arg0, %[[W]] bias %[[B]]
// CHECK-NOT: graph.batch_norm
func.func @batch_norm_of_int8_kernel(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x2xf32> {
  %wq = graph.constant dense<1> : tensor<1x1x3x2xi8>
  %ws = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %wz = graph.constant dense<0> : tensor<2xi8>
  %w = graph.dequantize %wq, %ws, %wz {axis = 3} : (tensor<1x1x3x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x1x3x2xf32>
  %c = graph.conv2d %x, %w {strides = [1, 1], dilations = [1, 1], padding = "valid"} : (tensor<1x4x4x3xf32>, tensor<1x1x3x2xf32>) -> tensor<1x4x4x2xf32>
  %gamma = graph.constant dense<[2.0, -0.5]> : tensor<2xf32>
  %beta = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = graph.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %var = graph.constant dense<1.0> : tensor<2xf32>
  %y = graph.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// -----

// x @ W^T with W dequantized int8 constants (an ONNX Gemm with transB) is a
// dense layer whose kernel is the transpose as an op (tfcc-fuse-int8-ops
// then takes the integers); the add of a dequantized int32 constant (a QDQ
// model's bias: ([10, -20] - 0) * 0.5) is a bias computed at compile time.
// CHECK-LABEL: func.func @int8_gemm
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[5.000000e+00, -1.000000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[W:.*]] = graph.dequantize
// CHECK-DAG: %[[WT:.*]] = graph.transpose %[[W]] {perm = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: graph.fused_dense %arg0, %[[WT]] bias %[[B]] : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK-NOT: graph.add
func.func @int8_gemm(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %wq = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %ws = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %wz = graph.constant dense<0> : tensor<2xi8>
  %w = graph.dequantize %wq, %ws, %wz {axis = 0} : (tensor<2x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3xf32>
  %m = graph.matmul %x, %w {transpose_b = true} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x2xf32>
  %bq = graph.constant dense<[10, -20]> : tensor<2xi32>
  %bs = graph.constant dense<0.5> : tensor<f32>
  %bz = graph.constant dense<0> : tensor<i32>
  %b = graph.dequantize %bq, %bs, %bz : (tensor<2xi32>, tensor<f32>, tensor<i32>) -> tensor<2xf32>
  %y = graph.add %m, %b : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// Convolutions over a dynamic H and W fuse when their padding is explicit
// (VALID, a pad op folded in): the kernel takes H and W at run time. SAME
// padding over a dynamic dim would need its pads at run time: not fused.
// CHECK-LABEL: func.func @conv_dynamic_hw
// CHECK: graph.fused_conv2d %arg0, %arg1 {{.*}}pads = [1, 1, 1, 1]{{.*}} : (tensor<?x?x?x3xf32>, tensor<3x3x3x8xf32>) -> tensor<?x?x?x8xf32>
// CHECK: graph.conv2d {{.*}}padding = "same"
func.func @conv_dynamic_hw(%x: tensor<?x?x?x3xf32>, %k: tensor<3x3x3x8xf32>) -> (tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32>) {
  %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<?x?x?x3xf32>) -> tensor<?x?x?x3xf32>
  %0 = graph.conv2d %p, %k {strides = [2, 2]} : (tensor<?x?x?x3xf32>, tensor<3x3x3x8xf32>) -> tensor<?x?x?x8xf32>
  %1 = graph.conv2d %x, %k {padding = "same"} : (tensor<?x?x?x3xf32>, tensor<3x3x3x8xf32>) -> tensor<?x?x?x8xf32>
  return %0, %1 : tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32>
}
