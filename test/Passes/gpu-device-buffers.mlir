// RUN: tfcc-opt %s -tfcc-gpu-device-buffers -split-input-file -verify-diagnostics | FileCheck %s

// The CUDA target: the input, the weights and the output get device copies
// (the output copied back, not in), the arena stays as it is, a copy between
// device buffers is a gpu.memcpy, an error reported inside a kernel goes to
// a device word the host reads back, and a scalar the host reads is copied
// to host memory first.

// CHECK: func.func private @tfcc_rt_cuda_weight(i64, i64) -> i64
module {
  memref.global "private" constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  func.func private @tfcc_rt_report_error(i32)
  // CHECK-LABEL: func.func @f(
  // CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?x4xf32>, %[[Y:[a-z0-9]+]]: memref<?x4xf32>, %[[FLAG:[a-z0-9]+]]: memref<i1>, %[[ARENA:[a-z0-9]+]]: memref<?xi8>
  func.func @f(%x: memref<?x4xf32>, %y: memref<?x4xf32>, %flag: memref<i1>, %arena: memref<?xi8>, %batch: index) attributes {tfcc.arena_fixed = 0 : i64} {
    // CHECK: %[[ERR:.*]] = gpu.alloc () : memref<i32>
    // CHECK: gpu.memset %[[ERR]], %{{.*}} : memref<i32>, i32
    // CHECK: %[[N:.*]] = memref.dim %[[X]]
    // CHECK: %[[DX:.*]] = gpu.alloc (%[[N]]) : memref<?x4xf32>
    // CHECK: gpu.memcpy %[[DX]], %[[X]]
    // CHECK: %[[DY:.*]] = gpu.alloc (%{{.*}}) : memref<?x4xf32>
    // CHECK-NOT: gpu.memcpy %[[DY]], %[[Y]]
    // CHECK: %[[DFLAG:.*]] = gpu.alloc () : memref<i1>
    // The weight: its device copy (uploaded once by the runtime) as a view of
    // the arena at the difference of the addresses.
    // CHECK: %[[W:.*]] = memref.get_global @w
    // CHECK: %[[HOST:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
    // CHECK: %[[HOST64:.*]] = arith.index_cast %[[HOST]] : index to i64
    // CHECK: %[[BYTES:.*]] = arith.constant 16 : i64
    // CHECK: %[[DEV:.*]] = call @tfcc_rt_cuda_weight(%[[HOST64]], %[[BYTES]]) : (i64, i64) -> i64
    // CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[ARENA]]
    // CHECK: %[[DEVIDX:.*]] = arith.index_cast %[[DEV]] : i64 to index
    // CHECK: %[[SHIFT:.*]] = arith.subi %[[DEVIDX]], %[[BASE]] : index
    // CHECK: %[[DW:.*]] = memref.view %[[ARENA]][%[[SHIFT]]][] : memref<?xi8> to memref<4xf32>
    %w = memref.get_global @w : memref<4xf32>
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?x4xf32>
    // CHECK: %[[T:.*]] = memref.view %[[ARENA]]
    %t = memref.view %arena[%c0][%n] : memref<?xi8> to memref<?x4xf32>
    // CHECK: linalg.generic {{.*}} ins(%[[DX]], %[[DW]] : {{.*}}) outs(%[[T]] :
    // CHECK: memref.atomic_rmw maxs %{{.*}}, %[[ERR]][]
    // CHECK-NOT: call @tfcc_rt_report_error
    // CHECK: linalg.yield
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %w : memref<?x4xf32>, memref<4xf32>) outs(%t : memref<?x4xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %bad = arith.cmpf olt, %a, %b : f32
      scf.if %bad {
        %code = arith.constant 3 : i32
        func.call @tfcc_rt_report_error(%code) : (i32) -> ()
      }
      %s = arith.mulf %a, %b : f32
      linalg.yield %s : f32
    }
    // CHECK: %[[HOSTFLAG:.*]] = memref.alloca() : memref<i1>
    // CHECK: gpu.memcpy %[[HOSTFLAG]], %[[DFLAG]]
    // CHECK: memref.load %[[HOSTFLAG]][]
    // CHECK: call @tfcc_rt_report_error
    %any = memref.load %flag[] : memref<i1>
    scf.if %any {
      %code = arith.constant 2 : i32
      func.call @tfcc_rt_report_error(%code) : (i32) -> ()
    }
    // CHECK: gpu.memcpy %[[DY]], %[[T]]
    memref.copy %t, %y : memref<?x4xf32> to memref<?x4xf32>
    // CHECK: %[[WORD:.*]] = memref.alloca() : memref<i32>
    // CHECK: gpu.memcpy %[[WORD]], %[[ERR]]
    // CHECK: %[[CODE:.*]] = memref.load %[[WORD]][]
    // CHECK: scf.if
    // CHECK: call @tfcc_rt_report_error(%[[CODE]])
    // CHECK: gpu.dealloc %[[ERR]]
    // CHECK: gpu.memcpy %[[Y]], %[[DY]]
    // CHECK-DAG: gpu.dealloc %[[DX]]
    // CHECK-DAG: gpu.dealloc %[[DY]]
    // CHECK-NOT: gpu.dealloc %[[DW]]
    // CHECK: return
    return
  }
}

// -----

// A copy of a strided (non-contiguous) view is a kernel, not a memcpy.
// CHECK-LABEL: func.func @strided(
func.func @strided(%x: memref<4x4xf32>, %y: memref<4x2xf32>, %arena: memref<?xi8>, %batch: index) attributes {tfcc.arena_fixed = 0 : i64} {
  %s = memref.subview %x[0, 0] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1]>>
  // CHECK: linalg.copy ins(%{{.*}} : memref<4x2xf32, strided<[4, 1]>>) outs(%{{.*}} : memref<4x2xf32>)
  memref.copy %s, %y : memref<4x2xf32, strided<[4, 1]>> to memref<4x2xf32>
  return
}

// -----

// expected-error @+1 {{an entry without an arena plan}}
func.func @unplanned(%x: memref<4xf32>) {
  return
}
