// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s

// SAME with stride 2 on 7x7 with a 3x3 kernel pads 1 on each side (TF puts
// any odd row at the bottom); the bias initializes the accumulator.
// CHECK-LABEL: func.func @conv2d_same_stride2
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[INIT:.*]] = linalg.generic
// CHECK: linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME: ins(%[[PADDED]], %{{.*}} : tensor<1x9x9x3xf32>, tensor<3x3x3x4xf32>) outs(%[[INIT]] : tensor<1x4x4x4xf32>)
func.func @conv2d_same_stride2(%x: tensor<1x7x7x3xf32>, %k: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %r = graph.conv2d %x, %k, %b {strides = [2, 2], padding = "same"} : (tensor<1x7x7x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// SAME, stride 2, 6x6, 3x3 kernel: total padding 1, all of it after.
// CHECK-LABEL: func.func @conv2d_same_odd_padding
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 1, 1, 0]
func.func @conv2d_same_odd_padding(%x: tensor<?x6x6x1xf32>, %k: tensor<3x3x1x2xf32>) -> tensor<?x3x3x2xf32> {
  %r = graph.conv2d %x, %k {strides = [2, 2], padding = "same"} : (tensor<?x6x6x1xf32>, tensor<3x3x1x2xf32>) -> tensor<?x3x3x2xf32>
  return %r : tensor<?x3x3x2xf32>
}

// -----

// Groups: channels split into [groups, per group], one generic over
// (n, oh, ow, g, ocg, kh, kw, icg).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3, d7)>
// CHECK-DAG: #[[KERNEL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d3, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv2d_grouped
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2], [3, 4]] {{.*}} : tensor<1x5x5x4xf32> into tensor<1x5x5x2x2xf32>
// CHECK: tensor.expand_shape %{{.*}} : tensor<3x3x2x6xf32> into tensor<3x3x2x2x3xf32>
// CHECK: %[[CONV:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[KERNEL]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x3x3x2x3xf32> into tensor<1x3x3x6xf32>
func.func @conv2d_grouped(%x: tensor<1x5x5x4xf32>, %k: tensor<3x3x2x6xf32>) -> tensor<1x3x3x6xf32> {
  %r = graph.conv2d %x, %k {groups = 2} : (tensor<1x5x5x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x3x3x6xf32>
  return %r : tensor<1x3x3x6xf32>
}

// -----

// Depthwise: the [c, m] output channels collapse to c * m + mi.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[CONV:.*]] = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK-SAME: outs(%{{.*}} : tensor<?x2x2x3x2xf32>)
// CHECK: tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<?x2x2x3x2xf32> into tensor<?x2x2x6xf32>
func.func @depthwise(%x: tensor<?x6x6x3xf32>, %k: tensor<3x3x3x2xf32>) -> tensor<?x2x2x6xf32> {
  %r = graph.depthwise_conv2d %x, %k {dilations = [2, 2]} : (tensor<?x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<?x2x2x6xf32>
  return %r : tensor<?x2x2x6xf32>
}
