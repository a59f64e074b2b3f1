// RUN: tfcc-opt %s -tfcc-return-on-numerics-report -split-input-file | FileCheck %s

// Each report becomes a branch to a block that reports and returns; the rest
// of the function after it.
// CHECK-LABEL: func.func @two_reports
// CHECK-SAME: (%[[BAD0:.*]]: i1, %[[BAD1:.*]]: i1, %[[Y:.*]]: memref<4xf32>)
// CHECK: cf.cond_br %[[BAD0]], ^[[REPORT0:.*]], ^[[REST0:.*]]
// CHECK: ^[[REPORT0]]:
// CHECK-NEXT: %[[NODE0:.*]] = llvm.mlir.addressof @node_a
// CHECK-NEXT: call @tfcc_rt_report_numerics(%[[NODE0]])
// CHECK-NEXT: return
// CHECK: ^[[REST0]]:
// CHECK-NEXT: memref.store
// CHECK-NEXT: cf.cond_br %[[BAD1]], ^[[REPORT1:.*]], ^[[REST1:.*]]
// CHECK: ^[[REPORT1]]:
// CHECK-NEXT: llvm.mlir.addressof @node_b
// CHECK-NEXT: call @tfcc_rt_report_numerics
// CHECK-NEXT: return
// CHECK: ^[[REST1]]:
// CHECK-NEXT: memref.store
// CHECK-NEXT: return
llvm.mlir.global internal constant @node_a("node 'a' (graph.log)\00")
llvm.mlir.global internal constant @node_b("node 'b' (graph.exp)\00")
func.func private @tfcc_rt_report_numerics(!llvm.ptr)
func.func @two_reports(%bad0: i1, %bad1: i1, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  scf.if %bad0 {
    %node = llvm.mlir.addressof @node_a : !llvm.ptr
    func.call @tfcc_rt_report_numerics(%node) : (!llvm.ptr) -> ()
  }
  memref.store %one, %y[%c0] : memref<4xf32>
  scf.if %bad1 {
    %node = llvm.mlir.addressof @node_b : !llvm.ptr
    func.call @tfcc_rt_report_numerics(%node) : (!llvm.ptr) -> ()
  }
  memref.store %one, %y[%c0] : memref<4xf32>
  return
}

// -----

// Other conditionals, and a function with results (nothing to return yet),
// stay as they are.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: cf.cond_br
// CHECK: scf.if
// CHECK: call @tfcc_rt_report_error
// CHECK-LABEL: func.func @with_result
// CHECK-NOT: cf.cond_br
// CHECK: scf.if
// CHECK: call @tfcc_rt_report_numerics
llvm.mlir.global internal constant @node_c("node 'c' (graph.log)\00")
func.func private @tfcc_rt_report_numerics(!llvm.ptr)
func.func private @tfcc_rt_report_error(i32)
func.func @kept(%bad: i1) {
  scf.if %bad {
    %c3 = arith.constant 3 : i32
    func.call @tfcc_rt_report_error(%c3) : (i32) -> ()
  }
  return
}
func.func @with_result(%bad: i1) -> i32 {
  scf.if %bad {
    %node = llvm.mlir.addressof @node_c : !llvm.ptr
    func.call @tfcc_rt_report_numerics(%node) : (!llvm.ptr) -> ()
  }
  %c0 = arith.constant 0 : i32
  return %c0 : i32
}
