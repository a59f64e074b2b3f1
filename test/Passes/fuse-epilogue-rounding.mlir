// RUN: tfcc-opt --split-input-file --tfcc-fuse-epilogue-rounding %s | FileCheck %s
// RUN: tfcc-opt --split-input-file --tfcc-fuse-epilogue-rounding --tfcc-convert-graph-to-linalg %s | FileCheck %s --check-prefix=CALL

// A fused convolution's bf16 rounding moves into its epilogue; the kernel
// call gets the activation code or'ed with TFCC_ACT_ROUND_BF16 (1 | 256).
// CHECK-LABEL: func.func @conv_bf16
// CHECK: %[[Y:.*]] = graph.fused_conv2d %{{.*}}, %{{.*}} bias %{{.*}} {{{.*}}activation = "relu"{{.*}}round_to = bf16{{.*}}}
// CHECK-NOT: graph.cast
// CHECK: return %[[Y]]
// CALL-LABEL: func.func @conv_bf16
// CALL: %[[ACT:.*]] = arith.constant 257 : i32
// CALL: call @tfcc_rt_conv2d_f32({{.*}}%[[ACT]]
func.func @conv_bf16(%x: tensor<1x6x6x8xf32>, %b: tensor<16xf32>) -> tensor<1x6x6x16xf32> {
  %k = graph.constant dense<0.5> : tensor<3x3x8x16xf32>
  %y = graph.fused_conv2d %x, %k bias %b {strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], activation = "relu"} : (tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32>, tensor<16xf32>) -> tensor<1x6x6x16xf32>
  %l = graph.cast %y : (tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xbf16>
  %r = graph.cast %l : (tensor<1x6x6x16xbf16>) -> tensor<1x6x6x16xf32>
  return %r : tensor<1x6x6x16xf32>
}

// -----

// f16, a dense layer (clip | TFCC_ACT_ROUND_F16 = 2 | 512), and a depthwise
// convolution. The 16-bit value returned besides keeps its (now exact) cast.
// CHECK-LABEL: func.func @dense_f16
// CHECK: %[[Y:.*]] = graph.fused_dense {{.*}}round_to = f16
// CHECK: %[[L:.*]] = graph.cast %[[Y]] : (tensor<4x16xf32>) -> tensor<4x16xf16>
// CHECK: %[[D:.*]] = graph.fused_conv2d {{.*}}depthwise = true{{.*}}round_to = f16
// CHECK: return %[[Y]], %[[L]], %[[D]]
// CALL-LABEL: func.func @dense_f16
// CALL: %[[ACT:.*]] = arith.constant 514 : i32
// CALL: call @tfcc_rt_sgemm({{.*}}%[[ACT]]
// CALL: %[[DACT:.*]] = arith.constant 512 : i32
// CALL: call @tfcc_rt_depthwise_conv2d_f32({{.*}}%[[DACT]]
func.func @dense_f16(%x: tensor<4x8xf32>, %k: tensor<8x16xf32>, %i: tensor<1x5x5x4xf32>, %dk: tensor<3x3x4x1xf32>) -> (tensor<4x16xf32>, tensor<4x16xf16>, tensor<1x5x5x4xf32>) {
  %y = graph.fused_dense %x, %k {activation = "clip", alpha = 0.0 : f32, beta = 6.0 : f32} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %l = graph.cast %y : (tensor<4x16xf32>) -> tensor<4x16xf16>
  %r = graph.cast %l : (tensor<4x16xf16>) -> tensor<4x16xf32>
  %d = graph.fused_conv2d %i, %dk {strides = [1, 1], dilations = [1, 1], pads = [1, 1, 1, 1], depthwise = true} : (tensor<1x5x5x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x5x5x4xf32>
  %dl = graph.cast %d : (tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf16>
  %dr = graph.cast %dl : (tensor<1x5x5x4xf16>) -> tensor<1x5x5x4xf32>
  return %r, %l, %dr : tensor<4x16xf32>, tensor<4x16xf16>, tensor<1x5x5x4xf32>
}

// -----

// Left alone: a result another op reads exactly; a rounding of a spec op
// (no kernel epilogue); a cast pair that is not f32 -> 16 bits -> f32; a
// result already rounded (the pair is then exact and stays for
// tfcc-widen-low-precision-ops to judge).
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[Y:.*]] = graph.fused_dense %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK: graph.cast %[[Y]] : {{.*}} -> tensor<4x16xbf16>
// CHECK: graph.add
// CHECK: graph.matmul
// CHECK-NEXT: graph.cast
// CHECK-NEXT: graph.cast
// CHECK: graph.fused_dense {{.*}}round_to = bf16
// CHECK-NEXT: graph.cast
// CHECK-NEXT: graph.cast
// CHECK: graph.fused_dense
// CHECK-NEXT: graph.cast {{.*}} -> tensor<4x16xf64>
// CHECK-NEXT: graph.cast {{.*}} -> tensor<4x16xf32>
func.func @left_alone(%x: tensor<4x8xf32>, %k: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %y = graph.fused_dense %x, %k : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %l = graph.cast %y : (tensor<4x16xf32>) -> tensor<4x16xbf16>
  %r = graph.cast %l : (tensor<4x16xbf16>) -> tensor<4x16xf32>
  %s = graph.add %y, %r : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = graph.matmul %x, %k : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %ml = graph.cast %m : (tensor<4x16xf32>) -> tensor<4x16xbf16>
  %mr = graph.cast %ml : (tensor<4x16xbf16>) -> tensor<4x16xf32>
  %a = graph.fused_dense %x, %k {round_to = bf16} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %al = graph.cast %a : (tensor<4x16xf32>) -> tensor<4x16xbf16>
  %ar = graph.cast %al : (tensor<4x16xbf16>) -> tensor<4x16xf32>
  %w = graph.fused_dense %x, %k : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %wl = graph.cast %w : (tensor<4x16xf32>) -> tensor<4x16xf64>
  %wr = graph.cast %wl : (tensor<4x16xf64>) -> tensor<4x16xf32>
  return %r, %s, %mr, %ar, %wr : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}
