// RUN: tfcc-opt %s -split-input-file -tfcc-lower-linalg-to-parallel-loops | FileCheck %s
// The same loops as MLIR's own pass, which visits every op on the way:
// RUN: tfcc-opt %s -split-input-file -tfcc-lower-linalg-to-parallel-loops -canonicalize > %t.tfcc
// RUN: tfcc-opt %s -split-input-file -convert-linalg-to-parallel-loops -canonicalize > %t.upstream
// RUN: diff %t.tfcc %t.upstream

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// Elementwise with a broadcast operand and an operand the body does not
// read: one parallel nest, no affine.apply left, no load of %unused.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[A:.*]]: memref<?x8xf32>, %[[B:.*]]: memref<8xf32>, %[[U:.*]]: memref<?x8xf32>, %[[OUT:.*]]: memref<?x8xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x8xf32>
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%[[N]], %{{.*}}) step
// CHECK-NOT: affine.apply
// CHECK-NOT: memref.load %[[U]]
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[I]], %[[J]]]
// CHECK: %[[Y:.*]] = memref.load %[[B]][%[[J]]]
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK: memref.store %[[S]], %[[OUT]][%[[I]], %[[J]]]
// CHECK-NOT: linalg.
func.func @elementwise(%a: memref<?x8xf32>, %b: memref<8xf32>,
                       %unused: memref<?x8xf32>, %out: memref<?x8xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %unused : memref<?x8xf32>, memref<8xf32>, memref<?x8xf32>)
      outs(%out : memref<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %u: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A named op with a reduction: the parallel dimensions in scf.parallel,
// the reduction in an scf.for inside.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK: scf.for %[[K:.*]] =
// CHECK: memref.load %{{.*}}[%[[I]], %[[K]]] : memref<4x3xf32>
// CHECK: memref.load %{{.*}}[%[[K]], %[[J]]] : memref<3x5xf32>
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}[%[[I]], %[[J]]] : memref<4x5xf32>
// CHECK-NOT: linalg.
func.func @matmul(%a: memref<4x3xf32>, %b: memref<3x5xf32>,
                  %c: memref<4x5xf32>) {
  linalg.matmul ins(%a, %b : memref<4x3xf32>, memref<3x5xf32>)
                outs(%c : memref<4x5xf32>)
  return
}

// -----

// linalg.index becomes the induction variable.
// CHECK-LABEL: func.func @index
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[V:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]]]
func.func @index(%out: memref<7xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]} outs(%out : memref<7xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i32
    linalg.yield %v : i32
  }
  return
}

// -----

// On tensors the op stays: it is not for this pass.
// CHECK-LABEL: func.func @tensors
// CHECK: linalg.generic
// CHECK-NOT: scf.parallel
func.func @tensors(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
