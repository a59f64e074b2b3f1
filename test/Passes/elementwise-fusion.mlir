// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -canonicalize -cse -tfcc-fuse-elementwise -canonicalize | FileCheck %s
// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -canonicalize -cse | FileCheck %s --check-prefix=BEFORE

// An elementwise chain (x * (scale * gain) + shift, then tanh, then a
// broadcast add) is two linalg.generics after lowering (the lowering computes
// a tree of single-use ops of one shape in one generic; scale * gain has
// another shape) and one loop nest after tfcc-fuse-elementwise (upstream's
// linalg-fuse-elementwise-ops plus one rule), which tfcc's pipeline runs right
// after the lowering (compiler/Pipeline.cpp): no intermediate tensor is
// materialized.
// BEFORE-LABEL: func.func @chain
// BEFORE-COUNT-2: linalg.generic
// BEFORE-NOT: linalg.generic
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: arith.addf
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<?x8xf32>, %scale: tensor<8xf32>, %gain: tensor<8xf32>, %shift: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %s = graph.mul %scale, %gain : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %0 = graph.mul %x, %s : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %1 = graph.add %0, %shift : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %2 = graph.tanh %1 : tensor<?x8xf32>
  %3 = graph.add %2, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %3 : tensor<?x8xf32>
}
