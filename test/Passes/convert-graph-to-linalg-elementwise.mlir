// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg -split-input-file | FileCheck %s

// Broadcasting: the rank-1 operand reads the last loop; the dynamic batch
// size comes from the operand that has it.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %c0
// CHECK: %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<?x3xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<?x3xf32>)
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %r = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// Size-1 dims read index 0.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @div_outer_i32
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #{{.*}}]
// CHECK: arith.divsi
func.func @div_outer_i32(%a: tensor<2x1xi32>, %b: tensor<1x4xi32>) -> tensor<2x4xi32> {
  %r = graph.div %a, %b : (tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi32>
  return %r : tensor<2x4xi32>
}

// -----

// CHECK-LABEL: func.func @relu
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.maximumf %{{.*}}, %[[ZERO]] : f32
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = graph.relu %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @gelu_erf
// CHECK: math.erf
func.func @gelu_erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.gelu %x {approximate = "none"} : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @casts
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.cmpf une
func.func @casts(%x: tensor<3xf32>, %b: tensor<3xi1>) -> (tensor<3xi32>, tensor<3xf32>, tensor<3xi1>) {
  %i = graph.cast %x : (tensor<3xf32>) -> tensor<3xi32>
  %f = graph.cast %b : (tensor<3xi1>) -> tensor<3xf32>
  %c = graph.cast %x : (tensor<3xf32>) -> tensor<3xi1>
  return %i, %f, %c : tensor<3xi32>, tensor<3xf32>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @compare_select
// CHECK: arith.cmpf ogt
// CHECK: arith.select
func.func @compare_select(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %c = graph.compare %a, %b {predicate = "gt"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %r = graph.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// dropout is the identity at inference.
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @dropout(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = graph.dropout %x {rate = 5.0e-01 : f32} : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// graph.math: the math dialect's op of each function (libm calls after
// convert-math-to-libm); sign as two compares and selects that keep 0 and
// NaN.
// CHECK-LABEL: func.func @math_functions
// CHECK: math.sin
// CHECK: math.acosh
// CHECK: math.roundeven
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[V:.*]], %[[ZERO:.*]] : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[V]], %[[ZERO]] : f32
// CHECK: %[[NEG:.*]] = arith.select %[[LT]], %{{.*}}, %[[V]] : f32
// CHECK: arith.select %[[GT]], %{{.*}}, %[[NEG]] : f32
func.func @math_functions(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = graph.math "sin" %x : tensor<4xf32>
  %1 = graph.math "acosh" %x : tensor<4xf32>
  %2 = graph.math "round" %x : tensor<4xf32>
  %3 = graph.math "sign" %x : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// graph.mod on i32: remsi by the divisor, 0 and -1 replaced by 1 (no trap),
// then Python's sign: a nonzero remainder whose sign differs from the
// divisor's moves by it. fmod on floats is remf.
// CHECK-LABEL: func.func @mod
// CHECK: %[[TRAP:.*]] = arith.ori
// CHECK: %[[SAFE:.*]] = arith.select %[[TRAP]], %{{.*}}, %[[B:.*]] : i32
// CHECK: %[[R:.*]] = arith.remsi %{{.*}}, %[[SAFE]] : i32
// CHECK: arith.xori
// CHECK: %[[MOVED:.*]] = arith.addi %[[R]], %[[B]] : i32
// CHECK: arith.select %{{.*}}, %[[MOVED]], %[[R]] : i32
// CHECK: arith.remf
func.func @mod(%a: tensor<4xi32>, %b: tensor<4xi32>, %x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %0 = graph.mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = graph.mod %x, %x {fmod = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xi32>, tensor<4xf32>
}
