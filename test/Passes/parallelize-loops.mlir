// RUN: tfcc-opt %s -tfcc-parallelize-loops -split-input-file | FileCheck %s

// A large static nest: the leading dimensions reaching 32 iterations are
// distributed (never the innermost), the rest stays serial inside;
// num_threads is the work (4 body ops x 64 x 8 x 64) over 16384 (at most
// the 64 distributed iterations).
// CHECK-LABEL: func.func @static_large
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[NT:.*]] = arith.constant 8 : i32
// CHECK:         omp.parallel num_threads(%[[NT]] : i32) {
// CHECK-NEXT:      omp.wsloop nowait {
// CHECK-NEXT:        omp.loop_nest (%[[I:.*]]) : index = (%[[C0]]) to (%[[C64]]) step (%[[C1]]) {
// CHECK-NEXT:          scf.for %[[J:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT:            scf.for %[[K:.*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// CHECK-NEXT:              memref.load %{{.*}}[%[[I]], %[[J]], %[[K]]]
// CHECK-NEXT:              math.exp
// CHECK-NEXT:              arith.addf
// CHECK-NEXT:              memref.store
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:          omp.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        omp.terminator
// CHECK-NEXT:      }
// CHECK-NEXT:      omp.terminator
// CHECK-NEXT:    }
// CHECK-NOT:     scf.parallel
func.func @static_large(%a: memref<64x8x64xf32>, %b: memref<64x8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c64, %c8, %c64) step (%c1, %c1, %c1) {
    %x = memref.load %a[%i, %j, %k] : memref<64x8x64xf32>
    %e = math.exp %x : f32
    %y = arith.addf %e, %x : f32
    memref.store %y, %b[%i, %j, %k] : memref<64x8x64xf32>
    scf.reduce
  }
  return
}

// -----

// A small outer dimension: dimensions are collapsed into the distributed
// loop until they reach 32 iterations (2 x 4 x 8 = 64).
// CHECK-LABEL: func.func @collapse
// CHECK:         omp.loop_nest (%{{.*}}, %{{.*}}, %{{.*}}) : index
// CHECK-NEXT:      scf.for
func.func @collapse(%a: memref<2x4x8x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c2, %c4, %c8, %c1024) step (%c1, %c1, %c1, %c1) {
    memref.store %f, %a[%i, %j, %k, %l] : memref<2x4x8x1024xf32>
    scf.reduce
  }
  return
}

// -----

// Trailing unit dimensions (an NHWC tensor of one channel) do not count as
// the innermost: the last non-unit one (%k, 28) stays a serial loop instead
// of joining the distributed, collapsed ones.
// CHECK-LABEL: func.func @trailing_unit
// CHECK:         omp.loop_nest (%[[I:.*]], %[[J:.*]]) : index
// CHECK-NEXT:      scf.for %[[K:.*]] = %{{.*}} to %[[C28:.*]] step
// CHECK-NEXT:        scf.for %[[L:.*]] = %{{.*}} to %[[C1:.*]] step
// CHECK-NEXT:          memref.load %{{.*}}[%[[I]], %[[J]], %[[K]], %[[L]]]
func.func @trailing_unit(%a: memref<?x28x28x1xf32>, %b: memref<?x28x28x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c28 = arith.constant 28 : index
  %n = memref.dim %a, %c0 : memref<?x28x28x1xf32>
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%n, %c28, %c28, %c1) step (%c1, %c1, %c1, %c1) {
    %x = memref.load %a[%i, %j, %k, %l] : memref<?x28x28x1xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %b[%i, %j, %k, %l] : memref<?x28x28x1xf32>
    scf.reduce
  }
  return
}

// -----

// A dynamic batch: num_threads is computed at run time from the trip count
// (work = 4 body ops x 256 x batch, over 16384, at most batch), the inner
// reduction loop stays serial.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-SAME:    (%[[A:.*]]: memref<?x256xf32>, %[[B:.*]]: memref<?xf32>)
// CHECK:         %[[N:.*]] = memref.dim %[[A]]
// CHECK:         arith.ceildivsi
// CHECK:         arith.muli
// CHECK:         %[[PER:.*]] = arith.divsi %{{.*}}, %{{.*}} : i64
// CHECK:         arith.minsi %[[PER]], %{{.*}} : i64
// CHECK:         %[[NT:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK:         omp.parallel num_threads(%[[NT]] : i32)
// CHECK:           omp.wsloop nowait
// CHECK:             omp.loop_nest (%[[I:.*]]) : index = (%{{.*}}) to (%[[N]])
// CHECK:               scf.for
// CHECK:                 memref.load %[[A]][%[[I]], %{{.*}}]
func.func @dynamic_batch(%a: memref<?x256xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %a, %c0 : memref<?x256xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      %x = memref.load %a[%i, %j] : memref<?x256xf32>
      %s = memref.load %b[%i] : memref<?xf32>
      %y = arith.addf %s, %x : f32
      memref.store %y, %b[%i] : memref<?xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Small work stays serial: a plain scf.for nest.
// CHECK-LABEL: func.func @small
// CHECK-NOT:     omp.parallel
// CHECK:         scf.for %[[I:.*]] =
// CHECK-NEXT:      scf.for %[[J:.*]] =
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT:     scf.parallel
func.func @small(%a: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<16x16xf32>
    scf.reduce
  }
  return
}

// -----

// Work for one thread only (24,576 body operations: less than twice
// min-work-per-thread) stays serial: a fork of one thread would only add
// the outlined call, and make the trip count a per-thread range.
// CHECK-LABEL: func.func @one_thread
// CHECK-NOT:     omp.parallel
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NOT:     scf.parallel
func.func @one_thread(%a: memref<16x1536xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c1536 = arith.constant 1536 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c1536) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<16x1536xf32>
    scf.reduce
  }
  return
}

// -----

// Twice min-work-per-thread (32,768): two threads.
// CHECK-LABEL: func.func @two_threads
// CHECK:         %[[NT:.*]] = arith.constant 2 : i32
// CHECK:         omp.parallel num_threads(%[[NT]] : i32)
func.func @two_threads(%a: memref<16x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c2048) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<16x2048xf32>
    scf.reduce
  }
  return
}

// -----

// A call in the body (e.g. a runtime error report, whose message is
// thread-local) keeps the nest serial however large it is.
// CHECK-LABEL: func.func @with_call
// CHECK-NOT:     omp.parallel
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             func.call @tfcc_rt_report_error
func.func private @tfcc_rt_report_error(i32)
func.func @with_call(%a: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %code = arith.constant 3 : i32
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1024, %c1024) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<1024x1024xf32>
    func.call @tfcc_rt_report_error(%code) : (i32) -> ()
    scf.reduce
  }
  return
}

// -----

// A unit outer dimension cannot be split: serial.
// CHECK-LABEL: func.func @unit_outer
// CHECK-NOT:     omp.parallel
// CHECK:         scf.for
func.func @unit_outer(%a: memref<1x65536xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c65536 = arith.constant 65536 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1, %c65536) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<1x65536xf32>
    scf.reduce
  }
  return
}
