// RUN: tfcc-opt %s -tfcc-layout-propagation -split-input-file | FileCheck %s

// The key case: an NCHW conv -> relu -> add bias[C,1,1] -> conv chain as the
// ONNX importer writes it (transposes around each NHWC conv) keeps no
// transpose between the convolutions; the bias becomes [1,1,1,C], and the
// function keeps its NCHW argument and result.
// CHECK-LABEL: func.func @conv_relu_bias_conv
// CHECK-SAME: (%{{.*}}: tensor<?x3x8x8xf32>, {{.*}}) -> tensor<?x16x8x8xf32>
// CHECK: graph.transpose %{{.*}} {perm = [0, 2, 3, 1]}
// CHECK: %[[C1:.*]] = graph.conv2d
// CHECK-NOT: graph.transpose
// CHECK: %[[R:.*]] = graph.relu %[[C1]] : tensor<?x8x8x16xf32>
// CHECK-DAG: %[[BIAS:.*]] = graph.constant dense<{{.*}}> : tensor<1x1x1x16xf32>
// CHECK: %[[B:.*]] = graph.add %[[R]], %[[BIAS]] : (tensor<?x8x8x16xf32>, tensor<1x1x1x16xf32>)
// CHECK: graph.conv2d %[[B]]
// CHECK: %[[OUT:.*]] = graph.transpose %{{.*}} {perm = [0, 3, 1, 2]}
// CHECK: return %[[OUT]] : tensor<?x16x8x8xf32>
func.func @conv_relu_bias_conv(%x: tensor<?x3x8x8xf32>, %k1: tensor<3x3x3x16xf32>,
                               %k2: tensor<3x3x16x16xf32>) -> tensor<?x16x8x8xf32> {
  %bias = graph.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]],
                                [[9.0]], [[10.0]], [[11.0]], [[12.0]], [[13.0]], [[14.0]], [[15.0]], [[16.0]]]> : tensor<16x1x1xf32>
  %0 = graph.transpose %x {perm = [0, 2, 3, 1]} : (tensor<?x3x8x8xf32>) -> tensor<?x8x8x3xf32>
  %1 = graph.conv2d %0, %k1 {padding = "same"} : (tensor<?x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<?x8x8x16xf32>
  %2 = graph.transpose %1 {perm = [0, 3, 1, 2]} : (tensor<?x8x8x16xf32>) -> tensor<?x16x8x8xf32>
  %3 = graph.relu %2 : tensor<?x16x8x8xf32>
  %4 = graph.add %3, %bias : (tensor<?x16x8x8xf32>, tensor<16x1x1xf32>) -> tensor<?x16x8x8xf32>
  %5 = graph.transpose %4 {perm = [0, 2, 3, 1]} : (tensor<?x16x8x8xf32>) -> tensor<?x8x8x16xf32>
  %6 = graph.conv2d %5, %k2 {padding = "same"} : (tensor<?x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<?x8x8x16xf32>
  %7 = graph.transpose %6 {perm = [0, 3, 1, 2]} : (tensor<?x8x8x16xf32>) -> tensor<?x16x8x8xf32>
  return %7 : tensor<?x16x8x8xf32>
}

// -----

// A residual block: the add of two transposed branches (one of them also the
// next conv's input) happens in NHWC; a single transpose is left at the end.
// CHECK-LABEL: func.func @residual
// CHECK: %[[C1:.*]] = graph.conv2d
// CHECK-NOT: graph.transpose
// CHECK: %[[R:.*]] = graph.relu %[[C1]]
// CHECK: %[[C2:.*]] = graph.conv2d %[[R]]
// CHECK: %[[S:.*]] = graph.add %[[C2]], %[[R]] : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>)
// CHECK: graph.transpose %[[S]] {perm = [0, 3, 1, 2]}
func.func @residual(%x: tensor<1x8x4x4xf32>, %k: tensor<3x3x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = graph.transpose %x {perm = [0, 2, 3, 1]} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %1 = graph.conv2d %0, %k {padding = "same"} : (tensor<1x4x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x4x4x8xf32>
  %2 = graph.transpose %1 {perm = [0, 3, 1, 2]} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %3 = graph.relu %2 : tensor<1x8x4x4xf32>
  %4 = graph.transpose %3 {perm = [0, 2, 3, 1]} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  %5 = graph.conv2d %4, %k {padding = "same"} : (tensor<1x4x4x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x4x4x8xf32>
  %6 = graph.transpose %5 {perm = [0, 3, 1, 2]} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %7 = graph.add %6, %3 : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %7 : tensor<1x8x4x4xf32>
}

// -----

// Consecutive transposes compose; inverse pairs vanish.
// CHECK-LABEL: func.func @compose
// CHECK-NEXT: %[[T:.*]] = graph.transpose %[[X:.*]] {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
// CHECK-NEXT: return %[[T]], %[[X]]
func.func @compose(%x: tensor<1x2x3x4xf32>) -> (tensor<1x4x2x3xf32>, tensor<1x2x3x4xf32>) {
  %0 = graph.transpose %x {perm = [0, 2, 3, 1]} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %1 = graph.transpose %0 {perm = [0, 2, 3, 1]} : (tensor<1x3x4x2xf32>) -> tensor<1x4x2x3xf32>
  %2 = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %3 = graph.transpose %2 {perm = [0, 2, 3, 1]} : (tensor<1x4x2x3xf32>) -> tensor<1x2x3x4xf32>
  return %1, %3 : tensor<1x4x2x3xf32>, tensor<1x2x3x4xf32>
}

// -----

// Unary ops (attributes kept) and cast run before the transpose.
// CHECK-LABEL: func.func @unary
// CHECK-NEXT: %[[A:.*]] = graph.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32} : tensor<1x2x3x4xf32>
// CHECK-NEXT: %[[B:.*]] = graph.cast %[[A]] : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xi32>
// CHECK-NEXT: %[[T:.*]] = graph.transpose %[[B]] {perm = [0, 3, 1, 2]}
// CHECK-NEXT: return %[[T]]
func.func @unary(%x: tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xi32> {
  %0 = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %1 = graph.leaky_relu %0 {alpha = 0.1 : f32} : tensor<1x4x2x3xf32>
  %2 = graph.cast %1 : (tensor<1x4x2x3xf32>) -> tensor<1x4x2x3xi32>
  return %2 : tensor<1x4x2x3xi32>
}

// -----

// A transpose also used by the function's result stays, and so does its
// unary user (sinking would add a transpose).
// CHECK-LABEL: func.func @unary_shared
// CHECK-NEXT: %[[T:.*]] = graph.transpose
// CHECK-NEXT: graph.exp %[[T]] : tensor<1x4x2x3xf32>
func.func @unary_shared(%x: tensor<1x2x3x4xf32>) -> (tensor<1x4x2x3xf32>, tensor<1x4x2x3xf32>) {
  %0 = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %1 = graph.exp %0 : tensor<1x4x2x3xf32>
  return %0, %1 : tensor<1x4x2x3xf32>, tensor<1x4x2x3xf32>
}

// -----

// SiLU: the transposed value feeds both sigmoid and mul; every user takes the
// transpose through, so it moves below both.
// CHECK-LABEL: func.func @silu
// CHECK-NEXT: %[[S:.*]] = graph.sigmoid %[[X:.*]] : tensor<1x2x3x4xf32>
// CHECK-NEXT: %[[M:.*]] = graph.mul %[[X]], %[[S]]
// CHECK-NEXT: graph.transpose %[[M]] {perm = [0, 3, 1, 2]}
func.func @silu(%x: tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32> {
  %0 = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %1 = graph.sigmoid %0 : tensor<1x4x2x3xf32>
  %2 = graph.mul %0, %1 : (tensor<1x4x2x3xf32>, tensor<1x4x2x3xf32>) -> tensor<1x4x2x3xf32>
  return %2 : tensor<1x4x2x3xf32>
}

// -----

// Binary ops against constants: a [C,1,1] variable becomes a reshape to
// [1,1,1,C]; a scalar needs no change; a full-size constant is permuted at
// compile time; a full-size variable gets its own transpose.
graph.variable @scale : tensor<4x1x1xf32> = dense<2.0>
graph.variable @full : tensor<1x4x2x3xf32> = dense<1.0>
// CHECK-LABEL: func.func @binary_constants
// CHECK-DAG: %[[SCALE:.*]] = graph.read @scale
// CHECK-DAG: %[[FULL:.*]] = graph.read @full
// CHECK: %[[R:.*]] = graph.reshape %[[SCALE]] : (tensor<4x1x1xf32>) -> tensor<1x1x1x4xf32>
// CHECK: %[[A:.*]] = graph.mul %{{.*}}, %[[R]] : (tensor<1x2x3x4xf32>, tensor<1x1x1x4xf32>)
// CHECK-DAG: %[[C:.*]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x1x4xf32>
// CHECK: %[[B:.*]] = graph.sub %[[C]], %[[A]]
// CHECK: %[[D:.*]] = graph.maximum %[[B]], %{{.*}} : (tensor<1x2x3x4xf32>, tensor<f32>)
// CHECK: %[[FT:.*]] = graph.transpose %[[FULL]] {perm = [0, 2, 3, 1]}
// CHECK: %[[E:.*]] = graph.add %[[D]], %[[FT]]
// CHECK: %[[I:.*]] = graph.cast %[[E]]
// CHECK-DAG: %[[P:.*]] = graph.constant dense<{{\[\[\[\[}}0, 6, 12, 18], [1, 7, 13, 19], [2, 8, 14, 20]], {{\[\[}}3, 9, 15, 21], [4, 10, 16, 22], [5, 11, 17, 23]]]]> : tensor<1x2x3x4xi32>
// CHECK: %[[F:.*]] = graph.add %[[I]], %[[P]]
// CHECK: %[[T:.*]] = graph.transpose %[[F]] {perm = [0, 3, 1, 2]}
// CHECK: return %[[T]]
func.func @binary_constants(%x: tensor<1x2x3x4xf32>, %s: tensor<f32>) -> tensor<1x4x2x3xi32> {
  %c = graph.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : tensor<4x1x1xf32>
  %p = graph.constant dense<[[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]],
                              [[12, 13, 14], [15, 16, 17]], [[18, 19, 20], [21, 22, 23]]]]> : tensor<1x4x2x3xi32>
  %scale = graph.read @scale : tensor<4x1x1xf32>
  %full = graph.read @full : tensor<1x4x2x3xf32>
  %0 = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %1 = graph.mul %0, %scale : (tensor<1x4x2x3xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x3xf32>
  %2 = graph.sub %c, %1 : (tensor<4x1x1xf32>, tensor<1x4x2x3xf32>) -> tensor<1x4x2x3xf32>
  %3 = graph.maximum %2, %s : (tensor<1x4x2x3xf32>, tensor<f32>) -> tensor<1x4x2x3xf32>
  %4 = graph.add %3, %full : (tensor<1x4x2x3xf32>, tensor<1x4x2x3xf32>) -> tensor<1x4x2x3xf32>
  %5 = graph.cast %4 : (tensor<1x4x2x3xf32>) -> tensor<1x4x2x3xi32>
  %6 = graph.add %5, %p : (tensor<1x4x2x3xi32>, tensor<1x4x2x3xi32>) -> tensor<1x4x2x3xi32>
  return %6 : tensor<1x4x2x3xi32>
}

// -----

// Squeeze-and-excitation: a computed [N,C,1,1] scale is reshaped, not
// transposed.
// CHECK-LABEL: func.func @broadcast_computed
// CHECK: %[[R:.*]] = graph.reshape %{{.*}} : (tensor<?x4x1x1xf32>) -> tensor<?x1x1x4xf32>
// CHECK: graph.mul %{{.*}}, %[[R]] : (tensor<?x2x3x4xf32>, tensor<?x1x1x4xf32>)
func.func @broadcast_computed(%x: tensor<?x2x3x4xf32>, %se: tensor<?x4x1x1xf32>) -> tensor<?x4x2x3xf32> {
  %0 = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<?x2x3x4xf32>) -> tensor<?x4x2x3xf32>
  %1 = graph.mul %0, %se : (tensor<?x4x2x3xf32>, tensor<?x4x1x1xf32>) -> tensor<?x4x2x3xf32>
  return %1 : tensor<?x4x2x3xf32>
}

// -----

// compare and select with every operand transposed the same way.
// CHECK-LABEL: func.func @compare_select
// CHECK: %[[C:.*]] = graph.compare %[[A:.*]], %[[B:.*]] {predicate = "gt"} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xi1>
// CHECK: %[[S:.*]] = graph.select %[[C]], %[[A]], %[[B]]
// CHECK: graph.transpose %[[S]] {perm = [0, 3, 1, 2]}
func.func @compare_select(%a: tensor<1x2x3x4xf32>, %b: tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32> {
  %0 = graph.transpose %a {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %1 = graph.transpose %b {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %2 = graph.compare %0, %1 {predicate = "gt"} : (tensor<1x4x2x3xf32>, tensor<1x4x2x3xf32>) -> tensor<1x4x2x3xi1>
  %3 = graph.select %2, %0, %1 : (tensor<1x4x2x3xi1>, tensor<1x4x2x3xf32>, tensor<1x4x2x3xf32>) -> tensor<1x4x2x3xf32>
  return %3 : tensor<1x4x2x3xf32>
}

// -----

// Operands transposed with different perms, or a full-size computed operand,
// leave the op alone.
// CHECK-LABEL: func.func @no_change
// CHECK: %[[A:.*]] = graph.transpose %{{.*}} {perm = [0, 3, 1, 2]}
// CHECK: %[[B:.*]] = graph.transpose %{{.*}} {perm = [0, 2, 3, 1]}
// CHECK: graph.add %[[A]], %[[B]] : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>)
// CHECK: graph.add %[[A]], %{{.*}} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>)
func.func @no_change(%a: tensor<1x4x4x4xf32>, %b: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %0 = graph.transpose %a {perm = [0, 3, 1, 2]} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = graph.transpose %b {perm = [0, 2, 3, 1]} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %2 = graph.add %0, %1 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %3 = graph.add %0, %b : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %2, %3 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// Reductions remap their axes; without keep_dims the kept dims may need no
// transpose at all (NCHW mean over H, W).
// CHECK-LABEL: func.func @reduce
// CHECK-NEXT: %[[M:.*]] = graph.reduce_mean %[[X:.*]] {axes = [1, 2]} : (tensor<?x2x3x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: %[[S:.*]] = graph.reduce_sum %[[X]] {axes = [3], keep_dims = true} : (tensor<?x2x3x4xf32>) -> tensor<?x2x3x1xf32>
// CHECK-NEXT: %[[T:.*]] = graph.transpose %[[S]] {perm = [0, 3, 1, 2]}
// CHECK-NEXT: return %[[M]], %[[T]]
func.func @reduce(%x: tensor<?x2x3x4xf32>) -> (tensor<?x4xf32>, tensor<?x1x2x3xf32>) {
  %0 = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<?x2x3x4xf32>) -> tensor<?x4x2x3xf32>
  %1 = graph.reduce_mean %0 {axes = [2, -1]} : (tensor<?x4x2x3xf32>) -> tensor<?x4xf32>
  %2 = graph.reduce_sum %0 {axes = [1], keep_dims = true} : (tensor<?x4x2x3xf32>) -> tensor<?x1x2x3xf32>
  return %1, %2 : tensor<?x4xf32>, tensor<?x1x2x3xf32>
}

// -----

// A reduction whose kept dims change order keeps a transpose of the smaller
// result.
// CHECK-LABEL: func.func @reduce_reorder
// CHECK-NEXT: %[[S:.*]] = graph.reduce_max %{{.*}} {axes = [0]} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: graph.transpose %[[S]] {perm = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
func.func @reduce_reorder(%x: tensor<2x3x4xf32>) -> tensor<4x3xf32> {
  %0 = graph.transpose %x {perm = [2, 0, 1]} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = graph.reduce_max %0 {axes = [1]} : (tensor<4x2x3xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// softmax, concat, pad and slice remap their axis or per-dimension lists.
// CHECK-LABEL: func.func @shape_ops
// CHECK: %[[SM:.*]] = graph.softmax %[[A:.*]] {axis = 3 : i64} : tensor<1x2x3x4xf32>
// CHECK: %[[C:.*]] = graph.concat %[[SM]], %[[B:.*]] {axis = 3 : i64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x8xf32>
// CHECK: %[[P:.*]] = graph.pad %[[C]] {pads = [0, 0, 1, 2, 0, 0, 0, 0]} : (tensor<1x2x3x8xf32>) -> tensor<1x5x3x8xf32>
// CHECK: %[[S:.*]] = graph.slice %[[P]] {limits = [1, 5, -1, 6], starts = [0, 1, 0, 2], strides = [1, 2, 1, 1]} : (tensor<1x5x3x8xf32>) -> tensor<1x2x3x4xf32>
// CHECK: graph.transpose %[[S]] {perm = [0, 3, 1, 2]}
func.func @shape_ops(%a: tensor<1x2x3x4xf32>, %b: tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32> {
  %0 = graph.transpose %a {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %1 = graph.transpose %b {perm = [0, 3, 1, 2]} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  %2 = graph.softmax %0 {axis = 1} : tensor<1x4x2x3xf32>
  %3 = graph.concat %2, %1 {axis = -3} : (tensor<1x4x2x3xf32>, tensor<1x4x2x3xf32>) -> tensor<1x8x2x3xf32>
  %4 = graph.pad %3 {pads = [0, 0, 0, 0, 1, 2, 0, 0]} : (tensor<1x8x2x3xf32>) -> tensor<1x8x5x3xf32>
  %5 = graph.slice %4 {starts = [0, 2, 1, 0], limits = [1, 6, 5, -1], strides = [1, 1, 2, 1]} : (tensor<1x8x5x3xf32>) -> tensor<1x4x2x3xf32>
  return %5 : tensor<1x4x2x3xf32>
}

// -----

// Per-tensor quantize and dequantize are elementwise: the transpose leaving
// one convolution sinks through them and meets the one entering the next
// (a QDQ model's Conv -> Q -> DQ -> Conv). Per axis, the scale follows
// `axis` rather than broadcasting, so the transpose stays above.
// CHECK-LABEL: func.func @quantize_dequantize
// CHECK-NOT: graph.transpose
// CHECK: %[[Q:.*]] = graph.quantize %arg0, %{{.*}}, %{{.*}} : (tensor<1x4x4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x8xui8>
// CHECK: %[[D:.*]] = graph.dequantize %[[Q]], %{{.*}}, %{{.*}} : (tensor<1x4x4x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x8xf32>
// CHECK: return %[[D]]
func.func @quantize_dequantize(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %s = graph.constant dense<0.5> : tensor<f32>
  %z = graph.constant dense<3> : tensor<ui8>
  %t = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %q = graph.quantize %t, %s, %z : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x4x4xui8>
  %d = graph.dequantize %q, %s, %z : (tensor<1x8x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x4x4xf32>
  %u = graph.transpose %d {perm = [0, 2, 3, 1]} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  return %u : tensor<1x4x4x8xf32>
}

// CHECK-LABEL: func.func @quantize_per_axis
// CHECK: graph.transpose
// CHECK: graph.quantize %{{.*}}, %arg1, %arg2 : (tensor<1x8x4x4xf32>
func.func @quantize_per_axis(%x: tensor<1x4x4x8xf32>, %s: tensor<8xf32>, %z: tensor<8xui8>) -> tensor<1x8x4x4xui8> {
  %t = graph.transpose %x {perm = [0, 3, 1, 2]} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %q = graph.quantize %t, %s, %z {axis = 1} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xui8>) -> tensor<1x8x4x4xui8>
  return %q : tensor<1x8x4x4xui8>
}
