// Folders and canonicalization patterns of the graph dialect; each fold has a
// case that must stay.
// RUN: tfcc-opt %s -canonicalize | FileCheck %s

// Dropout is the identity outside training.
// CHECK-LABEL: func.func @dropout_folds
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK-NOT: graph.dropout
// CHECK: return %[[X]], %[[X]] : tensor<?x3xf32>, tensor<?x3xf32>
func.func @dropout_folds(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = graph.dropout %x {rate = 0.5 : f32} : tensor<?x3xf32>
  %1 = graph.dropout %x {rate = 0.0 : f32, seed = 7} : tensor<?x3xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// Other unary ops with attributes do not fold away.
// CHECK-LABEL: func.func @softmax_stays
// CHECK: %[[S:.*]] = graph.softmax
// CHECK: return %[[S]]
func.func @softmax_stays(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.softmax %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast_same_type_folds
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK-NOT: graph.cast
// CHECK: return %[[X]]
func.func @cast_same_type_folds(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = graph.cast %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// CHECK-LABEL: func.func @cast_other_type_stays
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[C:.*]] = graph.cast %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK: %[[D:.*]] = graph.cast %[[X]] : (tensor<2x3xf32>) -> tensor<?x3xf32>
// CHECK: return %[[C]], %[[D]]
func.func @cast_other_type_stays(%x: tensor<2x3xf32>) -> (tensor<2x3xi32>, tensor<?x3xf32>) {
  %0 = graph.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // Same element type but a different (less static) type: not a no-op.
  %1 = graph.cast %x : (tensor<2x3xf32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<2x3xi32>, tensor<?x3xf32>
}

// A cast back and forth is not an identity (float -> int truncates).
// CHECK-LABEL: func.func @cast_round_trip_stays
// CHECK: graph.cast %{{.*}} : (tensor<2xf32>) -> tensor<2xi32>
// CHECK: graph.cast %{{.*}} : (tensor<2xi32>) -> tensor<2xf32>
func.func @cast_round_trip_stays(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = graph.cast %x : (tensor<2xf32>) -> tensor<2xi32>
  %1 = graph.cast %0 : (tensor<2xi32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// reshape(reshape(x)) -> reshape(x): the intermediate shape does not matter.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<?x2x3xf32>)
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[X]] : (tensor<?x2x3xf32>) -> tensor<?x3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<?x2x3xf32>) -> tensor<?x3x2xf32> {
  %0 = graph.reshape %x : (tensor<?x2x3xf32>) -> tensor<?x6xf32>
  %1 = graph.reshape %0 : (tensor<?x6xf32>) -> tensor<?x3x2xf32>
  return %1 : tensor<?x3x2xf32>
}

// A chain of three collapses to one, and a chain back to the input's static
// type disappears.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]], %[[X]]
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> (tensor<4x6xf32>, tensor<2x3x4xf32>) {
  %0 = graph.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = graph.reshape %0 : (tensor<24xf32>) -> tensor<6x4xf32>
  %2 = graph.reshape %1 : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %3 = graph.reshape %1 : (tensor<6x4xf32>) -> tensor<2x3x4xf32>
  return %2, %3 : tensor<4x6xf32>, tensor<2x3x4xf32>
}

// A reshape whose operand is not a reshape stays.
// CHECK-LABEL: func.func @reshape_of_other_stays
// CHECK: %[[T:.*]] = graph.transpose
// CHECK: graph.reshape %[[T]] : (tensor<3x2xf32>) -> tensor<6xf32>
func.func @reshape_of_other_stays(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = graph.transpose %x {perm = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = graph.reshape %0 : (tensor<3x2xf32>) -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// CHECK-LABEL: func.func @reshape_same_static_type_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: graph.reshape
// CHECK: return %[[X]]
func.func @reshape_same_static_type_folds(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// The same dynamic type is not known to be a no-op, and neither is a new
// static shape.
// CHECK-LABEL: func.func @reshape_stays
// CHECK: graph.reshape %{{.*}} : (tensor<?x6xf32>) -> tensor<?x6xf32>
// CHECK: graph.reshape %{{.*}} : (tensor<2x3xf32>) -> tensor<3x2xf32>
func.func @reshape_stays(%x: tensor<?x6xf32>, %y: tensor<2x3xf32>) -> (tensor<?x6xf32>, tensor<3x2xf32>) {
  %0 = graph.reshape %x : (tensor<?x6xf32>) -> tensor<?x6xf32>
  %1 = graph.reshape %y : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<?x6xf32>, tensor<3x2xf32>
}

// A reshape of a constant folds into a new constant.
// CHECK-LABEL: func.func @reshape_of_constant
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_of_constant() -> tensor<2x3xi32> {
  %0 = graph.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %1 = graph.reshape %0 : (tensor<6xi32>) -> tensor<2x3xi32>
  return %1 : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @transpose_identity_folds
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x4xf32>)
// CHECK-NOT: graph.transpose
// CHECK: return %[[X]]
func.func @transpose_identity_folds(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  %0 = graph.transpose %x {perm = [0, 1, 2]} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// CHECK-LABEL: func.func @transpose_stays
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = graph.transpose %[[X]] {perm = [0, 2, 1]} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK: %[[U:.*]] = graph.transpose %[[X]] {perm = [0, 1, 2]} : (tensor<2x3x4xf32>) -> tensor<?x3x4xf32>
// CHECK: return %[[T]], %[[U]]
func.func @transpose_stays(%x: tensor<2x3x4xf32>) -> (tensor<2x4x3xf32>, tensor<?x3x4xf32>) {
  %0 = graph.transpose %x {perm = [0, 2, 1]} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  // An identity permutation that changes the written type is kept.
  %1 = graph.transpose %x {perm = [0, 1, 2]} : (tensor<2x3x4xf32>) -> tensor<?x3x4xf32>
  return %0, %1 : tensor<2x4x3xf32>, tensor<?x3x4xf32>
}

// Constants: identical ones are merged, unused ones removed, and they move
// to the start of the block.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = graph.add %[[C]], %[[C]]
// CHECK-NEXT: return %[[S]]
func.func @constants() -> tensor<3xf32> {
  %unused = graph.constant dense<2.0> : tensor<3xf32>
  %0 = graph.constant dense<1.0> : tensor<3xf32>
  %1 = graph.constant dense<1.0> : tensor<3xf32>
  %2 = graph.add %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// Dead pure ops go away; graph.read (not pure) stays.
// CHECK-LABEL: func.func @dead_code
// CHECK-NOT: graph.relu
// CHECK: graph.read @weights
// CHECK-NEXT: return
graph.variable @weights : tensor<2xf32> = dense<0.0>
func.func @dead_code(%x: tensor<2xf32>) {
  %0 = graph.relu %x : tensor<2xf32>
  %1 = graph.read @weights : tensor<2xf32>
  return
}
