// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -cse -split-input-file | FileCheck %s

// A batched float32 matmul with shared batch dims is one GEMM call: batch 2,
// M 5, N 9, K 7; the rhs is read transposed (trans_b = 1, ldb = 7) and
// unpacked (b_packed = 0); strides between batches are 35, 63 and 45 floats.
// CHECK: func.func private @tfcc_rt_sgemm(i64, i64, i64, i64, !llvm.ptr, i64, i64, i32, !llvm.ptr, i64, i64, i32, i32, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, i32, f32, f32)
// CHECK-LABEL: func.func @batched_matmul
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x5x9xf32>
// CHECK: %[[A:.*]] = bufferization.to_memref %arg0 read_only {tfcc.kernel_read = {{[0-9]+}} : i64} : memref<2x5x7xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[B:.*]] = bufferization.to_memref %arg1 read_only {tfcc.kernel_read = {{[0-9]+}} : i64} : memref<2x9x7xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: call @tfcc_rt_sgemm(%{{.*}}, %c5_i64, %c9_i64, %c7_i64, %{{.*}}, %c7_i64, %c35_i64, %c0_i32, %{{.*}}, %c7_i64, %c63_i64, %c1_i32, %c0_i32, %{{.*}}, %c9_i64, %c45_i64, %{{.*}}, %{{.*}}, %c0_i32, %cst, %cst)
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
func.func @batched_matmul(%a: tensor<2x5x7xf32>, %b: tensor<2x9x7xf32>) -> tensor<2x5x9xf32> {
  %0 = graph.matmul %a, %b {transpose_b = true} : (tensor<2x5x7xf32>, tensor<2x9x7xf32>) -> tensor<2x5x9xf32>
  return %0 : tensor<2x5x9xf32>
}

// -----

// The gradients of a dense layer have dynamic matrix dims: dW = x^T dy
// contracts the batch (K = dim 0 of x, trans_a = 1, lda = 7) into a static
// [7, 3]; dx = dy W^T has the batch as M and a dynamic result (trans_b = 1).
// Both are one GEMM call with the dynamic sizes read at run time.
// CHECK-LABEL: func.func @dense_gradients
// CHECK: %[[BATCH:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[DW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<7x3xf32>
// CHECK: %[[K:.*]] = arith.index_cast %[[BATCH]] : index to i64
// CHECK: call @tfcc_rt_sgemm(%c1_i64, %c7_i64, %c3_i64, %[[K]], %{{.*}}, %c7_i64, %{{.*}}, %c1_i32, %{{.*}}, %c3_i64, %c0_i64, %c0_i32, %c0_i32, %{{.*}}, %c3_i64, %c21_i64, %{{.*}}, %{{.*}}, %c0_i32, %cst, %cst)
// CHECK: %[[M:.*]] = tensor.dim %arg1, %c0
// CHECK: %[[DX:.*]] = memref.alloc(%[[M]]) {alignment = 64 : i64} : memref<?x7xf32>
// CHECK: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK: call @tfcc_rt_sgemm(%c1_i64, %[[M64]], %c7_i64, %c3_i64, %{{.*}}, %c3_i64, %{{.*}}, %c0_i32, %{{.*}}, %c3_i64, %c0_i64, %c1_i32, %c0_i32, %{{.*}}, %c7_i64, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32, %cst, %cst)
func.func @dense_gradients(%x: tensor<?x7xf32>, %dy: tensor<?x3xf32>, %w: tensor<7x3xf32>) -> (tensor<7x3xf32>, tensor<?x7xf32>) {
  %dw = graph.matmul %x, %dy {transpose_a = true} : (tensor<?x7xf32>, tensor<?x3xf32>) -> tensor<7x3xf32>
  %dx = graph.matmul %dy, %w {transpose_b = true} : (tensor<?x3xf32>, tensor<7x3xf32>) -> tensor<?x7xf32>
  return %dw, %dx : tensor<7x3xf32>, tensor<?x7xf32>
}

// -----

