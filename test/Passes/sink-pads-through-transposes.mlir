// RUN: tfcc-opt %s -tfcc-sink-pads-through-transposes -split-input-file | FileCheck %s
// RUN: tfcc-opt %s -tfcc-sink-pads-through-transposes -tfcc-fuse-ops -split-input-file | FileCheck %s --check-prefix=FUSED

// The pad of an NCHW input moves below the transpose into NHWC, its pads
// permuted with the dims, where the convolution takes it as its padding.
// CHECK-LABEL: func.func @nchw_pad
// CHECK: %[[T:.*]] = graph.transpose %arg0 {perm = [0, 2, 3, 1]} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[P:.*]] = graph.pad %[[T]] {pads = [0, 0, 1, 1, 2, 0, 0, 0]} : (tensor<1x4x4x3xf32>) -> tensor<1x6x6x3xf32>
// CHECK: graph.conv2d %[[P]], %arg1
// FUSED-LABEL: func.func @nchw_pad
// FUSED: %[[T:.*]] = graph.transpose %arg0
// FUSED: graph.fused_conv2d %[[T]], %{{.*}} {depthwise = true, dilations = [1, 1], pads = [1, 1, 2, 0], strides = [1, 1]}
// FUSED-NOT: graph.pad
func.func @nchw_pad(%x: tensor<1x3x4x4xf32>, %k: tensor<3x3x1x6xf32>) -> tensor<1x4x4x6xf32> {
  %p = graph.pad %x {pads = [0, 0, 0, 0, 1, 1, 2, 0]} : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32>
  %t = graph.transpose %p {perm = [0, 2, 3, 1]} : (tensor<1x3x6x6xf32>) -> tensor<1x6x6x3xf32>
  %c = graph.conv2d %t, %k {groups = 3} : (tensor<1x6x6x3xf32>, tensor<3x3x1x6xf32>) -> tensor<1x4x4x6xf32>
  return %c : tensor<1x4x4x6xf32>
}

// -----

// A pad with another user stays above the transpose (moving it would pad
// twice).
// CHECK-LABEL: func.func @shared_pad
// FUSED-LABEL: func.func @shared_pad
// CHECK: %[[P:.*]] = graph.pad %arg0
// CHECK: graph.transpose %[[P]]
func.func @shared_pad(%x: tensor<1x3x4x4xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x6x6x3xf32>) {
  %p = graph.pad %x {pads = [0, 0, 0, 0, 1, 1, 1, 1]} : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32>
  %t = graph.transpose %p {perm = [0, 2, 3, 1]} : (tensor<1x3x6x6xf32>) -> tensor<1x6x6x3xf32>
  return %p, %t : tensor<1x3x6x6xf32>, tensor<1x6x6x3xf32>
}
