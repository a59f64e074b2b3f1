// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s

// Flatten with a dynamic batch: collapse to 1-D, expand with the batch
// computed as the element count / 1600.
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.*]]: tensor<?x5x5x64xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2, 3]] : tensor<?x5x5x64xf32> into tensor<?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[COUNT:.*]] = arith.muli %[[N]], %c1600
// CHECK: %[[BATCH:.*]] = arith.divui %[[COUNT]], %c1600
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [%[[BATCH]], 1600] : tensor<?xf32> into tensor<?x1600xf32>
func.func @flatten(%x: tensor<?x5x5x64xf32>) -> tensor<?x1600xf32> {
  %r = graph.reshape %x : (tensor<?x5x5x64xf32>) -> tensor<?x1600xf32>
  return %r : tensor<?x1600xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xi32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xi32>) outs(%[[INIT]] : tensor<4x2x3xi32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xi32>) -> tensor<4x2x3xi32> {
  %r = graph.transpose %x {perm = [2, 0, 1]} : (tensor<2x3x4xi32>) -> tensor<4x2x3xi32>
  return %r : tensor<4x2x3xi32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<?x5xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %c0
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[FIRST:.*]] = tensor.insert_slice %[[A]] into %[[EMPTY]][0, 0] [%{{.*}}, 3] [1, 1]
// CHECK: tensor.insert_slice %[[B]] into %[[FIRST]][0, 3] [%{{.*}}, 5] [1, 1]
func.func @concat(%a: tensor<?x3xf32>, %b: tensor<?x5xf32>) -> tensor<?x8xf32> {
  %r = graph.concat %a, %b {axis = 1} : (tensor<?x3xf32>, tensor<?x5xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract_slice %{{.*}}[1, 0] [2, 3] [1, 2] : tensor<4x6xf32> to tensor<2x3xf32>
func.func @slice(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %r = graph.slice %x {starts = [1, 0], limits = [3, -1], strides = [1, 2]} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// The f32 pad value is converted to the element type.
// CHECK-LABEL: func.func @pad_i32
// CHECK: %[[VALUE:.*]] = arith.constant 7 : i32
// CHECK: tensor.pad %{{.*}} low[1, 0] high[0, 2]
// CHECK: tensor.yield %[[VALUE]] : i32
func.func @pad_i32(%x: tensor<2x3xi32>) -> tensor<3x5xi32> {
  %r = graph.pad %x {pads = [1, 0, 0, 2], value = 7.0 : f32} : (tensor<2x3xi32>) -> tensor<3x5xi32>
  return %r : tensor<3x5xi32>
}

// -----

// CHECK-LABEL: func.func @resize_bilinear
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x5x5x2xf32>)
// CHECK-COUNT-2: math.floor
// CHECK: math.ceil
// CHECK-COUNT-4: tensor.extract
func.func @resize_bilinear(%x: tensor<1x3x3x2xf32>) -> tensor<1x5x5x2xf32> {
  %r = graph.resize %x {size = [5, 5], mode = "bilinear"} : (tensor<1x3x3x2xf32>) -> tensor<1x5x5x2xf32>
  return %r : tensor<1x5x5x2xf32>
}

// -----

// Out-of-range indices are reported (code 2) and clamped before the read.
// CHECK-DAG: #[[INDICES:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK: func.func private @tfcc_rt_report_error(i32)
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[TABLE:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<2x3xi32>)
// CHECK: %[[ANY:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[I]] : tensor<2x3xi32>) outs(%{{.*}} : tensor<i1>)
// CHECK: %[[BAD:.*]] = tensor.extract %[[ANY]][] : tensor<i1>
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: %[[CODE:.*]] = arith.constant 2 : i32
// CHECK-NEXT: func.call @tfcc_rt_report_error(%[[CODE]]) : (i32) -> ()
// CHECK: linalg.generic {indexing_maps = [#[[INDICES]], #{{.*}}]
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %[[TABLE]]
func.func @gather(%t: tensor<10x4xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  %r = graph.gather %t, %i {axis = 0} : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// gather_elements: one generic over the indices' shape; out-of-range
// indices are reported (code 2) and clamped; the other dimensions read
// their own index.
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[D:.*]]: tensor<3x4xf32>, %[[I:.*]]: tensor<3x2xi64>)
// CHECK: scf.if
// CHECK-NEXT: %[[CODE:.*]] = arith.constant 2 : i32
// CHECK-NEXT: func.call @tfcc_rt_report_error(%[[CODE]]) : (i32) -> ()
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<3x2xi64>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: arith.maxsi
// CHECK: %[[COL:.*]] = arith.minsi
// CHECK: tensor.extract %[[D]][%[[ROW]], %[[COL]]]
func.func @gather_elements(%d: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %r = graph.gather_elements %d, %i {axis = 1} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// Reflect and edge pads read the input at a mirrored or clamped index: a
// linalg.generic over the result with one tensor.extract; the unpadded
// dimension 0 reads its own index.
// CHECK-LABEL: func.func @pad_reflect
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x6xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[SRC:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK: %[[NEG:.*]] = arith.subi %{{.*}}, %[[SRC]] : index
// CHECK: %[[ABS:.*]] = arith.maxsi %[[SRC]], %[[NEG]] : index
// CHECK: %[[MIRROR:.*]] = arith.subi %{{.*}}, %[[ABS]] : index
// CHECK: %[[COL:.*]] = arith.minsi %[[ABS]], %[[MIRROR]] : index
// CHECK: tensor.extract %{{.*}}[%[[I]], %[[COL]]] : tensor<2x3xf32>
func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %r = graph.pad %x {pads = [0, 0, 2, 1], mode = "reflect"} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// -----

// Edge clamps the index to [0, size - 1]; a dynamic dimension is sized
// as input + pads and checked at run time (size 0 reports code 2).
// CHECK-LABEL: func.func @pad_edge_dynamic
// CHECK: %[[SMALL:.*]] = arith.cmpi sle
// CHECK: scf.if %[[SMALL]]
// CHECK: call @tfcc_rt_report_error
// CHECK: tensor.empty(%{{.*}}) : tensor<?x3xf32>
// CHECK: linalg.generic
// CHECK: %[[SRC:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[LOW:.*]] = arith.maxsi %[[SRC]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.minsi %[[LOW]], %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<?x3xf32>
func.func @pad_edge_dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %r = graph.pad %x {pads = [1, 2, 0, 0], mode = "edge"} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
