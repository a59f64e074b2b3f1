// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s
// RUN: python3 %S/Inputs/make_relu_chain.py 600 > %t.mlir
// RUN: tfcc-opt %t.mlir -tfcc-convert-graph-to-linalg | FileCheck %s --check-prefix=LIMIT

// A tree of single-use elementwise ops of one result shape is one generic over
// the tree's outside operands (each once), broadcast by its maps; the dynamic
// batch comes from the operand that has it.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @tree
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]]
// CHECK-SAME: ins(%[[X]], %[[B]] : tensor<?x3xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<?x3xf32>)
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f32, %[[BE:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[R:.*]] = arith.maximumf %[[XE]]
// CHECK: %[[S:.*]] = arith.addf %[[R]], %[[BE]]
// CHECK: %[[T:.*]] = arith.mulf %[[XE]], %[[BE]]
// CHECK: %[[U:.*]] = arith.subf %[[S]], %[[T]]
// CHECK: linalg.yield %[[U]]
// CHECK-NOT: linalg.generic
func.func @tree(%x: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %r = graph.relu %x : tensor<?x3xf32>
  %s = graph.add %r, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %t = graph.mul %x, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %u = graph.sub %s, %t : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %u : tensor<?x3xf32>
}

// -----

// Element types may change inside a group (cast, compare, select).
// CHECK-LABEL: func.func @types
// CHECK: linalg.generic
// CHECK: arith.fptosi
// CHECK: arith.cmpi sgt
// CHECK: arith.select
// CHECK-NOT: linalg.generic
func.func @types(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %i = graph.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  %c = graph.compare %i, %y {predicate = "gt"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %s = graph.select %c, %i, %y : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %s : tensor<4xi32>
}

// -----

// A value with two uses ends its group, so it is computed once; so does a
// change of shape (a broadcast user). Each is its own generic here.
// CHECK-LABEL: func.func @boundaries
// CHECK: %[[A:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[B:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]] : tensor<3xf32>)
// CHECK: arith.negf
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[B]], %{{.*}} : tensor<3xf32>, tensor<2x3xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @boundaries(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = graph.relu %x : tensor<3xf32>
  %n = graph.neg %a : tensor<3xf32>
  %b = graph.add %a, %n : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c = graph.mul %b, %y : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// A group holds at most 256 ops: 600 relus are three generics.
// LIMIT-COUNT-3: linalg.generic
// LIMIT-NOT: linalg.generic
