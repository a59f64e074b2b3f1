// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -cse -split-input-file | FileCheck %s

// layer_norm over the last two dims (4 x 8 = 32 columns per row; rows = the
// dynamic batch * 3) and softmax / log_softmax over the last axis call the
// row-wise kernels.
// CHECK-DAG: func.func private @tfcc_rt_layer_norm_f32(!llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr, f32, !llvm.ptr)
// CHECK-DAG: func.func private @tfcc_rt_softmax_f32(!llvm.ptr, i64, i64, i32, !llvm.ptr)
// CHECK-LABEL: func.func @rowwise
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[ROWS:.*]] = arith.muli %[[N]], %c3
// CHECK: %[[R:.*]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: call @tfcc_rt_layer_norm_f32(%{{.*}}, %[[R]], %c32_i64, %{{.*}}, %{{.*}}, %[[EPS]], %{{.*}})
// CHECK: call @tfcc_rt_softmax_f32(%{{.*}}, %{{.*}}, %c8_i64, %c0_i32, %{{.*}})
// CHECK: call @tfcc_rt_softmax_f32(%{{.*}}, %{{.*}}, %c8_i64, %c1_i32, %{{.*}})
func.func @rowwise(%x: tensor<?x3x4x8xf32>, %g: tensor<4x8xf32>, %b: tensor<4x8xf32>)
    -> (tensor<?x3x4x8xf32>, tensor<?x3x4x8xf32>, tensor<?x3x4x8xf32>) {
  %0 = graph.layer_norm %x, %g, %b {axis = 2, epsilon = 1.0e-05 : f32} : (tensor<?x3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<?x3x4x8xf32>
  %1 = graph.softmax %x : tensor<?x3x4x8xf32>
  %2 = graph.log_softmax %x {axis = 3} : tensor<?x3x4x8xf32>
  return %0, %1, %2 : tensor<?x3x4x8xf32>, tensor<?x3x4x8xf32>, tensor<?x3x4x8xf32>
}

// -----

// Softmax over another axis than the last: the linalg lowering stays.
// CHECK-LABEL: func.func @not_rowwise
// CHECK-NOT: call @tfcc_rt
// CHECK: linalg.generic
func.func @not_rowwise(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.softmax %x {axis = 1} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// top_k_indices: the runtime's selection kernel over [rows, cols] with the
// batch's rows, writing the i64 indices.
// CHECK-LABEL: func.func @top_k_indices
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x3xi64>
// CHECK: call @tfcc_rt_top_k_indices_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i64, i64, i32, !llvm.ptr) -> ()
func.func @top_k_indices(%x: tensor<?x10xf32>) -> tensor<?x3xi64> {
  %0 = graph.top_k_indices %x {k = 3, largest = false} : (tensor<?x10xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}
