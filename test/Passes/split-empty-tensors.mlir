// RUN: tfcc-opt %s -tfcc-split-empty-tensors | FileCheck %s
// RUN: tfcc-opt %s -tfcc-split-empty-tensors -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | FileCheck %s --check-prefix=BUFFERS

// Three linalg ops write into one (CSE'd) empty tensor: each gets its own,
// created after the original, which keeps one use.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-COUNT-3: tensor.empty() : tensor<2x8xf32>
// CHECK-NOT: tensor.empty
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x8xf32>) outs(%[[E1:.*]] : tensor<2x8xf32>)
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<2x8xf32>) outs(%[[E2:.*]] : tensor<2x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<2x8xf32>, tensor<2x8xf32>) outs(%[[E3:.*]] : tensor<2x8xf32>)
// Bufferized, the same three buffers as with the shared one, no copies.
// BUFFERS-LABEL: func.func @shared
// BUFFERS-COUNT-3: memref.alloc()
// BUFFERS-NOT: memref.copy
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<2x8xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<2x8xf32>
  %c = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.subf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}

// Dynamic sizes: the copies are created after the original, where the size
// is defined, so they dominate every use.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.*]] = tensor.dim
// CHECK-COUNT-2: tensor.empty(%[[N]]) : tensor<?x8xf32>
func.func @dynamic(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<?x8xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<?x8xf32>
  return %a, %b : tensor<?x8xf32>, tensor<?x8xf32>
}
