// RUN: tfcc-opt %s -tfcc-arena-allocation -split-input-file -verify-diagnostics | FileCheck %s

// Static buffers that are live at the same time get distinct 64-byte aligned
// offsets in the arena; the sizes are recorded for the header.
// CHECK-LABEL: func.func @static_buffers
// CHECK-SAME: (%[[IN:[a-z0-9]+]]: memref<4xf32>, %[[OUT:[a-z0-9]+]]: memref<4xf32>, %{{[a-z0-9]+}}: memref<3xi32>, %[[ARENA:[a-z0-9]+]]: memref<?xi8>, %[[BATCH:[a-z0-9]+]]: index)
// CHECK-SAME: tfcc.arena_fixed = 128 : i64, tfcc.arena_per_batch = 0 : i64
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: memref.view %[[ARENA]][%[[C0]]][] : memref<?xi8> to memref<4xf32>
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: memref.view %[[ARENA]][%[[C64]]][] : memref<?xi8> to memref<3xi32>
// CHECK-NOT: memref.dealloc
func.func @static_buffers(%in: memref<4xf32>, %out: memref<4xf32>, %out2: memref<3xi32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<3xi32>
  %zero = arith.constant 0 : i32
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  linalg.fill ins(%zero : i32) outs(%b : memref<3xi32>)
  memref.copy %b, %out2 : memref<3xi32> to memref<3xi32>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<3xi32>
  return
}

// -----

// A buffer whose size follows the batch: a buffer live at the same time above
// it has an offset that grows with the batch.
// CHECK-LABEL: func.func @batch_buffers
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<?xi8>, %[[BATCH:[a-z0-9]+]]: index)
// CHECK-SAME: tfcc.arena_fixed = 64 : i64, tfcc.arena_per_batch = 64 : i64
// CHECK: %[[D:[a-z0-9_]+]] = memref.dim
// CHECK: memref.view %[[ARENA]][%{{.*}}][%[[D]]] : memref<?xi8> to memref<?x10xf32>
// CHECK: %[[PER:.*]] = arith.constant 64 : index
// CHECK: %[[SCALED:.*]] = arith.muli %[[BATCH]], %[[PER]]
// CHECK: %[[OFF:.*]] = arith.addi %[[SCALED]], %{{.*}}
// CHECK: memref.view %[[ARENA]][%[[OFF]]][] : memref<?xi8> to memref<16xf32>
func.func private @use(memref<?x10xf32>, memref<16xf32>)
func.func @batch_buffers(%in: memref<?x10xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?x10xf32>
  %a = memref.alloc(%n) : memref<?x10xf32>
  %b = memref.alloc() : memref<16xf32>
  call @use(%a, %b) : (memref<?x10xf32>, memref<16xf32>) -> ()
  return
}

// -----

func.func @quadratic(%in: memref<?x10xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?x10xf32>
  // expected-error @+1 {{tfcc-arena-allocation: the size of buffer 'memref<?x?xf32>' grows faster than linearly with the batch size}}
  %a = memref.alloc(%n, %n) : memref<?x?xf32>
  return
}

// -----

func.func @unknown_size(%in: memref<?x10xf32>, %k: index) {
  // expected-error @+1 {{tfcc-arena-allocation: the size of buffer 'memref<?xf32>' is not an affine function of the batch size}}
  %a = memref.alloc(%k) : memref<?xf32>
  return
}

// -----

// An output twice the batch (a concat along the batch) cannot be described by
// the C interface.
func.func @output_not_batch(%in: memref<?x4xf32>, %out: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %in, %c0 : memref<?x4xf32>
  %m = arith.muli %n, %c2 : index
  %a = memref.alloc(%m) : memref<?x4xf32>
  // expected-error @+1 {{tfcc-arena-allocation: dynamic dimension 0 of output 'memref<?x4xf32>' is 2 * batch + 0; the C interface needs every dynamic dimension of an output to equal the batch size or one named dimension of an input, or to be computed from the named dimensions alone}}
  memref.copy %a, %out : memref<?x4xf32> to memref<?x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @output_is_batch
// CHECK: memref.copy
func.func @output_is_batch(%in: memref<?x4xf32>, %out: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?x4xf32>
  %a = memref.alloc(%n) : memref<?x4xf32>
  memref.copy %a, %out : memref<?x4xf32> to memref<?x4xf32>
  return
}

// -----

// Sizes are followed through collapse_shape/expand_shape views: 3 * batch * 126
// floats collapsed, divided back by 126. Bytes per batch: 1512 -> 1536 and
// 3 * 189 * 4 = 2268 -> 2304, 64-byte aligned (3840 without reuse; the two
// buffers are not live at the same time, so the arena is the larger one).
// CHECK-LABEL: func.func @through_views
// CHECK-SAME: tfcc.arena_fixed = 0 : i64, tfcc.arena_per_batch = 2304 : i64
// CHECK-SAME: size = array<i64: 0, 1536>
// CHECK-SAME: size = array<i64: 0, 2304>
// CHECK-SAME: naive = array<i64: 0, 3840>
func.func @through_views(%in: memref<?x3x5x6x7xf32>) {
  %c126 = arith.constant 126 : index
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?x3x5x6x7xf32>
  %a = memref.alloc(%n) : memref<3x?x6x7x3xf32>
  %flat = memref.collapse_shape %a [[0, 1, 2, 3, 4]] : memref<3x?x6x7x3xf32> into memref<?xf32>
  %total = memref.dim %flat, %c0 : memref<?xf32>
  %rows = arith.divui %total, %c126 : index
  %e = memref.expand_shape %flat [[0, 1, 2, 3]] output_shape [%rows, 6, 7, 3] : memref<?xf32> into memref<?x6x7x3xf32>
  %r = memref.dim %e, %c0 : memref<?x6x7x3xf32>
  %b = memref.alloc(%r) : memref<?x7x9x3xf32>
  return
}
