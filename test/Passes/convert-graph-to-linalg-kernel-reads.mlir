// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -cse | FileCheck %s
// RUN: tfcc-opt %s --pass-pipeline='builtin.module(tfcc-convert-graph-to-linalg,canonicalize,cse,tfcc-fuse-elementwise,canonicalize,tfcc-split-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize)' \
// RUN:   | FileCheck %s --check-prefix=BUFFERS

// Two kernel calls read %t: each keeps its own read (to_memref) after CSE.
// With one read merged into the first call, bufferization took %t for dead
// after it and wrote the mul in between into %t's buffer, so the second
// GEMM read the mul's values (found by random-graph testing: the gradient
// of a dense kernel after global_avg_pool2d was wrong in training).
// CHECK-LABEL: func.func @two_reads
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: bufferization.to_memref %[[T]] read_only {tfcc.kernel_read = 0 : i64}
// CHECK: call @tfcc_rt_sgemm
// CHECK: call @tfcc_rt_sgemm
// CHECK: bufferization.to_memref %[[T]] read_only {tfcc.kernel_read = 1 : i64}
// CHECK: call @tfcc_rt_sgemm

// After bufferization the mul writes a buffer of its own, and the last GEMM
// reads the tanh's buffer.
// BUFFERS-LABEL: func.func @two_reads
// BUFFERS: outs(%[[TANH:[a-z_0-9]+]] : memref<3x4xf32>)
// BUFFERS-NEXT: ^bb0
// BUFFERS-NEXT: math.tanh
// BUFFERS-NOT: outs(%[[TANH]] :
// BUFFERS: arith.mulf
// BUFFERS-NOT: outs(%[[TANH]] :
// BUFFERS: memref.extract_aligned_pointer_as_index %[[TANH]]
// BUFFERS: return
func.func @two_reads(%x: tensor<3x4xf32>, %w: tensor<4x6xf32>, %d: tensor<3x4xf32>,
                     %s: tensor<f32>, %g: tensor<3x6xf32>) -> (tensor<4x6xf32>, tensor<6x4xf32>) {
  %t = graph.tanh %x : tensor<3x4xf32>
  %h = graph.matmul %t, %w : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
  %m = graph.mul %d, %s : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %a = graph.matmul %h, %m {transpose_a = true} : (tensor<3x6xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  %b = graph.matmul %t, %g {transpose_a = true} : (tensor<3x4xf32>, tensor<3x6xf32>) -> tensor<4x6xf32>
  return %b, %a : tensor<4x6xf32>, tensor<6x4xf32>
}
