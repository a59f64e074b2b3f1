// RUN: tfcc-opt %s -tfcc-strip-signedness | FileCheck %s

// Function types, values, block arguments and constants lose their
// unsigned types (the constant's bits unchanged: 200 and 255 print as -56
// and -1); the casts between ui8 and i8 become no-ops and go.
// CHECK-LABEL: func.func @strip(%{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.constant dense<[1, -56, -1, 0]> : tensor<4xi8>
// CHECK-NOT: ui8
// CHECK-NOT: unrealized_conversion_cast
// CHECK: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[M:.*]] = arith.maxui %[[A]], %[[B]] : i8
// CHECK: linalg.yield %[[M]] : i8
// CHECK: return %{{.*}} : tensor<4xi8>
#map = affine_map<(d0) -> (d0)>
func.func @strip(%u: tensor<4xui8>) -> tensor<4xui8> {
  %c = arith.constant dense<[1, 200, 255, 0]> : tensor<4xui8>
  %e = tensor.empty() : tensor<4xui8>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%u, %c : tensor<4xui8>, tensor<4xui8>) outs(%e : tensor<4xui8>) {
  ^bb0(%a: ui8, %b: ui8, %o: ui8):
    %sa = builtin.unrealized_conversion_cast %a : ui8 to i8
    %sb = builtin.unrealized_conversion_cast %b : ui8 to i8
    %m = arith.maxui %sa, %sb : i8
    %mu = builtin.unrealized_conversion_cast %m : i8 to ui8
    linalg.yield %mu : ui8
  } -> tensor<4xui8>
  return %r : tensor<4xui8>
}

// Signless and float code is left as it is.
// CHECK-LABEL: func.func @untouched(%{{.*}}: tensor<2xi8>, %{{.*}}: tensor<2xf32>) -> tensor<2xi8>
func.func @untouched(%a: tensor<2xi8>, %b: tensor<2xf32>) -> tensor<2xi8> {
  return %a : tensor<2xi8>
}
