// RUN: tfcc-opt %s -tfcc-convert-graph-to-linalg | FileCheck %s

// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>

// Per axis: the scale and zero point [3] become [3, 1] so broadcasting lines
// them up with dimension 1; the body divides, rounds half to even with the
// 1.5 * 2^23 trick (after clamping to +-1024, which also sends NaN to the
// low end), adds the zero point and saturates. ui8 is read as unsigned
// (uitofp, fptoui) through casts to and from i8.
// CHECK-LABEL: func.func @quantize_per_axis
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: ui8, %{{.*}}: ui8):
// CHECK: %[[ZS:.*]] = builtin.unrealized_conversion_cast %[[Z]] : ui8 to i8
// CHECK: %[[Q:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK: arith.maxnumf %[[Q]], %{{.*}} : f32
// CHECK: arith.minnumf
// CHECK: %[[MAGIC:.*]] = arith.constant 0x4B400000 : f32
// CHECK: %[[UP:.*]] = arith.addf %{{.*}}, %[[MAGIC]] : f32
// CHECK: %[[R:.*]] = arith.subf %[[UP]], %[[MAGIC]] : f32
// CHECK: %[[ZF:.*]] = arith.uitofp %[[ZS]] : i8 to f32
// CHECK: arith.addf %[[R]], %[[ZF]] : f32
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: arith.constant 2.550000e+02 : f32
// CHECK: %[[Y:.*]] = arith.fptoui %{{.*}} : f32 to i8
// CHECK: %[[YU:.*]] = builtin.unrealized_conversion_cast %[[Y]] : i8 to ui8
// CHECK: linalg.yield %[[YU]] : ui8
func.func @quantize_per_axis(%x: tensor<?x3x4xf32>, %s: tensor<3xf32>, %z: tensor<3xui8>) -> tensor<?x3x4xui8> {
  %q = graph.quantize %x, %s, %z {axis = 1} : (tensor<?x3x4xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<?x3x4xui8>
  return %q : tensor<?x3x4xui8>
}

// i8 saturates to [-128, 127] with fptosi.
// CHECK-LABEL: func.func @quantize_i8
// CHECK: arith.constant -1.280000e+02 : f32
// CHECK: arith.constant 1.270000e+02 : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i8
func.func @quantize_i8(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4xi8> {
  %q = graph.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// Per tensor: scalar parameters read through empty maps; (x - zp) * scale.
// CHECK-LABEL: func.func @dequantize
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]], #[[SCALAR]], #{{.*}}]
// CHECK: ^bb0(%[[Q:.*]]: i8, %[[S:.*]]: f32, %[[Z:.*]]: i8, %{{.*}}: f32):
// CHECK: %[[QF:.*]] = arith.sitofp %[[Q]] : i8 to f32
// CHECK: %[[ZF:.*]] = arith.sitofp %[[Z]] : i8 to f32
// CHECK: %[[D:.*]] = arith.subf %[[QF]], %[[ZF]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[D]], %[[S]] : f32
// CHECK: linalg.yield %[[Y]] : f32
func.func @dequantize(%q: tensor<2x4xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<2x4xf32> {
  %d = graph.dequantize %q, %s, %z : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// Casts of ui8 are unsigned; float to 8 bits saturates and sends NaN to 0.
// CHECK-LABEL: func.func @casts
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: %[[C:.*]] = arith.fptoui %{{.*}} : f32 to i8
// CHECK: %[[NAN:.*]] = arith.cmpf uno
// CHECK: arith.select %[[NAN]], %{{.*}}, %[[C]] : i8
func.func @casts(%u: tensor<4xui8>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xui8>) {
  %f = graph.cast %u : (tensor<4xui8>) -> tensor<4xf32>
  %i = graph.cast %u : (tensor<4xui8>) -> tensor<4xi32>
  %c = graph.cast %x : (tensor<4xf32>) -> tensor<4xui8>
  return %f, %i, %c : tensor<4xf32>, tensor<4xi32>, tensor<4xui8>
}

// ui8 comparisons and maxima are unsigned.
// CHECK-LABEL: func.func @unsigned_compare
// CHECK: arith.cmpi ugt
// CHECK: arith.maxui
func.func @unsigned_compare(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xi1>, tensor<4xui8>) {
  %c = graph.compare %a, %b {predicate = "gt"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %m = graph.maximum %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %c, %m : tensor<4xi1>, tensor<4xui8>
}
