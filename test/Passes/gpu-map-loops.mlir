// RUN: tfcc-opt %s -tfcc-gpu-map-loops="block-size=128" | FileCheck %s
// RUN: not tfcc-opt %s -tfcc-gpu-map-loops="block-size=2000" 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: tfcc-gpu-map-loops: block-size must be in 1..1024

// The CUDA target: a 2-d elementwise op becomes one loop over its 800
// iterations tiled by 128 (tiles to blocks, elements to threads, each
// element's (i, j) recovered by division and remainder); a reduction to one
// value and a serial loop that touches memory run in a one-iteration loop
// (one GPU thread), not on the host.

// CHECK-LABEL: func.func @f(
func.func @f(%x: memref<8x100xf32>, %y: memref<8x100xf32>, %s: memref<f32>, %n: index) {
  // CHECK: %[[TOTAL:.*]] = arith.muli %{{.*}}, %c100{{(_[0-9]+)?}} : index
  // CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %c128{{(_[0-9]+)?}} : index
  // CHECK: scf.parallel (%[[TILE:.*]]) = (%{{.*}}) to (%[[TOTAL]]) step (%[[STEP]]) {
  // CHECK:   scf.parallel (%[[LANE:.*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}}) {
  // CHECK:     %[[K:.*]] = arith.addi %[[LANE]], %[[TILE]] : index
  // CHECK:     scf.if
  // CHECK:       arith.remsi %[[K]], %c100{{(_[0-9]+)?}} : index
  // CHECK:       arith.divsi %[[K]], %c100{{(_[0-9]+)?}} : index
  // CHECK:       math.exp
  // CHECK:       memref.store
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x100xf32>) outs(%y : memref<8x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  // CHECK: scf.parallel (%{{.*}}) = (%[[Z:.*]]) to (%[[ONE:.*]]) step (%[[ONE]]) {
  // CHECK-NOT: scf.parallel
  // CHECK:   scf.for
  // CHECK:     scf.for
  // CHECK:       arith.addf
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<8x100xf32>) outs(%s : memref<f32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.parallel
  // CHECK-NOT: scf.parallel
  // CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step
  // CHECK:     memref.load
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %s[] : memref<f32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %s[] : memref<f32>
  }
  // A loop that touches no memory stays on the host.
  // CHECK: scf.for
  // CHECK-NEXT: arith.addi
  // CHECK-NEXT: }
  // CHECK: return
  scf.for %i = %c0 to %n step %c1 {
    %k = arith.addi %i, %i : index
  }
  return
}
