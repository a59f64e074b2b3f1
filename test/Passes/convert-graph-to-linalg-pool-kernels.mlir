// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -cse -split-input-file | FileCheck %s

// ONNX MaxPool with pads arrives as a -inf pad then a VALID max_pool2d: the
// pooling kernel pads implicitly (top 1, left 1) and reads the unpadded input.
// CHECK: func.func private @tfcc_rt_pool2d_f32(!llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr)
// CHECK-LABEL: func.func @max_pool_padded
// CHECK: %[[X:.*]] = bufferization.to_memref %arg0 read_only {tfcc.kernel_read = {{[0-9]+}} : i64} : memref<?x8x8x4xf32>
// CHECK: call @tfcc_rt_pool2d_f32(%{{.*}}, %{{.*}}, %c8_i64, %c8_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c4_i64, %c4_i64, %c0_i32, %{{.*}})
func.func @max_pool_padded(%x: tensor<?x8x8x4xf32>) -> tensor<?x4x4x4xf32> {
  %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0], value = 0xFF800000 : f32} : (tensor<?x8x8x4xf32>) -> tensor<?x10x10x4xf32>
  %0 = graph.max_pool2d %p {window = [3, 3], strides = [2, 2]} : (tensor<?x10x10x4xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

// avg_pool2d SAME divides by the real elements (mode 1) with TF's padding
// (the odd one at the bottom/right: top/left 0 here); a VALID avg_pool2d of
// a zero pad divides by the whole window (mode 2, count_include_pad).
// CHECK-LABEL: func.func @avg_pools
// CHECK: call @tfcc_rt_pool2d_f32(%{{.*}}, %{{.*}}, %c5_i64, %c5_i64, %c2_i64, %c2_i64, %c2_i64, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c3_i64, %c3_i64, %c1_i32, %{{.*}})
// CHECK: call @tfcc_rt_pool2d_f32(%{{.*}}, %{{.*}}, %c5_i64, %c5_i64, %c2_i64, %c3_i64, %c3_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c5_i64, %c5_i64, %c2_i32, %{{.*}})
func.func @avg_pools(%x: tensor<1x5x5x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x5x5x2xf32>) {
  %0 = graph.avg_pool2d %x {window = [2, 2], padding = "same"} : (tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32>
  %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<1x5x5x2xf32>) -> tensor<1x7x7x2xf32>
  %1 = graph.avg_pool2d %p {window = [3, 3], strides = [1, 1]} : (tensor<1x7x7x2xf32>) -> tensor<1x5x5x2xf32>
  return %0, %1 : tensor<1x3x3x2xf32>, tensor<1x5x5x2xf32>
}

// -----

// A pad by a finite value is not padding a max pool ignores: it stays.
// CHECK-LABEL: func.func @max_pool_finite_pad
// CHECK: tensor.pad
// CHECK: call @tfcc_rt_pool2d_f32(%{{.*}}, %{{.*}}, %c6_i64, %c6_i64
func.func @max_pool_finite_pad(%x: tensor<1x4x4x1xf32>) -> tensor<1x3x3x1xf32> {
  %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0], value = 1.0 : f32} : (tensor<1x4x4x1xf32>) -> tensor<1x6x6x1xf32>
  %0 = graph.max_pool2d %p {window = [2, 2]} : (tensor<1x6x6x1xf32>) -> tensor<1x3x3x1xf32>
  return %0 : tensor<1x3x3x1xf32>
}

// -----

// H and W known only at run time: the kernel takes them from the input (the
// absorbed -inf pad counts 1 + 1 each way) and the output's are computed,
// an input smaller than the window reported (code 2).
// CHECK-LABEL: func.func @max_pool_dynamic_hw
// CHECK-DAG: %[[H:.*]] = tensor.dim %arg0, %c1
// CHECK-DAG: %[[W:.*]] = tensor.dim %arg0, %c2
// CHECK: %[[HP:.*]] = arith.addi %[[H]], %c1 : index
// CHECK: %[[OH:.*]] = arith.divsi %[[HP]], %c2 : index
// CHECK: scf.if
// CHECK: func.call @tfcc_rt_report_error(%c2_i32)
// CHECK: %[[OHC:.*]] = arith.maxsi %[[OH]], %c0 : index
// CHECK: %[[OWC:.*]] = arith.maxsi
// CHECK: memref.alloc(%{{.*}}, %[[OHC]], %[[OWC]]) {alignment = 64 : i64} : memref<?x?x?x4xf32>
// CHECK: call @tfcc_rt_pool2d_f32(
func.func @max_pool_dynamic_hw(%x: tensor<?x?x?x4xf32>) -> tensor<?x?x?x4xf32> {
  %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0], value = 0xFF800000 : f32} : (tensor<?x?x?x4xf32>) -> tensor<?x?x?x4xf32>
  %0 = graph.max_pool2d %p {window = [3, 3], strides = [2, 2]} : (tensor<?x?x?x4xf32>) -> tensor<?x?x?x4xf32>
  return %0 : tensor<?x?x?x4xf32>
}

// -----

// 8-bit max pooling (quantized data) is the uint8 / int8 kernel (is_signed 0
// and 1), which absorbs a pad by the type's lowest value (0, -128) as the
// float kernel absorbs -inf; a pad by a larger value stays.
// CHECK: func.func private @tfcc_rt_max_pool2d_i8(!llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr)
// CHECK-LABEL: func.func @max_pool_8bit
// CHECK: call @tfcc_rt_max_pool2d_i8(%{{.*}}, %{{.*}}, %c8_i64, %c8_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c4_i64, %c4_i64, %c0_i32, %{{.*}})
// CHECK: call @tfcc_rt_max_pool2d_i8(%{{.*}}, %{{.*}}, %c8_i64, %c8_i64, %c4_i64, %c2_i64, %c2_i64, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c4_i64, %c4_i64, %c1_i32, %{{.*}})
// CHECK: tensor.pad
// CHECK: call @tfcc_rt_max_pool2d_i8(%{{.*}}, %{{.*}}, %c10_i64, %c10_i64, %c4_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c4_i64, %c4_i64, %c0_i32, %{{.*}})
func.func @max_pool_8bit(%u: tensor<?x8x8x4xui8>, %s: tensor<1x8x8x4xi8>) -> (tensor<?x4x4x4xui8>, tensor<1x4x4x4xi8>, tensor<?x4x4x4xui8>) {
  %p = graph.pad %u {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<?x8x8x4xui8>) -> tensor<?x10x10x4xui8>
  %0 = graph.max_pool2d %p {window = [3, 3], strides = [2, 2]} : (tensor<?x10x10x4xui8>) -> tensor<?x4x4x4xui8>
  %1 = graph.max_pool2d %s {window = [2, 2]} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  %p2 = graph.pad %u {pads = [0, 0, 1, 1, 1, 1, 0, 0], value = 1.0 : f32} : (tensor<?x8x8x4xui8>) -> tensor<?x10x10x4xui8>
  %2 = graph.max_pool2d %p2 {window = [3, 3], strides = [2, 2]} : (tensor<?x10x10x4xui8>) -> tensor<?x4x4x4xui8>
  return %0, %1, %2 : tensor<?x4x4x4xui8>, tensor<1x4x4x4xi8>, tensor<?x4x4x4xui8>
}
