// RUN: tfcc-opt %s -tfcc-fuse-elementwise -split-input-file | FileCheck %s

// A per-channel producer with a square root and a division, read broadcast
// over a [4, 8, C] loop nest: fused, it would be recomputed for every pixel,
// so it stays a loop over C of its own.
// CHECK-LABEL: func.func @costly_broadcast_producer
// CHECK: %[[SCALE:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[SCALE]] : tensor<4x8x16xf32>, tensor<16xf32>)
// CHECK-NOT: math.sqrt
// CHECK: return
#c = affine_map<(d0) -> (d0)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bc = affine_map<(d0, d1, d2) -> (d2)>
func.func @costly_broadcast_producer(%x: tensor<4x8x16xf32>, %var: tensor<16xf32>) -> tensor<4x8x16xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %scale = linalg.generic {indexing_maps = [#c, #c], iterator_types = ["parallel"]} ins(%var : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = math.sqrt %v : f32
    %r = arith.divf %one, %s : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<4x8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %scale : tensor<4x8x16xf32>, tensor<16xf32>) outs(%e2 : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8x16xf32>
  return %y : tensor<4x8x16xf32>
}

// -----

// Cheap per-channel arithmetic, and a costly producer over the consumer's
// whole iteration space, still fuse (one loop nest, as upstream).
// CHECK-LABEL: func.func @cheap_or_same_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
#c = affine_map<(d0) -> (d0)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bc = affine_map<(d0, d1, d2) -> (d2)>
func.func @cheap_or_same_shape(%x: tensor<4x8x16xf32>, %gamma: tensor<16xf32>) -> tensor<4x8x16xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %g2 = linalg.generic {indexing_maps = [#c, #c], iterator_types = ["parallel"]} ins(%gamma : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<4x8x16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x8x16xf32>) outs(%e2 : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.divf %a, %two : f32
    linalg.yield %q : f32
  } -> tensor<4x8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%d, %g2 : tensor<4x8x16xf32>, tensor<16xf32>) outs(%e2 : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8x16xf32>
  return %y : tensor<4x8x16xf32>
}