// A float32 max_pool2d_grad is one call of the runtime's kernel: x, batch,
// H, W, C, window, strides, top/left pads (SAME 3x3 stride 2 on 5x5: 1, 1),
// dy's H, W, then dy and dx.
// CHECK-LABEL: func.func @max_pool_grad
// CHECK: %[[DX:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x5x5x3xf32>
// CHECK: call @tfcc_rt_max_pool2d_grad_f32(%{{.*}}, %{{.*}}, %c5_i64, %c5_i64, %c3_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c3_i64, %c3_i64, %c0_i32, %{{.*}}, %{{.*}})
// CHECK: bufferization.to_tensor %[[DX]] restrict writable
func.func @max_pool_grad(%x: tensor<?x5x5x3xf32>, %dy: tensor<?x3x3x3xf32>) -> tensor<?x5x5x3xf32> {
  %dx = graph.max_pool2d_grad %x, %dy {strides = [2, 2], window = [3, 3], padding = "same"} : (tensor<?x5x5x3xf32>, tensor<?x3x3x3xf32>) -> tensor<?x5x5x3xf32>
  return %dx : tensor<?x5x5x3xf32>
}

// -----

// positive_only (the fused ReLU mask) is the kernel's flag before dy.
// CHECK-LABEL: func.func @max_pool_grad_positive_only
// CHECK: call @tfcc_rt_max_pool2d_grad_f32({{.*}}, %c1_i32, %{{.*}}, %{{.*}})
func.func @max_pool_grad_positive_only(%x: tensor<?x4x4x3xf32>, %dy: tensor<?x2x2x3xf32>) -> tensor<?x4x4x3xf32> {
  %dx = graph.max_pool2d_grad %x, %dy {positive_only, strides = [2, 2], window = [2, 2]} : (tensor<?x4x4x3xf32>, tensor<?x2x2x3xf32>) -> tensor<?x4x4x3xf32>
  return %dx : tensor<?x4x4x3xf32>
}

// -----

