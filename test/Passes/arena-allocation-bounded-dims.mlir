// RUN: tfcc-opt %s -tfcc-arena-allocation -split-input-file -verify-diagnostics | FileCheck %s

// A dimension beyond the batch with a bound (W in [1, 640], module attribute
// tfcc.dim_bounds; the argument's tfcc.dim_names names it). The output width
// of a 3-wide window at stride 2 with pads 1 + 1, as the lowering computes it,
// (W + 2 - 3 + 2) divsi 2 clamped at 0, is at most 320: the [batch, ow, 8]
// f32 buffer is planned at 320 * 8 * 4 = 10240 bytes per batch.
module attributes {tfcc.dim_bounds = {W = 640 : i64}} {
  func.func private @use(memref<?x?x8xf32>)
  // CHECK-LABEL: func.func @bounded_width
  // CHECK-SAME: tfcc.arena_fixed = 0 : i64, tfcc.arena_per_batch = 10240 : i64
  func.func @bounded_width(%in: memref<?x?x8xf32> {tfcc.dim_names = ["", "W", ""]}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = memref.dim %in, %c0 : memref<?x?x8xf32>
    %w = memref.dim %in, %c1 : memref<?x?x8xf32>
    %p = arith.addi %w, %c1 : index
    %ow = arith.divsi %p, %c2 : index
    %owc = arith.maxsi %ow, %c0 : index
    %a = memref.alloc(%n, %owc) : memref<?x?x8xf32>
    call @use(%a) : (memref<?x?x8xf32>) -> ()
    return
  }
}

// -----

// The same width as floor((W - 1) / 2) + 1 (floordivsi, an affine.apply's
// form): also at most 320.
module attributes {tfcc.dim_bounds = {W = 640 : i64}} {
  func.func private @use(memref<?x?x8xf32>)
  // CHECK-LABEL: func.func @bounded_width_floordiv
  // CHECK-SAME: tfcc.arena_fixed = 0 : i64, tfcc.arena_per_batch = 10240 : i64
  func.func @bounded_width_floordiv(%in: memref<?x?x8xf32> {tfcc.dim_names = ["", "W", ""]}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cm1 = arith.constant -1 : index
    %n = memref.dim %in, %c0 : memref<?x?x8xf32>
    %w = memref.dim %in, %c1 : memref<?x?x8xf32>
    %p = arith.addi %w, %cm1 : index
    %q = arith.floordivsi %p, %c2 : index
    %ow = arith.addi %q, %c1 : index
    %a = memref.alloc(%n, %ow) : memref<?x?x8xf32>
    call @use(%a) : (memref<?x?x8xf32>) -> ()
    return
  }
}

// -----

// Two bounded dimensions and the batch: [batch, H, W] with H <= 48 and
// W <= 100 is planned at 48 * 100 * 4 = 19200 bytes per batch (a static
// buffer of the same type would be that at batch 1).
module attributes {tfcc.dim_bounds = {H = 48 : i64, W = 100 : i64}} {
  func.func private @use(memref<?x?x?xf32>)
  // CHECK-LABEL: func.func @two_dims
  // CHECK-SAME: tfcc.arena_fixed = 0 : i64, tfcc.arena_per_batch = 19200 : i64
  func.func @two_dims(%in: memref<?x?x?xf32> {tfcc.dim_names = ["", "H", "W"]}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = memref.dim %in, %c0 : memref<?x?x?xf32>
    %h = memref.dim %in, %c1 : memref<?x?x?xf32>
    %w = memref.dim %in, %c2 : memref<?x?x?xf32>
    %a = memref.alloc(%n, %h, %w) : memref<?x?x?xf32>
    call @use(%a) : (memref<?x?x?xf32>) -> ()
    return
  }
}

// -----

