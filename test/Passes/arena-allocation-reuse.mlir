// RUN: tfcc-opt %s -tfcc-arena-allocation -split-input-file | FileCheck %s

// Liveness-based reuse: buffers whose live ranges (first op touching the
// memory .. last use of the buffer or anything derived from it, positions of
// top-level ops) do not overlap share arena space. tfcc.arena_plan records each
// buffer's live range, offset and size as [fixed, per_batch] pairs.

// A chain a -> b -> c: a is dead once b is written, so c reuses a's offset.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<?xi8>, %{{[a-z0-9]+}}: index)
// CHECK-SAME: tfcc.arena_fixed = 128 : i64, tfcc.arena_per_batch = 0 : i64
// CHECK-SAME: bound = array<i64: 128, 0>, bound_at_1 = 128 : i64
// CHECK-SAME: {live = array<i64: 3, 4>, {{[^}]*}}offset = array<i64: 0, 0>, size = array<i64: 64, 0>}
// CHECK-SAME: {live = array<i64: 4, 5>, {{[^}]*}}offset = array<i64: 64, 0>, size = array<i64: 64, 0>}
// CHECK-SAME: {live = array<i64: 5, 6>, {{[^}]*}}offset = array<i64: 0, 0>, size = array<i64: 64, 0>}
// CHECK-SAME: naive = array<i64: 192, 0>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[ARENA]][%[[C0]]][]
// CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[ARENA]][%[[C64]]][]
// CHECK-NEXT: %[[C0_1:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C:.*]] = memref.view %[[ARENA]][%[[C0_1]]][]
// CHECK-NEXT: memref.copy %{{.*}}, %[[A]]
// CHECK-NEXT: memref.copy %[[A]], %[[B]]
// CHECK-NEXT: memref.copy %[[B]], %[[C]]
func.func @chain(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  memref.copy %a, %b : memref<16xf32> to memref<16xf32>
  memref.copy %b, %c : memref<16xf32> to memref<16xf32>
  memref.copy %c, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// A view of a, taken before a is written, is read at the end: a stays live
// until then, so c (written after a's last direct use) cannot take its place.
// CHECK-LABEL: func.func @alias
// CHECK-SAME: tfcc.arena_fixed = 192 : i64
// CHECK-SAME: {live = array<i64: 2, 7>, {{[^}]*}}offset = array<i64: 0, 0>
// CHECK-SAME: {live = array<i64: 4, 6>, {{[^}]*}}offset = array<i64: 64, 0>
// CHECK-SAME: {live = array<i64: 6, 6>, {{[^}]*}}offset = array<i64: 128, 0>
func.func @alias(%in: memref<4x4xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  memref.copy %in, %a : memref<4x4xf32> to memref<4x4xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %flat, %b : memref<16xf32> to memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  memref.copy %b, %c : memref<16xf32> to memref<16xf32>
  memref.copy %flat, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// A pointer extracted from a buffer (as a runtime kernel call takes it) keeps
// the buffer live until the last use of the address, through arith casts.
// CHECK-LABEL: func.func @extracted_pointer
// CHECK-SAME: tfcc.arena_fixed = 192 : i64
// CHECK-SAME: {live = array<i64: 1, 10>, {{[^}]*}}offset = array<i64: 0, 0>
// CHECK-SAME: {live = array<i64: 5, 7>,
// CHECK-SAME: {live = array<i64: 7, 11>,
func.func private @kernel(i64, i64)
func.func @extracted_pointer(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
  %i = arith.index_cast %p : index to i64
  %b = memref.alloc() : memref<16xf32>
  memref.copy %in, %b : memref<16xf32> to memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  memref.copy %b, %c : memref<16xf32> to memref<16xf32>
  %q = memref.extract_aligned_pointer_as_index %c : memref<16xf32> -> index
  %j = arith.index_cast %q : index to i64
  call @kernel(%i, %j) : (i64, i64) -> ()
  memref.copy %c, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// An address stored in memory escapes: the buffer lives to the end.
// CHECK-LABEL: func.func @escape
// CHECK-SAME: tfcc.arena_fixed = 128 : i64
// CHECK-SAME: {live = array<i64: 2, 8>, {{[^}]*}}offset = array<i64: 0, 0>
// CHECK-SAME: {live = array<i64: 6, 7>, {{[^}]*}}offset = array<i64: 64, 0>
func.func @escape(%in: memref<16xf32>, %out: memref<16xf32>, %slot: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
  memref.store %p, %slot[%c0] : memref<1xindex>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %in, %b : memref<16xf32> to memref<16xf32>
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Uses inside a loop count at the loop; a buffer yielded out of a loop lives
// as long as the loop's result. a (read in the loop) and c share space.
// CHECK-LABEL: func.func @loops
// CHECK-SAME: tfcc.arena_fixed = 128 : i64
// CHECK-SAME: {live = array<i64: 5, 6>, {{[^}]*}}offset = array<i64: 64, 0>
// CHECK-SAME: {live = array<i64: 6, 11>, {{[^}]*}}offset = array<i64: 0, 0>
// CHECK-SAME: {live = array<i64: 8, 10>, {{[^}]*}}offset = array<i64: 64, 0>
func.func @loops(%in: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %r = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %b) -> (memref<16xf32>) {
    %v = memref.load %a[%i] : memref<16xf32>
    memref.store %v, %acc[%i] : memref<16xf32>
    scf.yield %acc : memref<16xf32>
  }
  %c = memref.alloc() : memref<16xf32>
  memref.copy %in, %c : memref<16xf32> to memref<16xf32>
  memref.copy %r, %c : memref<16xf32> to memref<16xf32>
  memref.copy %c, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Dynamic batch: sizes and offsets are fixed + per_batch * batch; buffers that
// are live together are apart in both parts, so for every batch >= 1. c reuses
// the space of w (a fixed-size buffer) and a's per-batch part.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<?xi8>, %[[BATCH:[a-z0-9]+]]: index)
// CHECK-SAME: tfcc.arena_fixed = 128 : i64, tfcc.arena_per_batch = 128 : i64
// CHECK-SAME: bound = array<i64: 128, 128>, bound_at_1 = 192 : i64
// CHECK-SAME: {live = array<i64: 6, 9>, {{[^}]*}}offset = array<i64: 128, 0>, size = array<i64: 0, 64>}
// CHECK-SAME: {live = array<i64: 8, 8>, {{[^}]*}}offset = array<i64: 0, 0>, size = array<i64: 128, 0>}
// CHECK-SAME: {live = array<i64: 9, 10>, {{[^}]*}}offset = array<i64: 128, 64>, size = array<i64: 0, 64>}
// CHECK-SAME: {live = array<i64: 10, 11>, {{[^}]*}}offset = array<i64: 0, 0>, size = array<i64: 0, 64>}
// CHECK-SAME: naive = array<i64: 128, 192>
// CHECK: %[[PER:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[SCALED:.*]] = arith.muli %[[BATCH]], %[[PER]]
// CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[SCALED]], %{{.*}}
// CHECK-NEXT: memref.view %[[ARENA]][%[[OFF]]][%{{.*}}] : memref<?xi8> to memref<?x16xf32>
func.func @dynamic(%in: memref<?x16xf32>, %out: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?x16xf32>
  %a = memref.alloc(%n) : memref<?x16xf32>
  %w = memref.alloc() : memref<32xf32>
  %b = memref.alloc(%n) : memref<?x16xf32>
  %c = memref.alloc(%n) : memref<?x16xf32>
  memref.copy %in, %a : memref<?x16xf32> to memref<?x16xf32>
  %c0f = arith.constant 0.0 : f32
  linalg.fill ins(%c0f : f32) outs(%w : memref<32xf32>)
  memref.copy %a, %b : memref<?x16xf32> to memref<?x16xf32>
  memref.copy %b, %c : memref<?x16xf32> to memref<?x16xf32>
  memref.copy %c, %out : memref<?x16xf32> to memref<?x16xf32>
  return
}

// -----

// Runtime kernel calls take addresses extracted from buffers allocated up
// front: a buffer is live from the call that writes it to the last call that
// takes its address, so the third buffer reuses the first one's space.
// CHECK-LABEL: func.func @kernel_calls
// CHECK-SAME: tfcc.arena_fixed = 128 : i64
// CHECK-SAME: {live = array<i64: 7, 10>, {{[^}]*}}offset = array<i64: 0, 0>
// CHECK-SAME: {live = array<i64: 10, 13>, {{[^}]*}}offset = array<i64: 64, 0>
// CHECK-SAME: {live = array<i64: 13, 14>, {{[^}]*}}offset = array<i64: 0, 0>
func.func private @kernel(i64, i64)
func.func @kernel_calls(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %pin = memref.extract_aligned_pointer_as_index %in : memref<16xf32> -> index
  %iin = arith.index_cast %pin : index to i64
  %pa = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
  %ia = arith.index_cast %pa : index to i64
  call @kernel(%iin, %ia) : (i64, i64) -> ()
  %pb = memref.extract_aligned_pointer_as_index %b : memref<16xf32> -> index
  %ib = arith.index_cast %pb : index to i64
  call @kernel(%ia, %ib) : (i64, i64) -> ()
  %pc = memref.extract_aligned_pointer_as_index %c : memref<16xf32> -> index
  %ic = arith.index_cast %pc : index to i64
  call @kernel(%ib, %ic) : (i64, i64) -> ()
  memref.copy %c, %out : memref<16xf32> to memref<16xf32>
  return
}
