// RUN: tfcc-opt %s -tfcc-profile-spans | FileCheck %s

// The counter and the hooks (the string constants at the end).
// CHECK-DAG: llvm.mlir.global external @tfcc_rt_profiling_active() {{.*}} : i32
// CHECK-DAG: func.func private @tfcc_rt_profile_begin(!llvm.ptr, !llvm.ptr)
// CHECK-DAG: func.func private @tfcc_rt_profile_end()

func.func private @tfcc_rt_pack(!llvm.ptr)
func.func private @tfcc_rt_conv(!llvm.ptr, !llvm.ptr)
func.func private @tfcc_rt_report_error(i32)

#id = affine_map<(d0) -> (d0)>

// Two kernel calls of one node make one span (address arithmetic between
// them inside it); each node after it its own; the error report is no span.
// CHECK-LABEL: func.func @__tfcc_impl_predict
func.func @__tfcc_impl_predict(%x: memref<16xf32>, %y: memref<16xf32>, %p: !llvm.ptr, %bad: i1) {
  // CHECK: %[[A0:.*]] = llvm.mlir.addressof @tfcc_rt_profiling_active
  // CHECK-NEXT: %[[F0:.*]] = llvm.load %[[A0]] : !llvm.ptr -> i32
  // CHECK-NEXT: %[[Z0:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[ON0:.*]] = arith.cmpi ne, %[[F0]], %[[Z0]] : i32
  // CHECK-NEXT: scf.if %[[ON0]] {
  // CHECK-NEXT:   %[[N0:.*]] = llvm.mlir.addressof @[[CONV:__tfcc_span_name[_0-9]*]]
  // CHECK-NEXT:   %[[K0:.*]] = llvm.mlir.addressof @[[CONV_KIND:__tfcc_span_name[_0-9]*]]
  // CHECK-NEXT:   func.call @tfcc_rt_profile_begin(%[[N0]], %[[K0]])
  // CHECK-NEXT: }
  // CHECK-NEXT: call @tfcc_rt_pack
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: call @tfcc_rt_conv
  // CHECK-NEXT: scf.if %[[ON0]] {
  // CHECK-NEXT:   func.call @tfcc_rt_profile_end() : () -> ()
  // CHECK-NEXT: }
  call @tfcc_rt_pack(%p) : (!llvm.ptr) -> () loc("conv1")
  %q = llvm.getelementptr %p[16] : (!llvm.ptr) -> !llvm.ptr, f32 loc("conv1")
  call @tfcc_rt_conv(%p, %q) : (!llvm.ptr, !llvm.ptr) -> () loc("conv1")
  // CHECK: %[[ON1:.*]] = arith.cmpi ne
  // CHECK-NEXT: scf.if %[[ON1]] {
  // CHECK-NEXT:   llvm.mlir.addressof @[[RELU:__tfcc_span_name[_0-9]*]]
  // CHECK-NEXT:   llvm.mlir.addressof @[[GENERIC:__tfcc_span_name[_0-9]*]]
  // CHECK: linalg.generic
  // CHECK: scf.if %[[ON1]] {
  // CHECK-NEXT:   func.call @tfcc_rt_profile_end()
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %c0 : f32
    linalg.yield %r : f32
  } loc("conv1/relu")
  // CHECK-NOT: addressof @{{.*}}
  // CHECK: scf.if %arg3 {
  // CHECK-NEXT: func.call @tfcc_rt_report_error
  %c3 = arith.constant 3 : i32
  scf.if %bad {
    func.call @tfcc_rt_report_error(%c3) : (i32) -> ()
  } loc("gather")
  // A fused op names its nodes; an unnamed one its file position; one
  // without either its kind.
  // CHECK: llvm.mlir.addressof @[[FUSED:__tfcc_span_name[_0-9]*]]
  // CHECK: linalg.generic
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } loc(fused["add", "scale"])
  // CHECK: llvm.mlir.addressof @[[UNNAMED:__tfcc_span_name[_0-9]*]]
  // CHECK-NEXT: llvm.mlir.addressof @[[COPY:__tfcc_span_name[_0-9]*]]
  // CHECK: memref.copy
  memref.copy %y, %x : memref<16xf32> to memref<16xf32> loc("/some/folder/model.mlir":7:3)
  // CHECK: llvm.mlir.addressof @[[COPY]]
  // CHECK-NEXT: llvm.mlir.addressof @[[COPY]]
  // CHECK: memref.copy
  memref.copy %x, %y : memref<16xf32> to memref<16xf32> loc(unknown)
  // CHECK: scf.if
  // CHECK-NEXT: func.call @tfcc_rt_profile_end()
  // CHECK-NEXT: }
  // CHECK-NEXT: return
  return
}

// Only entry functions (tfcc-rename-entries' __tfcc_impl_ prefix) get spans.
// CHECK-LABEL: func.func @helper
// CHECK-NOT: tfcc_rt_profile
// CHECK: return
func.func @helper(%p: !llvm.ptr) {
  call @tfcc_rt_pack(%p) : (!llvm.ptr) -> () loc("conv1")
  return
}

// One string constant per distinct name or kind, after the functions.
// CHECK-DAG: llvm.mlir.global internal constant @[[CONV]]("conv1\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[CONV_KIND]]("tfcc_rt_pack+tfcc_rt_conv\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[RELU]]("conv1/relu\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[GENERIC]]("linalg.generic\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[FUSED]]("add+scale\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[UNNAMED]]("model.mlir:7:3\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[COPY]]("memref.copy\00")