// A constant dense kernel [2, 3] is packed at compile time into 32-column
// panels ([1][2][32], zero-padded): row k holds kernel[k, :] then zeros.
// M is the dynamic batch; the GEMM reads the packed B (b_packed = 1), adds
// the bias and applies relu (activation 1).
// CHECK-LABEL: func.func @dense_packed
// CHECK: %[[PACKED:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, {{.*}}, 4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00, {{.*}}]> : tensor<64xf32>
// CHECK: bufferization.to_memref %[[PACKED]] read_only {tfcc.kernel_read = {{[0-9]+}} : i64} : memref<64xf32>
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x3xf32>
// CHECK: call @tfcc_rt_sgemm(%c1_i64, %{{.*}}, %c3_i64, %c2_i64, %{{.*}}, %c2_i64, %c0_i64, %c0_i32, %{{.*}}, %c3_i64, %c0_i64, %c0_i32, %c1_i32, %{{.*}}, %c3_i64, %c0_i64, %{{.*}}, %{{.*}}, %c1_i32, %{{.*}}, %{{.*}})
func.func @dense_packed(%x: tensor<?x2xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %k = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = graph.fused_dense %x, %k bias %b {activation = "relu"} : (tensor<?x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// A kernel that is not a constant is packed at run time, into a buffer of
// its own (36 x 5 -> one panel of 36 x 32 floats), by the runtime's packing function; then the convolution call
// gets the input sizes, kernel window, strides, dilations, top/left pads,
// output sizes and the clip bounds of relu6.
// CHECK: func.func private @tfcc_rt_sgemm_pack_b(i64, i64, !llvm.ptr, i64, i32, !llvm.ptr)
// CHECK: func.func private @tfcc_rt_conv2d_f32(
// CHECK-LABEL: func.func @conv_runtime_packed
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1152xf32>
// CHECK: call @tfcc_rt_sgemm_pack_b(%c36_i64, %c5_i64, %{{.*}}, %c5_i64, %c0_i32, %{{.*}})
// CHECK-DAG: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: call @tfcc_rt_conv2d_f32(%{{.*}}, %{{.*}}, %c8_i64, %c8_i64, %c4_i64, %{{.*}}, %c5_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c0_i64, %c4_i64, %c4_i64, %{{.*}}, %{{.*}}, %c2_i32, %[[LO]], %[[HI]], %{{.*}})
func.func @conv_runtime_packed(%x: tensor<1x8x8x4xf32>, %k: tensor<3x3x4x5xf32>, %r: tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32> {
  %0 = graph.fused_conv2d %x, %k residual %r {activation = "clip", alpha = 0.0 : f32, beta = 6.0 : f32, dilations = [1, 1], pads = [1, 0, 0, 1], strides = [2, 2]} : (tensor<1x8x8x4xf32>, tensor<3x3x4x5xf32>, tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  return %0 : tensor<1x4x4x5xf32>
}

// -----

// Depthwise kernels are passed as they are ([kh, kw, c, m], m = 2).
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: tfcc_rt_sgemm_pack_b(
// CHECK: call @tfcc_rt_depthwise_conv2d_f32(%{{.*}}, %{{.*}}, %c5_i64, %c5_i64, %c3_i64, %{{.*}}, %c2_i64, %c3_i64, %c3_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c5_i64, %c5_i64,
func.func @depthwise(%x: tensor<1x5x5x3xf32>, %k: tensor<3x3x3x2xf32>) -> tensor<1x5x5x6xf32> {
  %0 = graph.fused_conv2d %x, %k {depthwise = true, dilations = [1, 1], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x5x5x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x5x5x6xf32>
  return %0 : tensor<1x5x5x6xf32>
}

// -----

// Float32 training batch-norm reductions call the runtime: x (and dy,
// moments), rows (batch * 4 * 5), channels, then the [2, C] result.
// CHECK-LABEL: func.func @batch_norm_train_reductions
// CHECK: %[[M:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// CHECK: call @tfcc_rt_channel_moments_f32(%{{.*}}, %[[ROWS:.*]], %c3_i64, %{{.*}})
// CHECK: call @tfcc_rt_batch_norm_grad_sums_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ROWS]], %c3_i64, %{{.*}})
func.func @batch_norm_train_reductions(%x: tensor<?x4x5x3xf32>, %dy: tensor<?x4x5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %m = graph.moments %x : (tensor<?x4x5x3xf32>) -> tensor<2x3xf32>
  %s = graph.batch_norm_grad_sums %x, %dy, %m : (tensor<?x4x5x3xf32>, tensor<?x4x5x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %m, %s : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A stride-1 float32 kernel gradient reads the padded input in place (no
// im2col matrix): SAME 3x3 pads 8x8 to 10x10, then x, batch, 10, 10, C=4,
// the window, dy, its 8x8, the 6 output channels and dk.
// CHECK-LABEL: func.func @conv_filter_grad_s1
// CHECK: tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK-NOT: linalg.generic
// CHECK: call @tfcc_rt_conv2d_filter_grad_f32(%{{.*}}, %{{.*}}, %c10_i64, %c10_i64, %c4_i64, %c3_i64, %c3_i64, %{{.*}}, %c8_i64, %c8_i64, %c6_i64, %{{.*}})
func.func @conv_filter_grad_s1(%x: tensor<?x8x8x4xf32>, %dy: tensor<?x8x8x6xf32>) -> tensor<3x3x4x6xf32> {
  %dk = graph.conv2d_backprop_filter %x, %dy {kernel_size = [3, 3], padding = "same"} : (tensor<?x8x8x4xf32>, tensor<?x8x8x6xf32>) -> tensor<3x3x4x6xf32>
  return %dk : tensor<3x3x4x6xf32>
}

// -----

// The recorded pooling taps: one call writes the pooled values and the i8
// taps (after the positive_only flag); the gradient reads the taps and dy.
// CHECK-LABEL: func.func @pool_with_taps
// CHECK: %[[Y:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x2x2x3xf32>
// CHECK: %[[T:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x2x2x3xi8>
// CHECK: call @tfcc_rt_max_pool2d_indices_f32(%{{.*}}, %{{.*}}, %c4_i64, %c4_i64, %c3_i64, %c2_i64, %c2_i64, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c2_i64, %c2_i64, %c1_i32, %{{.*}}, %{{.*}})
// CHECK: call @tfcc_rt_max_pool2d_grad_indices_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c4_i64, %c4_i64, %c3_i64, %c2_i64, %c2_i64, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c2_i64, %c2_i64, %{{.*}})
func.func @pool_with_taps(%x: tensor<?x4x4x3xf32>, %dy: tensor<?x2x2x3xf32>) -> (tensor<?x2x2x3xf32>, tensor<?x4x4x3xf32>) {
  %y, %t = graph.max_pool2d_with_indices %x {positive_only, strides = [2, 2], window = [2, 2]} : (tensor<?x4x4x3xf32>) -> (tensor<?x2x2x3xf32>, tensor<?x2x2x3xi8>)
  %dx = graph.max_pool2d_grad_indices %t, %dy {input_size = [4, 4], strides = [2, 2], window = [2, 2]} : (tensor<?x2x2x3xi8>, tensor<?x2x2x3xf32>) -> tensor<?x4x4x3xf32>
  return %y, %dx : tensor<?x2x2x3xf32>, tensor<?x4x4x3xf32>
}

// -----

// H and W known only at run time: the kernel takes them from the input and
// the output's from (in + pads - span) floordiv stride + 1 (here H: pads 1 + 1,
// stride 2; W: no pads, stride 1; computed as (in + pads - span + stride)
// divsi stride, which is the floor wherever it is >= 1), an input smaller
// than the window reported
// (code 2, out of range) and the extent clamped at 0; the result buffer has
// those extents.
// CHECK-LABEL: func.func @conv_dynamic_hw
// CHECK-DAG: %[[H:.*]] = tensor.dim %arg0, %c1
// CHECK-DAG: %[[W:.*]] = tensor.dim %arg0, %c2
// CHECK-DAG: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[HP:.*]] = arith.addi %[[H]], %c1 : index
// CHECK: %[[OH:.*]] = arith.divsi %[[HP]], %c2 : index
// CHECK: %[[SMALL:.*]] = arith.cmpi slt, %[[OH]], %c1 : index
// CHECK: scf.if %[[SMALL]] {
// CHECK: func.call @tfcc_rt_report_error(%c2_i32)
// CHECK: %[[OHC:.*]] = arith.maxsi %[[OH]], %c0 : index
// CHECK: %[[WP:.*]] = arith.addi %[[W]], %c-2 : index
// CHECK: %[[OWC:.*]] = arith.maxsi
// CHECK: memref.alloc(%[[N]], %[[OHC]], %[[OWC]]) {alignment = 64 : i64} : memref<?x?x?x5xf32>
// CHECK-DAG: %[[H64:.*]] = arith.index_cast %[[H]] : index to i64
// CHECK-DAG: %[[W64:.*]] = arith.index_cast %[[W]] : index to i64
// CHECK-DAG: %[[OH64:.*]] = arith.index_cast %[[OHC]] : index to i64
// CHECK-DAG: %[[OW64:.*]] = arith.index_cast %[[OWC]] : index to i64
// CHECK: call @tfcc_rt_conv2d_f32(%{{.*}}, %{{.*}}, %[[H64]], %[[W64]], %c4_i64, %{{.*}}, %c5_i64, %c3_i64, %c3_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c0_i64, %[[OH64]], %[[OW64]],
func.func @conv_dynamic_hw(%x: tensor<?x?x?x4xf32>, %k: tensor<3x3x4x5xf32>) -> tensor<?x?x?x5xf32> {
  %0 = graph.fused_conv2d %x, %k {dilations = [1, 1], pads = [1, 1, 0, 0], strides = [2, 1]} : (tensor<?x?x?x4xf32>, tensor<3x3x4x5xf32>) -> tensor<?x?x?x5xf32>
  return %0 : tensor<?x?x?x5xf32>
}

// -----

// A dynamic H with a static declared output height: a run-time height that
// gives another output height is reported, and the kernel writes the
// declared 4 rows (never past the buffer).
// CHECK-LABEL: func.func @conv_dynamic_h_static_oh
// CHECK: %[[OH:.*]] = arith.divsi %{{.*}}, %c2 : index
// CHECK: %[[SMALL:.*]] = arith.cmpi slt, %[[OH]], %c1 : index
// CHECK: %[[OTHER:.*]] = arith.cmpi ne, %[[OH]], %c4 : index
// CHECK: %[[BAD:.*]] = arith.ori %[[SMALL]], %[[OTHER]] : i1
// CHECK: scf.if %[[BAD]] {
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x4x6x5xf32>
// CHECK: call @tfcc_rt_conv2d_f32({{.*}}, %c4_i64, %c6_i64,
func.func @conv_dynamic_h_static_oh(%x: tensor<?x?x8x4xf32>, %k: tensor<3x3x4x5xf32>) -> tensor<?x4x6x5xf32> {
  %0 = graph.fused_conv2d %x, %k {dilations = [1, 1], pads = [0, 0, 0, 0], strides = [2, 1]} : (tensor<?x?x8x4xf32>, tensor<3x3x4x5xf32>) -> tensor<?x4x6x5xf32>
  return %0 : tensor<?x4x6x5xf32>
}
