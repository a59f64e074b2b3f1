// RUN: tfcc-opt %s -tfcc-arena-allocation | FileCheck %s

// A buffer's address handed to a runtime kernel is the arena's address plus
// the buffer's byte offset, spelled out so that expand-strided-metadata
// (which drops memref.view's shift when it rewrites the extraction) cannot
// lose it. A reshape of the buffer keeps its address.
// CHECK-LABEL: func.func @kernel_pointers
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<?xi8>
// CHECK: memref.view %[[ARENA]][%[[OFF_A:.*]]][] : memref<?xi8> to memref<16xf32>
// CHECK: memref.view %[[ARENA]][%[[OFF_B:.*]]][] : memref<?xi8> to memref<4x4xf32>
// CHECK-NOT: memref.extract_aligned_pointer_as_index %view
// CHECK: %[[BASE_A:.*]] = memref.extract_aligned_pointer_as_index %[[ARENA]] : memref<?xi8> -> index
// CHECK: %[[A:.*]] = arith.addi %[[BASE_A]], %[[OFF_A]] : index
// CHECK: %[[BASE_B:.*]] = memref.extract_aligned_pointer_as_index %[[ARENA]] : memref<?xi8> -> index
// CHECK: %[[B:.*]] = arith.addi %[[BASE_B]], %[[OFF_B]] : index
// CHECK: call @kernel(%[[A]], %[[B]])
// CHECK-NOT: memref.extract_aligned_pointer_as_index %view
func.func private @kernel(index, index)
func.func @kernel_pointers(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<4x4xf32>
  %flat = memref.collapse_shape %b [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  %pa = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
  %pb = memref.extract_aligned_pointer_as_index %flat : memref<16xf32> -> index
  func.call @kernel(%pa, %pb) : (index, index) -> ()
  %c0 = arith.constant 0 : index
  %v = memref.load %b[%c0, %c0] : memref<4x4xf32>
  memref.store %v, %out[%c0] : memref<4xf32>
  return
}
