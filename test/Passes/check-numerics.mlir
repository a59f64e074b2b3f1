// RUN: tfcc-opt %s -tfcc-check-numerics -split-input-file | FileCheck %s

// After each graph op with a float result: an `any` over its elements of
// "exponent bits all ones" (0x7f800000 for f32) and a report naming the node.
// Constants and integer results are not checked.
// CHECK-LABEL: func.func private @tfcc_rt_report_numerics(!llvm.ptr)
// CHECK-LABEL: func.func @f32_chain
// CHECK: graph.constant
// CHECK-NEXT: %[[SQRT:.*]] = graph.sqrt
// CHECK-NEXT: %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT: %[[EMPTY:.*]] = tensor.empty() : tensor<i1>
// CHECK-NEXT: %[[INIT:.*]] = linalg.fill ins(%[[FALSE]] : i1) outs(%[[EMPTY]] : tensor<i1>)
// CHECK-NEXT: %[[ANY:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
// CHECK-SAME: ins(%[[SQRT]] : tensor<?x4xf32>) outs(%[[INIT]] : tensor<i1>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[ACC:.*]]: i1):
// CHECK-NEXT:   %[[BITS:.*]] = arith.bitcast %[[V]] : f32 to i32
// CHECK-NEXT:   %[[MASK:.*]] = arith.constant 2139095040 : i32
// CHECK-NEXT:   %[[EXP:.*]] = arith.andi %[[BITS]], %[[MASK]] : i32
// CHECK-NEXT:   %[[BAD:.*]] = arith.cmpi eq, %[[EXP]], %[[MASK]] : i32
// CHECK-NEXT:   %[[OR:.*]] = arith.ori %[[ACC]], %[[BAD]] : i1
// CHECK-NEXT:   linalg.yield %[[OR]] : i1
// CHECK: %[[FLAG:.*]] = tensor.extract %[[ANY]][] : tensor<i1>
// CHECK-NEXT: scf.if %[[FLAG]] {
// CHECK-NEXT:   %[[NODE:.*]] = llvm.mlir.addressof @[[ROOT:__tfcc_numerics_node[_0-9]*]]
// CHECK-NEXT:   func.call @tfcc_rt_report_numerics(%[[NODE]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: graph.cast
// CHECK-NEXT: graph.add
// CHECK: llvm.mlir.addressof @[[SUM:__tfcc_numerics_node[_0-9]*]]
// CHECK: return
// CHECK-DAG: llvm.mlir.global internal constant @[[ROOT]]("node 'root' (graph.sqrt)\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[SUM]]("node at check-numerics.mlir{{.*}}:8 (graph.add)\00")
func.func @f32_chain(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xi32>) {
  %c = graph.constant dense<1.0> : tensor<4xf32>
  %r = graph.sqrt %x : tensor<?x4xf32> loc("root")
  %i = graph.cast %r : (tensor<?x4xf32>) -> tensor<?x4xi32> loc("to_int")
  %s = graph.add %r, %c : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %s, %i : tensor<?x4xf32>, tensor<?x4xi32>
}

// -----

// The exponent masks of f16 (0x7c00), bf16 (0x7f80) and f64; a 0-d result.
// CHECK-LABEL: func.func @other_widths
// CHECK: arith.bitcast %{{.*}} : f16 to i16
// CHECK-NEXT: arith.constant 31744 : i16
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK-NEXT: arith.constant 32640 : i16
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK-NEXT: arith.constant 9218868437227405312 : i64
// CHECK: linalg.generic {{.*}}iterator_types = []{{.*}}ins(%{{.*}} : tensor<f32>)
func.func @other_widths(%h: tensor<3xf16>, %b: tensor<3xbf16>, %d: tensor<3xf64>, %s: tensor<f32>)
    -> (tensor<3xf16>, tensor<3xbf16>, tensor<3xf64>, tensor<f32>) {
  %h2 = graph.neg %h : tensor<3xf16> loc("h")
  %b2 = graph.neg %b : tensor<3xbf16> loc("b")
  %d2 = graph.neg %d : tensor<3xf64> loc("d")
  %s2 = graph.neg %s : tensor<f32> loc("s")
  return %h2, %b2, %d2, %s2 : tensor<3xf16>, tensor<3xbf16>, tensor<3xf64>, tensor<f32>
}

// -----

// An op with several results: the float one is checked and named by its
// number; the i8 one is not.
// CHECK-LABEL: func.func @two_results
// CHECK: graph.max_pool2d_with_indices
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK-NOT: arith.bitcast
// CHECK: return
// CHECK: llvm.mlir.global internal constant @{{.*}}("result 0 of node 'pool' (graph.max_pool2d_with_indices)\00")
func.func @two_results(%x: tensor<1x4x4x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x2x2x1xi8>) {
  %y, %taps = graph.max_pool2d_with_indices %x {window = [2, 2], strides = [2, 2]}
      : (tensor<1x4x4x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x2x2x1xi8>) loc("pool")
  return %y, %taps : tensor<1x2x2x1xf32>, tensor<1x2x2x1xi8>
}
