// RUN: tfcc-opt --split-input-file --tfcc-mark-bf16-operands %s | FileCheck %s
// RUN: tfcc-opt --split-input-file --tfcc-mark-bf16-operands --tfcc-convert-graph-to-linalg %s | FileCheck %s --check-prefix=CALL

// Operands widened from bf16, a constant of bf16 values, a fused layer's
// bf16-rounded result through a reshape and a transpose, a max pool (the
// train step's, with indices) through a reshape: marked.
// The GEMM calls carry TFCC_ACT_BF16_OPERANDS (1024; | relu 1 = 1025).
// CHECK-LABEL: func.func @marked
// CHECK: %[[D:.*]] = graph.fused_dense %{{.*}} {activation = "relu", tfcc.bf16_operands}
// CHECK: graph.matmul %{{.*}}, %{{.*}} {tfcc.bf16_operands}
// CHECK: graph.fused_dense %{{.*}} {round_to = bf16, tfcc.bf16_operands}
// CHECK: graph.fused_dense %{{.*}} {tfcc.bf16_operands}
// CALL-LABEL: func.func @marked
// CALL: %[[A1:.*]] = arith.constant 1025 : i32
// CALL: call @tfcc_rt_sgemm({{.*}}%[[A1]]
// CALL: %[[A2:.*]] = arith.constant 1024 : i32
// CALL: call @tfcc_rt_sgemm({{.*}}%[[A2]]
func.func @marked(%xl: tensor<16x64xbf16>, %yl: tensor<64x8xbf16>, %pl: tensor<2x4x4x16xbf16>, %wl: tensor<64x64xbf16>) -> (tensor<16x32xf32>, tensor<16x8xf32>, tensor<2x32xf32>, tensor<2x32xf32>) {
  %x = graph.cast %xl : (tensor<16x64xbf16>) -> tensor<16x64xf32>
  %k = graph.constant dense<0.5> : tensor<64x32xf32>
  %d = graph.fused_dense %x, %k {activation = "relu"} : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %y = graph.cast %yl : (tensor<64x8xbf16>) -> tensor<64x8xf32>
  %m = graph.matmul %x, %y : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
  %w = graph.cast %wl : (tensor<64x64xbf16>) -> tensor<64x64xf32>
  %r = graph.fused_dense %w, %k {round_to = bf16} : (tensor<64x64xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %t = graph.transpose %r {perm = [1, 0]} : (tensor<64x32xf32>) -> tensor<32x64xf32>
  %k2 = graph.reshape %t : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %p = graph.cast %pl : (tensor<2x4x4x16xbf16>) -> tensor<2x4x4x16xf32>
  %q, %taps = graph.max_pool2d_with_indices %p {strides = [2, 2], window = [2, 2]} : (tensor<2x4x4x16xf32>) -> (tensor<2x2x2x16xf32>, tensor<2x2x2x16xi8>)
  %f = graph.reshape %q : (tensor<2x2x2x16xf32>) -> tensor<2x64xf32>
  %z = graph.fused_dense %f, %k : (tensor<2x64xf32>, tensor<64x32xf32>) -> tensor<2x32xf32>
  %u = graph.fused_dense %f, %k2 : (tensor<2x64xf32>, tensor<64x32xf32>) -> tensor<2x32xf32>
  return %d, %m, %u, %z : tensor<16x32xf32>, tensor<16x8xf32>, tensor<2x32xf32>, tensor<2x32xf32>
}

// -----

// Not marked: an f32 argument, a constant with a value that is not a bf16
// value (0.1), operands widened from f16, a fused layer's result rounded to
// f16 (through a reshape), an add of bf16 values (its sums need not be bf16
// values). The calls keep activation code 0.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tfcc.bf16_operands
// CALL-LABEL: func.func @left_alone
// CALL-NOT: arith.constant 1024 : i32
func.func @left_alone(%a: tensor<16x64xf32>, %xl: tensor<16x64xbf16>, %hl: tensor<16x64xf16>) -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) {
  %x = graph.cast %xl : (tensor<16x64xbf16>) -> tensor<16x64xf32>
  %k = graph.constant dense<0.5> : tensor<64x32xf32>
  %kf = graph.constant dense<0.1> : tensor<64x32xf32>
  %d1 = graph.fused_dense %a, %k : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %d2 = graph.fused_dense %x, %kf : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %h = graph.cast %hl : (tensor<16x64xf16>) -> tensor<16x64xf32>
  %d3 = graph.fused_dense %h, %k : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %r = graph.fused_dense %a, %k {round_to = f16} : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %rt = graph.reshape %r : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %c = graph.constant dense<0.5> : tensor<32x32xf32>
  %d6 = graph.matmul %rt, %c : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %s = graph.add %x, %x : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %d4 = graph.fused_dense %s, %k : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %d5 = graph.matmul %x, %kf : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %d1, %d2, %d3, %d4, %d5, %d6 : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

// A convolution's filter gradient (the train step's) whose input and output
// gradient hold bf16 values: marked, its kernel call's flags
// TFCC_ACT_BF16_OPERANDS; with an f32 output gradient: not marked, flags 0.
// CHECK-LABEL: func.func @filter_gradient
// CHECK: graph.conv2d_backprop_filter %{{.*}} {kernel_size = [3, 3], tfcc.bf16_operands}
// CHECK-NOT: tfcc.bf16_operands
// CALL-LABEL: func.func @filter_gradient
// CALL: %[[ON:.*]] = arith.constant 1024 : i32
// CALL: call @tfcc_rt_conv2d_filter_grad_f32({{.*}}, %[[ON]])
// CALL: %[[OFF:.*]] = arith.constant 0 : i32
// CALL: call @tfcc_rt_conv2d_filter_grad_f32({{.*}}, %[[OFF]])
func.func @filter_gradient(%xl: tensor<2x13x13x32xbf16>, %dyl: tensor<2x11x11x64xbf16>, %dyf: tensor<2x11x11x64xf32>) -> (tensor<3x3x32x64xf32>, tensor<3x3x32x64xf32>) {
  %x = graph.cast %xl : (tensor<2x13x13x32xbf16>) -> tensor<2x13x13x32xf32>
  %dy = graph.cast %dyl : (tensor<2x11x11x64xbf16>) -> tensor<2x11x11x64xf32>
  %g = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3]} : (tensor<2x13x13x32xf32>, tensor<2x11x11x64xf32>) -> tensor<3x3x32x64xf32>
  %h = graph.conv2d_backprop_filter %x, %dyf {kernel_size = [3, 3]} : (tensor<2x13x13x32xf32>, tensor<2x11x11x64xf32>) -> tensor<3x3x32x64xf32>
  return %g, %h : tensor<3x3x32x64xf32>, tensor<3x3x32x64xf32>
}
