// RUN: tfcc-opt %s -tfcc-check-gpu-placement -split-input-file -verify-diagnostics | FileCheck %s

// The CUDA target: after the loops became GPU kernels, host code may move
// and size buffers, launch kernels, call functions that take no buffer and
// read its own stack buffers, nothing else.

// CHECK-LABEL: func.func @placed(
func.func private @tfcc_rt_report_error(i32)
func.func @placed(%x: memref<4xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %d = gpu.alloc () : memref<4xf32>
  gpu.memcpy %d, %x : memref<4xf32>, memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %v = memref.load %d[%c0] : memref<4xf32>
    memref.store %v, %d[%c0] : memref<4xf32>
    gpu.terminator
  }
  %word = memref.alloca() : memref<i32>
  %code = memref.load %word[] : memref<i32>
  func.call @tfcc_rt_report_error(%code) : (i32) -> ()
  gpu.dealloc %d : memref<4xf32>
  return
}

// -----

func.func @host_load(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tfcc cannot run 'memref.load' on the GPU: it is not in a GPU kernel, and the host cannot read device memory}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return %v : f32
}

// -----

func.func private @tfcc_rt_softmax_f32(!llvm.ptr, i64, i64, i32, !llvm.ptr)
func.func @cpu_kernel(%x: !llvm.ptr, %y: !llvm.ptr) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{tfcc cannot run this on the GPU: it calls the CPU function 'tfcc_rt_softmax_f32'}}
  func.call @tfcc_rt_softmax_f32(%x, %c1, %c1, %c0, %y) : (!llvm.ptr, i64, i64, i32, !llvm.ptr) -> ()
  return
}

// -----

func.func @host_loop(%x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{tfcc cannot run 'memref.store' on the GPU}}
    memref.store %f, %x[%c0] : memref<4xf32>
  }
  return
}

// -----

func.func @host_buffer_in_kernel() {
  %c1 = arith.constant 1 : index
  %h = memref.alloc() : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    // expected-error @+1 {{tfcc cannot run this on the GPU: it uses a buffer in host memory}}
    memref.store %f, %h[%c0] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %h : memref<4xf32>
  return
}