// An output whose dynamic dims are the batch and W: the output argument is
// given the names, for the C interface.
module attributes {tfcc.dim_bounds = {W = 640 : i64}} {
  // CHECK-LABEL: func.func @output_named
  // CHECK-SAME: %{{[a-z0-9]+}}: memref<?x?xf32> {tfcc.dim_names = ["", "W"]}, %{{[a-z0-9]+}}: memref<?x?xf32> {tfcc.dim_names = ["", "W"]}
  func.func @output_named(%in: memref<?x?xf32> {tfcc.dim_names = ["", "W"]}, %out: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %in, %c0 : memref<?x?xf32>
    %w = memref.dim %in, %c1 : memref<?x?xf32>
    %a = memref.alloc(%n, %w) : memref<?x?xf32>
    memref.copy %a, %out : memref<?x?xf32> to memref<?x?xf32>
    return
  }
}

// -----

// An output width computed from W (W - 2, at most 638) is a derived dimension:
// k = 2 (after the one bound), recorded on the module and on the output, and
// computed by the entry's shape function from the dims array.
// CHECK: module attributes {tfcc.derived_dims = [{bound = 638 : i64, name = "output_derived.1.1"}]
// CHECK-LABEL: func.func @output_derived
// CHECK-SAME: %{{[a-z0-9]+}}: memref<?x?xf32> {tfcc.dim_names = ["", "output_derived.1.1"]}
// CHECK-LABEL: func.func @__tfcc_dims_output_derived(
// CHECK-SAME: %[[DIMS:[a-z0-9]+]]: memref<?xi64>)
// CHECK: %[[W64:.*]] = memref.load %[[DIMS]][%c1] : memref<?xi64>
// CHECK: %[[W:.*]] = arith.index_cast %[[W64]] : i64 to index
// CHECK: %[[V:.*]] = arith.addi %[[W]], %{{.*}} : index
// CHECK: %[[V64:.*]] = arith.index_cast %[[V]] : index to i64
// CHECK: memref.store %[[V64]], %[[DIMS]][%c2] : memref<?xi64>
module attributes {tfcc.dim_bounds = {W = 640 : i64}} {
  func.func @output_derived(%in: memref<?x?xf32> {tfcc.dim_names = ["", "W"]}, %out: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cm2 = arith.constant -2 : index
    %n = memref.dim %in, %c0 : memref<?x?xf32>
    %w = memref.dim %in, %c1 : memref<?x?xf32>
    %v = arith.addi %w, %cm2 : index
    %a = memref.alloc(%n, %v) : memref<?x?xf32>
    memref.copy %a, %out : memref<?x?xf32> to memref<?x?xf32>
    return
  }
}

// -----

// An output dimension that grows with the batch (batch + W) has no bound the
// header could state: refused.
module attributes {tfcc.dim_bounds = {W = 640 : i64}} {
  func.func @output_with_batch(%in: memref<?x?xf32> {tfcc.dim_names = ["", "W"]}, %out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %in, %c0 : memref<?x?xf32>
    %w = memref.dim %in, %c1 : memref<?x?xf32>
    %v = arith.addi %w, %n : index
    %a = memref.alloc(%v) : memref<?xf32>
    // expected-error @+1 {{tfcc-arena-allocation: dynamic dimension 0 of output 'memref<?xf32>' is not provably the batch size, one dimension beyond it, or computed from those beyond it}}
    memref.copy %a, %out : memref<?xf32> to memref<?xf32>
    return
  }
}

// -----

// Without a bound, a named dimension is the batch (as every dynamic
// dimension was before bounds): [batch, W] with W the batch is quadratic.
module attributes {tfcc.dim_bounds = {H = 4 : i64}} {
  func.func @unbounded_name(%in: memref<?x?xf32> {tfcc.dim_names = ["", "W"]}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %in, %c0 : memref<?x?xf32>
    %w = memref.dim %in, %c1 : memref<?x?xf32>
    // expected-error @+1 {{grows faster than linearly with the batch size or overflows: every dynamic dimension of an entry without a bound takes the batch's value}}
    %a = memref.alloc(%n, %w) : memref<?x?xf32>
    return
  }
}
