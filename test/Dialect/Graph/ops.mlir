// Round-trip of every graph op and form: print, reparse, check the printed form.
// RUN: tfcc-opt %s | tfcc-opt | FileCheck %s
// The generic form reparses to the same custom form.
// RUN: tfcc-opt %s --mlir-print-op-generic | tfcc-opt | FileCheck %s
// The spec models round-trip unchanged in meaning.
// Locations that name nodes survive the round trip.
// RUN: tfcc-opt %s --mlir-print-debuginfo | tfcc-opt --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: tfcc-opt %spec/models/ops.mlir | tfcc-opt | FileCheck %s --check-prefix=SPEC-OPS
// RUN: tfcc-opt %spec/models/mlp.mlir | tfcc-opt | FileCheck %s --check-prefix=SPEC-MLP
// RUN: tfcc-opt %spec/models/mnist_cnn.mlir | tfcc-opt | FileCheck %s --check-prefix=SPEC-CNN

//===----------------------------------------------------------------------===//
// Variables, reads, constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: module @model
module @model {

// A dense initializer carries no type of its own.
// CHECK: graph.variable @dense_splat : tensor<2x3xf32> = dense<0.000000e+00>{{$}}
graph.variable @dense_splat : tensor<2x3xf32> = dense<0.0>
// CHECK: graph.variable @dense_values : tensor<2xf32> = dense<[1.000000e+00, 2.500000e+00]>{{$}}
graph.variable @dense_values : tensor<2xf32> = dense<[1.0, 2.5]>
// CHECK: graph.variable @dense_ints : tensor<3xi32> = dense<[1, -2, 3]>{{$}}
graph.variable @dense_ints : tensor<3xi32> = dense<[1, -2, 3]>
// CHECK: graph.variable @resource : tensor<2xf32> = dense_resource<weights_blob>{{$}}
graph.variable @resource : tensor<2xf32> = dense_resource<weights_blob>
// CHECK: graph.variable @resource_i64 : tensor<1xi64> = dense_resource<index_blob>{{$}}
graph.variable @resource_i64 : tensor<1xi64> = dense_resource<index_blob>

// Every #graph.init kind; the seed is always printed, scale only for uniform,
// and keys may come in any order.
// CHECK: graph.variable @init_zeros : tensor<4xf32> = #graph.init<"zeros", seed = 0>{{$}}
graph.variable @init_zeros : tensor<4xf32> = #graph.init<"zeros">
// CHECK: graph.variable @init_ones : tensor<4xi32> = #graph.init<"ones", seed = 0>{{$}}
graph.variable @init_ones : tensor<4xi32> = #graph.init<"ones", seed = 0>
// CHECK: graph.variable @init_glorot_uniform : tensor<3x3x1x8xf32> = #graph.init<"glorot_uniform", seed = 1>{{$}}
graph.variable @init_glorot_uniform : tensor<3x3x1x8xf32> = #graph.init<"glorot_uniform", seed = 1>
// CHECK: graph.variable @init_glorot_normal : tensor<8x4xf32> = #graph.init<"glorot_normal", seed = 2>{{$}}
graph.variable @init_glorot_normal : tensor<8x4xf32> = #graph.init<"glorot_normal", seed = 2>
// CHECK: graph.variable @init_he_uniform : tensor<8x4xf32> = #graph.init<"he_uniform", seed = 3>{{$}}
graph.variable @init_he_uniform : tensor<8x4xf32> = #graph.init<"he_uniform", seed = 3>
// CHECK: graph.variable @init_he_normal : tensor<8x4xf32> = #graph.init<"he_normal", seed = 4>{{$}}
graph.variable @init_he_normal : tensor<8x4xf32> = #graph.init<"he_normal", seed = 4>
// CHECK: graph.variable @init_uniform : tensor<8xf32> = #graph.init<"uniform", seed = 5, scale = 5.000000e-02>{{$}}
graph.variable @init_uniform : tensor<8xf32> = #graph.init<"uniform", seed = 5, scale = 0.05>
// CHECK: graph.variable @init_uniform_swapped : tensor<8xf32> = #graph.init<"uniform", seed = 6, scale = 2.500000e-01>{{$}}
graph.variable @init_uniform_swapped : tensor<8xf32> = #graph.init<"uniform", scale = 0.25, seed = 6>
// CHECK: graph.variable @init_uniform_no_seed : tensor<8xf32> = #graph.init<"uniform", seed = 0, scale = 1.000000e+00>{{$}}
graph.variable @init_uniform_no_seed : tensor<8xf32> = #graph.init<"uniform", scale = 1.0>

// trainable = false is printed; the default (true) is not.
// CHECK: graph.variable @frozen : tensor<4xf32> = dense<1.000000e+00> {trainable = false}{{$}}
graph.variable @frozen : tensor<4xf32> = dense<1.0> {trainable = false}
// CHECK: graph.variable @frozen_init : tensor<4xf32> = #graph.init<"he_normal", seed = 7> {trainable = false}{{$}}
graph.variable @frozen_init : tensor<4xf32> = #graph.init<"he_normal", seed = 7> {trainable = false}
// CHECK: graph.variable @trainable_explicit : tensor<4xf32> = dense<2.000000e+00>{{$}}
graph.variable @trainable_explicit : tensor<4xf32> = dense<2.0> {trainable = true}

// CHECK-LABEL: func.func @read
// CHECK: graph.read @dense_splat : tensor<2x3xf32>
// CHECK: graph.read @resource : tensor<2xf32>
// CHECK: graph.read @frozen : tensor<4xf32>
func.func @read() -> (tensor<2x3xf32>, tensor<2xf32>, tensor<4xf32>) {
  %0 = graph.read @dense_splat : tensor<2x3xf32>
  %1 = graph.read @resource : tensor<2xf32>
  %2 = graph.read @frozen : tensor<4xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @constant
// CHECK: graph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: graph.constant dense<3> : tensor<2x2xi32>
// CHECK: graph.constant dense<[true, false]> : tensor<2xi1>
// CHECK: graph.constant dense<4.000000e+00> : tensor<f32>
func.func @constant() -> (tensor<2xf32>, tensor<2x2xi32>, tensor<2xi1>, tensor<f32>) {
  %0 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = graph.constant dense<3> : tensor<2x2xi32>
  %2 = graph.constant dense<[true, false]> : tensor<2xi1>
  %3 = graph.constant dense<4.0> : tensor<f32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2x2xi32>, tensor<2xi1>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: graph.add %[[A]], %[[B]] : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: graph.sub %[[A]], %[[B]] : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: graph.mul %[[A]], %[[B]] : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: graph.div %[[A]], %[[B]] : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: graph.maximum %[[A]], %[[B]] : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: graph.minimum %[[A]], %[[B]] : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: graph.pow %[[B]], %[[B]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
func.func @binary(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %1 = graph.sub %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %2 = graph.mul %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %3 = graph.div %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %4 = graph.maximum %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %5 = graph.minimum %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %6 = graph.pow %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %5 : tensor<?x3xf32>
}

// Broadcasting of size-1 and dynamic dims; integer operands; a result written
// with `?` where the inferred dim is static.
// CHECK-LABEL: func.func @binary_broadcast
// CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
// CHECK: graph.mul %{{.*}}, %{{.*}} : (tensor<?x1xi32>, tensor<1x5xi32>) -> tensor<?x5xi32>
// CHECK: graph.sub %{{.*}}, %{{.*}} : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<?x?x3xf32>
// CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32>
func.func @binary_broadcast(%a: tensor<4x1x3xf32>, %b: tensor<2x1xf32>, %i: tensor<?x1xi32>, %j: tensor<1x5xi32>, %s: tensor<f32>) -> tensor<?x5xi32> {
  %0 = graph.add %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %1 = graph.mul %i, %j : (tensor<?x1xi32>, tensor<1x5xi32>) -> tensor<?x5xi32>
  %2 = graph.sub %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<?x?x3xf32>
  %3 = graph.add %s, %b : (tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  return %1 : tensor<?x5xi32>
}

// Unary ops print their one type once.
// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[I:.*]]: tensor<2xi32>)
// CHECK: %[[NEG:.*]] = graph.neg %[[X]] : tensor<?x3xf32>
// CHECK: graph.abs %[[NEG]] : tensor<?x3xf32>
// CHECK: graph.exp %{{.*}} : tensor<?x3xf32>
// CHECK: graph.log %{{.*}} : tensor<?x3xf32>
// CHECK: graph.sqrt %{{.*}} : tensor<?x3xf32>
// CHECK: graph.rsqrt %{{.*}} : tensor<?x3xf32>
// CHECK: graph.square %{{.*}} : tensor<?x3xf32>
// CHECK: graph.tanh %{{.*}} : tensor<?x3xf32>
// CHECK: graph.sigmoid %{{.*}} : tensor<?x3xf32>
// CHECK: graph.relu %{{.*}} : tensor<?x3xf32>
// CHECK: graph.relu6 %{{.*}} : tensor<?x3xf32>
// CHECK: graph.erf %{{.*}} : tensor<?x3xf32>
// CHECK: graph.floor %{{.*}} : tensor<?x3xf32>
// CHECK: graph.ceil %{{.*}} : tensor<?x3xf32>
// CHECK: graph.hard_sigmoid %{{.*}} : tensor<?x3xf32>
// CHECK: graph.hard_swish %{{.*}} : tensor<?x3xf32>
// CHECK: graph.neg %[[I]] : tensor<2xi32>
// CHECK: graph.abs %{{.*}} : tensor<2xi32>
// CHECK: graph.square %{{.*}} : tensor<2xi32>
// CHECK: graph.math "sin" %{{.*}} : tensor<?x3xf32>
func.func @unary(%x: tensor<?x3xf32>, %i: tensor<2xi32>) -> (tensor<?x3xf32>, tensor<2xi32>) {
  %0 = graph.neg %x : tensor<?x3xf32>
  %1 = graph.abs %0 : tensor<?x3xf32>
  %2 = graph.exp %1 : tensor<?x3xf32>
  %3 = graph.log %2 : tensor<?x3xf32>
  %4 = graph.sqrt %3 : tensor<?x3xf32>
  %5 = graph.rsqrt %4 : tensor<?x3xf32>
  %6 = graph.square %5 : tensor<?x3xf32>
  %7 = graph.tanh %6 : tensor<?x3xf32>
  %8 = graph.sigmoid %7 : tensor<?x3xf32>
  %9 = graph.relu %8 : tensor<?x3xf32>
  %10 = graph.relu6 %9 : tensor<?x3xf32>
  %11 = graph.erf %10 : tensor<?x3xf32>
  %12 = graph.floor %11 : tensor<?x3xf32>
  %13 = graph.ceil %12 : tensor<?x3xf32>
  %14 = graph.hard_sigmoid %13 : tensor<?x3xf32>
  %15 = graph.hard_swish %14 : tensor<?x3xf32>
  %16 = graph.neg %i : tensor<2xi32>
  %17 = graph.abs %16 : tensor<2xi32>
  %18 = graph.square %17 : tensor<2xi32>
  %19 = graph.math "sin" %15 : tensor<?x3xf32>
  return %19, %18 : tensor<?x3xf32>, tensor<2xi32>
}

// Unary ops with attributes: defaults are left out of the printed form,
// other values go in the dictionary before the colon.
// CHECK-LABEL: func.func @unary_attributes
// CHECK: graph.gelu %{{.*}} : tensor<2x3xf32>
// CHECK: graph.gelu %{{.*}} : tensor<2x3xf32>
// CHECK: graph.gelu %{{.*}} {approximate = "tanh"} : tensor<2x3xf32>
// CHECK: graph.leaky_relu %{{.*}} : tensor<2x3xf32>
// CHECK: graph.leaky_relu %{{.*}} : tensor<2x3xf32>
// CHECK: graph.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32} : tensor<2x3xf32>
// CHECK: graph.clip %{{.*}} {max = 1.000000e+00 : f32, min = -1.000000e+00 : f32} : tensor<2x3xf32>
// CHECK: graph.clip %{{.*}} {max = 5.000000e-01 : f32, min = 5.000000e-01 : f32} : tensor<2x3xf32>
// CHECK: graph.dropout %{{.*}} {rate = 5.000000e-01 : f32} : tensor<2x3xf32>
// CHECK: graph.dropout %{{.*}} {rate = 0.000000e+00 : f32} : tensor<2x3xf32>
// CHECK: graph.dropout %{{.*}} {rate = 2.500000e-01 : f32, seed = 42 : i64} : tensor<2x3xf32>
// CHECK: graph.softmax %{{.*}} : tensor<2x3xf32>
// CHECK: graph.softmax %{{.*}} : tensor<2x3xf32>
// CHECK: graph.softmax %{{.*}} {axis = 0 : i64} : tensor<2x3xf32>
// CHECK: graph.log_softmax %{{.*}} : tensor<2x3xf32>
// CHECK: graph.log_softmax %{{.*}} : tensor<2x3xf32>
// CHECK: graph.log_softmax %{{.*}} {axis = -2 : i64} : tensor<2x3xf32>
func.func @unary_attributes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.gelu %x : tensor<2x3xf32>
  %1 = graph.gelu %0 {approximate = "none"} : tensor<2x3xf32>
  %2 = graph.gelu %1 {approximate = "tanh"} : tensor<2x3xf32>
  %3 = graph.leaky_relu %2 : tensor<2x3xf32>
  %4 = graph.leaky_relu %3 {alpha = 0.2 : f32} : tensor<2x3xf32>
  %5 = graph.leaky_relu %4 {alpha = 1.0e-01 : f32} : tensor<2x3xf32>
  %6 = graph.clip %5 {min = -1.0 : f32, max = 1.0 : f32} : tensor<2x3xf32>
  %7 = graph.clip %6 {max = 0.5 : f32, min = 0.5 : f32} : tensor<2x3xf32>
  %8 = graph.dropout %7 {rate = 0.5 : f32} : tensor<2x3xf32>
  %9 = graph.dropout %8 {rate = 0.0 : f32, seed = 0} : tensor<2x3xf32>
  %10 = graph.dropout %9 {rate = 0.25 : f32, seed = 42} : tensor<2x3xf32>
  %11 = graph.softmax %10 : tensor<2x3xf32>
  %12 = graph.softmax %11 {axis = -1} : tensor<2x3xf32>
  %13 = graph.softmax %12 {axis = 0} : tensor<2x3xf32>
  %14 = graph.log_softmax %13 : tensor<2x3xf32>
  %15 = graph.log_softmax %14 {axis = -1} : tensor<2x3xf32>
  %16 = graph.log_softmax %15 {axis = -2} : tensor<2x3xf32>
  return %16 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast
// CHECK: graph.cast %{{.*}} : (tensor<?x3xf32>) -> tensor<?x3xi32>
// CHECK: graph.cast %{{.*}} : (tensor<?x3xi32>) -> tensor<?x3xf32>
// CHECK: graph.cast %{{.*}} : (tensor<2xi1>) -> tensor<2xf32>
// CHECK: graph.cast %{{.*}} : (tensor<2xf32>) -> tensor<2xi64>
// CHECK: graph.cast %{{.*}} : (tensor<2xf32>) -> tensor<2xf32>
func.func @cast(%x: tensor<?x3xf32>, %b: tensor<2xi1>) -> tensor<?x3xf32> {
  %0 = graph.cast %x : (tensor<?x3xf32>) -> tensor<?x3xi32>
  %1 = graph.cast %0 : (tensor<?x3xi32>) -> tensor<?x3xf32>
  %2 = graph.cast %b : (tensor<2xi1>) -> tensor<2xf32>
  %3 = graph.cast %2 : (tensor<2xf32>) -> tensor<2xi64>
  %4 = graph.cast %2 : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<?x3xf32>
}

// CHECK-LABEL: func.func @compare
// CHECK: graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK: graph.compare %{{.*}}, %{{.*}} {predicate = "ne"}
// CHECK: graph.compare %{{.*}}, %{{.*}} {predicate = "lt"}
// CHECK: graph.compare %{{.*}}, %{{.*}} {predicate = "le"}
// CHECK: graph.compare %{{.*}}, %{{.*}} {predicate = "gt"}
// CHECK: graph.compare %{{.*}}, %{{.*}} {predicate = "ge"} : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<?xi32>) -> tensor<?xi1> {
  %0 = graph.compare %a, %b {predicate = "eq"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = graph.compare %a, %b {predicate = "ne"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = graph.compare %a, %b {predicate = "lt"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = graph.compare %a, %b {predicate = "le"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %4 = graph.compare %a, %b {predicate = "gt"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %5 = graph.compare %i, %i {predicate = "ge"} : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
  return %5 : tensor<?xi1>
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:.*]]: tensor<2x3xi1>, %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: graph.select %[[C]], %[[A]], %[[B]] : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @select(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul
// CHECK: graph.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: graph.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: graph.matmul %{{.*}}, %{{.*}} {transpose_a = true} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: graph.matmul %{{.*}}, %{{.*}} {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK: graph.matmul %{{.*}}, %{{.*}} {transpose_a = true, transpose_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK: graph.matmul %{{.*}}, %{{.*}} : (tensor<?x2x3xf32>, tensor<3x4xf32>) -> tensor<?x2x4xf32>
// CHECK: graph.matmul %{{.*}}, %{{.*}} : (tensor<5x1x2x3xf32>, tensor<7x3x4xf32>) -> tensor<5x7x2x4xf32>
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %at: tensor<3x2xf32>, %bt: tensor<4x3xf32>,
                  %batched: tensor<?x2x3xf32>, %a4: tensor<5x1x2x3xf32>, %b3: tensor<7x3x4xf32>) -> tensor<2x4xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = graph.matmul %a, %b {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = graph.matmul %at, %b {transpose_a = true} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %3 = graph.matmul %a, %bt {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %4 = graph.matmul %at, %bt {transpose_a = true, transpose_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %5 = graph.matmul %batched, %b : (tensor<?x2x3xf32>, tensor<3x4xf32>) -> tensor<?x2x4xf32>
  %6 = graph.matmul %a4, %b3 : (tensor<5x1x2x3xf32>, tensor<7x3x4xf32>) -> tensor<5x7x2x4xf32>
  return %4 : tensor<2x4xf32>
}

// The optional bias present and absent.
// CHECK-LABEL: func.func @dense
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>, %[[K:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<2xf32>, %[[X3:.*]]: tensor<4x5x3xf32>)
// CHECK: graph.dense %[[X]], %[[K]], %[[B]] : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK: graph.dense %[[X]], %[[K]] : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
// CHECK: graph.dense %[[X3]], %[[K]] : (tensor<4x5x3xf32>, tensor<3x2xf32>) -> tensor<4x5x2xf32>
func.func @dense(%x: tensor<?x3xf32>, %k: tensor<3x2xf32>, %b: tensor<2xf32>, %x3: tensor<4x5x3xf32>) -> tensor<?x2xf32> {
  %0 = graph.dense %x, %k, %b : (tensor<?x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %1 = graph.dense %x, %k : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  %2 = graph.dense %x3, %k : (tensor<4x5x3xf32>, tensor<3x2xf32>) -> tensor<4x5x2xf32>
  return %1 : tensor<?x2xf32>
}

// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<?x7x7x4xf32>, %[[K:.*]]: tensor<3x3x4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[KG:.*]]: tensor<3x3x2x6xf32>)
// CHECK: graph.conv2d %[[X]], %[[K]], %[[B]] : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<?x5x5x8xf32>
// CHECK: graph.conv2d %[[X]], %[[K]] : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<?x5x5x8xf32>
// CHECK: graph.conv2d %[[X]], %[[K]], %[[B]] {padding = "same", strides = [2, 2]} : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<?x4x4x8xf32>
// CHECK: graph.conv2d %[[X]], %[[K]] {dilations = [2, 2]} : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<?x3x3x8xf32>
// CHECK: graph.conv2d %[[X]], %[[KG]] {groups = 2 : i64} : (tensor<?x7x7x4xf32>, tensor<3x3x2x6xf32>) -> tensor<?x5x5x6xf32>
// CHECK: graph.conv2d %[[X]], %[[K]] {dilations = [1, 2], strides = [2, 1]} : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<?x3x3x8xf32>
func.func @conv2d(%x: tensor<?x7x7x4xf32>, %k: tensor<3x3x4x8xf32>, %b: tensor<8xf32>, %kg: tensor<3x3x2x6xf32>) -> tensor<?x5x5x8xf32> {
  %0 = graph.conv2d %x, %k, %b : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<?x5x5x8xf32>
  // Every default written out.
  %1 = graph.conv2d %x, %k {strides = [1, 1], dilations = [1, 1], padding = "valid", groups = 1} : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<?x5x5x8xf32>
  %2 = graph.conv2d %x, %k, %b {strides = [2, 2], padding = "same"} : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<?x4x4x8xf32>
  %3 = graph.conv2d %x, %k {dilations = [2, 2]} : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<?x3x3x8xf32>
  %4 = graph.conv2d %x, %kg {groups = 2} : (tensor<?x7x7x4xf32>, tensor<3x3x2x6xf32>) -> tensor<?x5x5x6xf32>
  %5 = graph.conv2d %x, %k {strides = [2, 1], dilations = [1, 2]} : (tensor<?x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<?x3x3x8xf32>
  return %0 : tensor<?x5x5x8xf32>
}

// CHECK-LABEL: func.func @depthwise_conv2d
// CHECK: graph.depthwise_conv2d %{{.*}}, %{{.*}}, %{{.*}} {padding = "same"} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>) -> tensor<1x6x6x6xf32>
// CHECK: graph.depthwise_conv2d %{{.*}}, %{{.*}} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x6xf32>
// CHECK: graph.depthwise_conv2d %{{.*}}, %{{.*}} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x6xf32>
// CHECK: graph.depthwise_conv2d %{{.*}}, %{{.*}} {dilations = [2, 2], strides = [2, 2]} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x1x1x6xf32>
func.func @depthwise_conv2d(%x: tensor<1x6x6x3xf32>, %k: tensor<3x3x3x2xf32>, %b: tensor<6xf32>) -> tensor<1x6x6x6xf32> {
  %0 = graph.depthwise_conv2d %x, %k, %b {padding = "same"} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>) -> tensor<1x6x6x6xf32>
  %1 = graph.depthwise_conv2d %x, %k : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x6xf32>
  %2 = graph.depthwise_conv2d %x, %k {strides = [1, 1], dilations = [1, 1], padding = "valid"} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x6xf32>
  %3 = graph.depthwise_conv2d %x, %k {strides = [2, 2], dilations = [2, 2]} : (tensor<1x6x6x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x1x1x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// Pools: strides default to the window and are then not printed.
// CHECK-LABEL: func.func @pools
// CHECK: graph.max_pool2d %{{.*}} {window = [2, 2]} : (tensor<?x7x7x2xf32>) -> tensor<?x3x3x2xf32>
// CHECK: graph.max_pool2d %{{.*}} {strides = [2, 2], window = [3, 3]} : (tensor<?x7x7x2xf32>) -> tensor<?x3x3x2xf32>
// CHECK: graph.max_pool2d %{{.*}} {padding = "same", strides = [2, 2], window = [3, 3]} : (tensor<?x7x7x2xf32>) -> tensor<?x4x4x2xf32>
// CHECK: graph.avg_pool2d %{{.*}} {window = [2, 2]} : (tensor<?x7x7x2xf32>) -> tensor<?x3x3x2xf32>
// CHECK: graph.avg_pool2d %{{.*}} {padding = "same", strides = [1, 1], window = [3, 3]} : (tensor<?x7x7x2xf32>) -> tensor<?x7x7x2xf32>
// CHECK: graph.avg_pool2d %{{.*}} {window = [3, 1]} : (tensor<?x7x7x2xf32>) -> tensor<?x2x7x2xf32>
// CHECK: graph.global_avg_pool2d %{{.*}} : (tensor<?x7x7x2xf32>) -> tensor<?x2xf32>
// CHECK: graph.global_max_pool2d %{{.*}} : (tensor<?x7x7x2xf32>) -> tensor<?x2xf32>
func.func @pools(%x: tensor<?x7x7x2xf32>) -> tensor<?x2xf32> {
  %0 = graph.max_pool2d %x {window = [2, 2]} : (tensor<?x7x7x2xf32>) -> tensor<?x3x3x2xf32>
  %1 = graph.max_pool2d %x {window = [3, 3], strides = [2, 2], padding = "valid"} : (tensor<?x7x7x2xf32>) -> tensor<?x3x3x2xf32>
  %2 = graph.max_pool2d %x {window = [3, 3], strides = [2, 2], padding = "same"} : (tensor<?x7x7x2xf32>) -> tensor<?x4x4x2xf32>
  %3 = graph.avg_pool2d %x {window = [2, 2]} : (tensor<?x7x7x2xf32>) -> tensor<?x3x3x2xf32>
  %4 = graph.avg_pool2d %x {window = [3, 3], strides = [1, 1], padding = "same"} : (tensor<?x7x7x2xf32>) -> tensor<?x7x7x2xf32>
  %5 = graph.avg_pool2d %x {window = [3, 1]} : (tensor<?x7x7x2xf32>) -> tensor<?x2x7x2xf32>
  %6 = graph.global_avg_pool2d %x : (tensor<?x7x7x2xf32>) -> tensor<?x2xf32>
  %7 = graph.global_max_pool2d %x : (tensor<?x7x7x2xf32>) -> tensor<?x2xf32>
  return %7 : tensor<?x2xf32>
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @batch_norm
// CHECK: graph.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x4x4x3xf32>
// CHECK: graph.batch_norm {{.*}} : (tensor<?x4x4x3xf32>, {{.*}}) -> tensor<?x4x4x3xf32>
// CHECK: graph.batch_norm {{.*}} {epsilon = 1.250000e-01 : f32, momentum = 5.000000e-01 : f32} : (tensor<?x4x4x3xf32>,
func.func @batch_norm(%x: tensor<?x4x4x3xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x4x4x3xf32> {
  %0 = graph.batch_norm %x, %g, %b, %m, %v : (tensor<?x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x4x4x3xf32>
  %1 = graph.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-03 : f32, momentum = 0.99 : f32} : (tensor<?x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x4x4x3xf32>
  %2 = graph.batch_norm %x, %g, %b, %m, %v {epsilon = 0.125 : f32, momentum = 0.5 : f32} : (tensor<?x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x4x4x3xf32>
  return %2 : tensor<?x4x4x3xf32>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK: graph.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x5x8xf32>
// CHECK: graph.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x5x8xf32>
// CHECK: graph.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 6.250000e-02 : f32} : (tensor<?x5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<?x5x8xf32>
func.func @layer_norm(%x: tensor<?x5x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %g2: tensor<5x8xf32>, %b2: tensor<5x8xf32>) -> tensor<?x5x8xf32> {
  %0 = graph.layer_norm %x, %g, %b : (tensor<?x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x5x8xf32>
  %1 = graph.layer_norm %x, %g, %b {axis = -1, epsilon = 1.0e-03 : f32} : (tensor<?x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x5x8xf32>
  %2 = graph.layer_norm %x, %g2, %b2 {axis = 1, epsilon = 0.0625 : f32} : (tensor<?x5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<?x5x8xf32>
  return %2 : tensor<?x5x8xf32>
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape
// CHECK: graph.reshape %{{.*}} : (tensor<?x2x3xf32>) -> tensor<?x6xf32>
// CHECK: graph.reshape %{{.*}} : (tensor<2x3xi32>) -> tensor<6xi32>
// CHECK: graph.reshape %{{.*}} : (tensor<2x3xi32>) -> tensor<3x?xi32>
// CHECK: graph.reshape %{{.*}} : (tensor<2x3xi32>) -> tensor<1x6x1xi32>
// CHECK: graph.reshape %{{.*}} : (tensor<1xf32>) -> tensor<f32>
func.func @reshape(%x: tensor<?x2x3xf32>, %i: tensor<2x3xi32>, %s: tensor<1xf32>) -> tensor<?x6xf32> {
  %0 = graph.reshape %x : (tensor<?x2x3xf32>) -> tensor<?x6xf32>
  %1 = graph.reshape %i : (tensor<2x3xi32>) -> tensor<6xi32>
  %2 = graph.reshape %i : (tensor<2x3xi32>) -> tensor<3x?xi32>
  %3 = graph.reshape %i : (tensor<2x3xi32>) -> tensor<1x6x1xi32>
  %4 = graph.reshape %s : (tensor<1xf32>) -> tensor<f32>
  return %0 : tensor<?x6xf32>
}

// Several dynamic dims that carry the input's in order (an unsqueeze, a
// squeeze, static dims regrouped between them).
// CHECK-LABEL: func.func @reshape_dynamic_dims
// CHECK: graph.reshape %{{.*}} : (tensor<?x?xf32>) -> tensor<?x1x?xf32>
// CHECK: graph.reshape %{{.*}} : (tensor<?x120x1x?xf32>) -> tensor<?x120x?xf32>
// CHECK: graph.reshape %{{.*}} : (tensor<2x?x6x?xf32>) -> tensor<2x?x2x3x?x1xf32>
func.func @reshape_dynamic_dims(%x: tensor<?x?xf32>, %y: tensor<?x120x1x?xf32>, %z: tensor<2x?x6x?xf32>) -> tensor<?x1x?xf32> {
  %0 = graph.reshape %x : (tensor<?x?xf32>) -> tensor<?x1x?xf32>
  %1 = graph.reshape %y : (tensor<?x120x1x?xf32>) -> tensor<?x120x?xf32>
  %2 = graph.reshape %z : (tensor<2x?x6x?xf32>) -> tensor<2x?x2x3x?x1xf32>
  return %0 : tensor<?x1x?xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: graph.transpose %{{.*}} {perm = [2, 0, 1]} : (tensor<?x3x4xf32>) -> tensor<4x?x3xf32>
// CHECK: graph.transpose %{{.*}} {perm = [0, 1, 2]} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
func.func @transpose(%x: tensor<?x3x4xf32>) -> tensor<4x?x3xf32> {
  %0 = graph.transpose %x {perm = [2, 0, 1]} : (tensor<?x3x4xf32>) -> tensor<4x?x3xf32>
  %1 = graph.transpose %x {perm = [0, 1, 2]} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<4x?x3xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK: graph.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
// CHECK: graph.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
// CHECK: graph.concat %{{.*}} {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: graph.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %d: tensor<?x3xf32>) -> tensor<2x8xf32> {
  %0 = graph.concat %a, %b {axis = 1} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %1 = graph.concat %a, %b, %a {axis = -1} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  %2 = graph.concat %a {axis = 0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = graph.concat %d, %a {axis = 0} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<2x8xf32>
}

// Slice with and without strides; a limit of -1 is the end of the dimension.
// CHECK-LABEL: func.func @slice
// CHECK: graph.slice %{{.*}} {limits = [3, -1], starts = [1, 0], strides = [1, 2]} : (tensor<4x6xf32>) -> tensor<2x3xf32>
// CHECK: graph.slice %{{.*}} {limits = [3, -1], starts = [1, 0]} : (tensor<4x6xf32>) -> tensor<2x6xf32>
// CHECK: graph.slice %{{.*}} {limits = [-1, 2], starts = [0, 0]} : (tensor<?x6xf32>) -> tensor<?x2xf32>
// CHECK: graph.slice %{{.*}} {limits = [4, 6], starts = [0, 0], strides = [1, 1]} : (tensor<4x6xf32>) -> tensor<4x6xf32>
func.func @slice(%x: tensor<4x6xf32>, %d: tensor<?x6xf32>) -> tensor<2x3xf32> {
  %0 = graph.slice %x {starts = [1, 0], limits = [3, -1], strides = [1, 2]} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  %1 = graph.slice %x {starts = [1, 0], limits = [3, -1]} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  %2 = graph.slice %d {starts = [0, 0], limits = [-1, 2]} : (tensor<?x6xf32>) -> tensor<?x2xf32>
  // Strides written out as the default: an optional attribute, kept as written.
  %3 = graph.slice %x {starts = [0, 0], limits = [4, 6], strides = [1, 1]} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK: graph.pad %{{.*}} {pads = [1, 0, 0, 2], value = 5.000000e-01 : f32} : (tensor<2x3xf32>) -> tensor<3x5xf32>
// CHECK: graph.pad %{{.*}} {pads = [1, 1, 2, 2]} : (tensor<?x3xf32>) -> tensor<?x7xf32>
// CHECK: graph.pad %{{.*}} {pads = [0, 0, 0, 0]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @pad(%x: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> tensor<3x5xf32> {
  %0 = graph.pad %x {pads = [1, 0, 0, 2], value = 5.0e-01 : f32} : (tensor<2x3xf32>) -> tensor<3x5xf32>
  %1 = graph.pad %d {pads = [1, 1, 2, 2]} : (tensor<?x3xf32>) -> tensor<?x7xf32>
  %2 = graph.pad %x {pads = [0, 0, 0, 0], value = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @resize
// CHECK: graph.resize %{{.*}} {size = [4, 4]} : (tensor<?x2x2x1xf32>) -> tensor<?x4x4x1xf32>
// CHECK: graph.resize %{{.*}} {size = [4, 4]} : (tensor<?x2x2x1xf32>) -> tensor<?x4x4x1xf32>
// CHECK: graph.resize %{{.*}} {mode = "bilinear", size = [3, 5]} : (tensor<?x2x2x1xf32>) -> tensor<?x3x5x1xf32>
// CHECK: graph.resize %{{.*}} {half_pixel_centers = false, mode = "bilinear", size = [1, 1]} : (tensor<?x2x2x1xf32>) -> tensor<?x1x1x1xf32>
func.func @resize(%x: tensor<?x2x2x1xf32>) -> tensor<?x4x4x1xf32> {
  %0 = graph.resize %x {size = [4, 4]} : (tensor<?x2x2x1xf32>) -> tensor<?x4x4x1xf32>
  %1 = graph.resize %x {size = [4, 4], mode = "nearest", half_pixel_centers = true} : (tensor<?x2x2x1xf32>) -> tensor<?x4x4x1xf32>
  %2 = graph.resize %x {size = [3, 5], mode = "bilinear"} : (tensor<?x2x2x1xf32>) -> tensor<?x3x5x1xf32>
  %3 = graph.resize %x {size = [1, 1], mode = "bilinear", half_pixel_centers = false} : (tensor<?x2x2x1xf32>) -> tensor<?x1x1x1xf32>
  return %0 : tensor<?x4x4x1xf32>
}

// CHECK-LABEL: func.func @gather
// CHECK: graph.gather %{{.*}}, %{{.*}} : (tensor<10x4xf32>, tensor<?x3xi32>) -> tensor<?x3x4xf32>
// CHECK: graph.gather %{{.*}}, %{{.*}} : (tensor<10x4xf32>, tensor<?x3xi32>) -> tensor<?x3x4xf32>
// CHECK: graph.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<10x4xf32>, tensor<5xi64>) -> tensor<10x5xf32>
// CHECK: graph.gather %{{.*}}, %{{.*}} {axis = -2 : i64} : (tensor<10x4xf32>, tensor<5xi64>) -> tensor<5x4xf32>
func.func @gather(%t: tensor<10x4xf32>, %i: tensor<?x3xi32>, %j: tensor<5xi64>) -> tensor<?x3x4xf32> {
  %0 = graph.gather %t, %i : (tensor<10x4xf32>, tensor<?x3xi32>) -> tensor<?x3x4xf32>
  %1 = graph.gather %t, %i {axis = 0} : (tensor<10x4xf32>, tensor<?x3xi32>) -> tensor<?x3x4xf32>
  %2 = graph.gather %t, %j {axis = 1} : (tensor<10x4xf32>, tensor<5xi64>) -> tensor<10x5xf32>
  %3 = graph.gather %t, %j {axis = -2} : (tensor<10x4xf32>, tensor<5xi64>) -> tensor<5x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// CHECK-LABEL: func.func @gather_elements
// CHECK: graph.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x4xf32>, tensor<?x2xi64>) -> tensor<?x2xf32>
// CHECK: graph.gather_elements %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<1x4xi32>) -> tensor<1x4xf32>
func.func @gather_elements(%d: tensor<?x4xf32>, %i: tensor<?x2xi64>, %j: tensor<1x4xi32>) -> (tensor<?x2xf32>, tensor<1x4xf32>) {
  %0 = graph.gather_elements %d, %i {axis = 1} : (tensor<?x4xf32>, tensor<?x2xi64>) -> tensor<?x2xf32>
  %1 = graph.gather_elements %d, %j {axis = 0} : (tensor<?x4xf32>, tensor<1x4xi32>) -> tensor<1x4xf32>
  return %0, %1 : tensor<?x2xf32>, tensor<1x4xf32>
}

// CHECK-LABEL: func.func @mod
// CHECK: graph.mod %{{.*}}, %{{.*}} : (tensor<?x4xi32>, tensor<4xi32>) -> tensor<?x4xi32>
// CHECK: graph.mod %{{.*}}, %{{.*}} {fmod = true} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
func.func @mod(%a: tensor<?x4xi32>, %b: tensor<4xi32>, %x: tensor<3xf32>, %y: tensor<f32>) -> (tensor<?x4xi32>, tensor<3xf32>) {
  %0 = graph.mod %a, %b : (tensor<?x4xi32>, tensor<4xi32>) -> tensor<?x4xi32>
  %1 = graph.mod %x, %y {fmod = true} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0, %1 : tensor<?x4xi32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @top_k_indices
// CHECK: graph.top_k_indices %{{.*}} {k = 3 : i64} : (tensor<?x10xf32>) -> tensor<?x3xi64>
// CHECK: graph.top_k_indices %{{.*}} {k = 0 : i64, largest = false} : (tensor<?x10xf32>) -> tensor<?x0xi64>
func.func @top_k_indices(%x: tensor<?x10xf32>) -> (tensor<?x3xi64>, tensor<?x0xi64>) {
  %0 = graph.top_k_indices %x {k = 3} : (tensor<?x10xf32>) -> tensor<?x3xi64>
  %1 = graph.top_k_indices %x {k = 0, largest = false} : (tensor<?x10xf32>) -> tensor<?x0xi64>
  return %0, %1 : tensor<?x3xi64>, tensor<?x0xi64>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reductions
// CHECK: graph.reduce_sum %{{.*}} {axes = [1]} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
// CHECK: graph.reduce_sum %{{.*}} {axes = [1]} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
// CHECK: graph.reduce_sum %{{.*}} {axes = [1], keep_dims = true} : (tensor<?x3x4xf32>) -> tensor<?x1x4xf32>
// CHECK: graph.reduce_mean %{{.*}} {axes = [0, 2]} : (tensor<?x3x4xf32>) -> tensor<3xf32>
// CHECK: graph.reduce_max %{{.*}} {axes = [-1]} : (tensor<?x3x4xf32>) -> tensor<?x3xf32>
// CHECK: graph.reduce_min %{{.*}} {axes = [0, 1, 2], keep_dims = true} : (tensor<?x3x4xf32>) -> tensor<1x1x1xf32>
// CHECK: graph.reduce_sum %{{.*}} {axes = [0, 1]} : (tensor<2x3xi32>) -> tensor<i32>
// CHECK: graph.reduce_max %{{.*}} {axes = []} : (tensor<2x3xi32>) -> tensor<2x3xi32>
func.func @reductions(%x: tensor<?x3x4xf32>, %i: tensor<2x3xi32>) -> tensor<?x4xf32> {
  %0 = graph.reduce_sum %x {axes = [1]} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
  %1 = graph.reduce_sum %x {axes = [1], keep_dims = false} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
  %2 = graph.reduce_sum %x {axes = [1], keep_dims = true} : (tensor<?x3x4xf32>) -> tensor<?x1x4xf32>
  %3 = graph.reduce_mean %x {axes = [0, 2]} : (tensor<?x3x4xf32>) -> tensor<3xf32>
  %4 = graph.reduce_max %x {axes = [-1]} : (tensor<?x3x4xf32>) -> tensor<?x3xf32>
  %5 = graph.reduce_min %x {axes = [0, 1, 2], keep_dims = true} : (tensor<?x3x4xf32>) -> tensor<1x1x1xf32>
  %6 = graph.reduce_sum %i {axes = [0, 1]} : (tensor<2x3xi32>) -> tensor<i32>
  %7 = graph.reduce_max %i {axes = []} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @argmax
// CHECK: graph.argmax %{{.*}} : (tensor<?x5xf32>) -> tensor<?xi32>
// CHECK: graph.argmax %{{.*}} : (tensor<?x5xf32>) -> tensor<?xi32>
// CHECK: graph.argmax %{{.*}} {axis = 0 : i64} : (tensor<?x5xf32>) -> tensor<5xi32>
// CHECK: graph.argmax %{{.*}} : (tensor<3xi64>) -> tensor<i32>
func.func @argmax(%x: tensor<?x5xf32>, %i: tensor<3xi64>) -> tensor<?xi32> {
  %0 = graph.argmax %x : (tensor<?x5xf32>) -> tensor<?xi32>
  %1 = graph.argmax %x {axis = -1} : (tensor<?x5xf32>) -> tensor<?xi32>
  %2 = graph.argmax %x {axis = 0} : (tensor<?x5xf32>) -> tensor<5xi32>
  %3 = graph.argmax %i : (tensor<3xi64>) -> tensor<i32>
  return %0 : tensor<?xi32>
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @losses
// CHECK: graph.sparse_softmax_cross_entropy %{{.*}}, %{{.*}} : (tensor<?x5xf32>, tensor<?xi32>) -> tensor<f32>
// CHECK: graph.sparse_softmax_cross_entropy %{{.*}}, %{{.*}} : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
// CHECK: graph.softmax_cross_entropy %{{.*}}, %{{.*}} : (tensor<?x5xf32>, tensor<?x5xf32>) -> tensor<f32>
// CHECK: graph.mean_squared_error %{{.*}}, %{{.*}} : (tensor<?x5xf32>, tensor<?x5xf32>) -> tensor<f32>
// CHECK: graph.mean_squared_error %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @losses(%l: tensor<?x5xf32>, %y: tensor<?xi32>, %ls: tensor<4x5xf32>, %ys: tensor<4xi64>, %s: tensor<f32>) -> tensor<f32> {
  %0 = graph.sparse_softmax_cross_entropy %l, %y : (tensor<?x5xf32>, tensor<?xi32>) -> tensor<f32>
  %1 = graph.sparse_softmax_cross_entropy %ls, %ys : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  %2 = graph.softmax_cross_entropy %l, %l : (tensor<?x5xf32>, tensor<?x5xf32>) -> tensor<f32>
  %3 = graph.mean_squared_error %l, %l : (tensor<?x5xf32>, tensor<?x5xf32>) -> tensor<f32>
  %4 = graph.mean_squared_error %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// Named nodes keep their location through the round trip.
// CHECK-LABEL: func.func @named
// CHECK: graph.relu %{{.*}} : tensor<?x3xf32>
// LOC-LABEL: func.func @named
// LOC: graph.relu %{{.*}} : tensor<?x3xf32> loc(#[[NAME:loc[0-9]*]])
// LOC: #[[NAME]] = loc("conv1/relu")
func.func @named(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = graph.relu %x : tensor<?x3xf32> loc("conv1/relu")
  return %0 : tensor<?x3xf32>
}

// The mode attribute (an extension for ONNX Pad) prints only when it is not
// the default "constant".
// CHECK-LABEL: func.func @pad_modes
// CHECK: graph.pad %{{.*}} {pads = [1, 1, 2, 0]} : (tensor<2x3xf32>) -> tensor<4x5xf32>
// CHECK: graph.pad %{{.*}} {mode = "reflect", pads = [1, 1, 2, 0]} : (tensor<2x3xf32>) -> tensor<4x5xf32>
// CHECK: graph.pad %{{.*}} {mode = "edge", pads = [3, 0, 0, 4]} : (tensor<?x3xf32>) -> tensor<?x7xf32>
func.func @pad_modes(%x: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> tensor<4x5xf32> {
  %0 = graph.pad %x {pads = [1, 1, 2, 0], mode = "constant"} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %1 = graph.pad %x {pads = [1, 1, 2, 0], mode = "reflect"} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %2 = graph.pad %d {pads = [3, 0, 0, 4], mode = "edge"} : (tensor<?x3xf32>) -> tensor<?x7xf32>
  return %1 : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @quantization
// CHECK: graph.quantize %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<3x2xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x2xi8>
// CHECK: graph.dequantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xf32>
func.func @quantization(%x: tensor<3x2xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>, %u: tensor<3x2xui8>, %t: tensor<f32>, %tz: tensor<ui8>) -> (tensor<3x2xi8>, tensor<3x2xf32>) {
  %q = graph.quantize %x, %s, %z {axis = 0} : (tensor<3x2xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x2xi8>
  %d = graph.dequantize %u, %t, %tz : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xf32>
  return %q, %d : tensor<3x2xi8>, tensor<3x2xf32>
}

}

// The blob format: a 4-byte alignment word, then little-endian data
// (1.0f and 2.0f; the int64 7).
// CHECK: dialect_resources
// CHECK: builtin
// CHECK-DAG: weights_blob: "0x040000000000803F00000040"
// CHECK-DAG: index_blob: "0x080000000700000000000000"
{-#
  dialect_resources: {
    builtin: {
      weights_blob: "0x040000000000803F00000040",
      index_blob: "0x080000000700000000000000"
    }
  }
#-}

//===----------------------------------------------------------------------===//
// Spec models
//===----------------------------------------------------------------------===//

// SPEC-OPS-LABEL: module @ops
// SPEC-OPS-LABEL: func.func @add
// SPEC-OPS: graph.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// SPEC-OPS-LABEL: func.func @gelu_tanh
// SPEC-OPS: graph.gelu %{{.*}} {approximate = "tanh"} : tensor<2x3xf32>
// SPEC-OPS-LABEL: func.func @clip
// SPEC-OPS: graph.clip %{{.*}} {max = 1.000000e+00 : f32, min = -1.000000e+00 : f32} : tensor<2x3xf32>
// SPEC-OPS-LABEL: func.func @conv2d_same_stride2
// SPEC-OPS: graph.conv2d %{{.*}}, %{{.*}}, %{{.*}} {padding = "same", strides = [2, 2]} : (tensor<1x7x7x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// SPEC-OPS-LABEL: func.func @slice
// SPEC-OPS: graph.slice %{{.*}} {limits = [3, -1], starts = [1, 0], strides = [1, 2]} : (tensor<4x6xf32>) -> tensor<2x3xf32>
// SPEC-OPS-LABEL: func.func @mean_squared_error
// SPEC-OPS: graph.mean_squared_error %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>

// SPEC-MLP-LABEL: module @mlp
// SPEC-MLP: graph.variable @hidden_kernel : tensor<784x128xf32> = #graph.init<"glorot_uniform", seed = 11>
// SPEC-MLP: graph.variable @hidden_bias : tensor<128xf32> = dense<0.000000e+00>
// SPEC-MLP-LABEL: func.func @predict
// SPEC-MLP-SAME: (%[[X:.*]]: tensor<?x784xf32>) -> tensor<?x10xf32>
// SPEC-MLP: %[[K1:.*]] = graph.read @hidden_kernel : tensor<784x128xf32>
// SPEC-MLP: %[[B1:.*]] = graph.read @hidden_bias : tensor<128xf32>
// SPEC-MLP: graph.dense %[[X]], %[[K1]], %[[B1]] : (tensor<?x784xf32>, tensor<784x128xf32>, tensor<128xf32>) -> tensor<?x128xf32>
// SPEC-MLP: %[[P:.*]] = graph.softmax %{{.*}} : tensor<?x10xf32>
// SPEC-MLP: return %[[P]] : tensor<?x10xf32>

// SPEC-CNN-LABEL: module @mnist_cnn
// SPEC-CNN-COUNT-8: graph.variable
// SPEC-CNN-LABEL: func.func @predict
// SPEC-CNN: graph.conv2d {{.*}} : (tensor<?x28x28x1xf32>, tensor<3x3x1x32xf32>, tensor<32xf32>) -> tensor<?x26x26x32xf32>
// SPEC-CNN: graph.max_pool2d {{.*}} {strides = [2, 2], window = [2, 2]} : (tensor<?x26x26x32xf32>) -> tensor<?x13x13x32xf32>
// SPEC-CNN: graph.conv2d {{.*}} -> tensor<?x11x11x64xf32>
// SPEC-CNN: graph.max_pool2d {{.*}} -> tensor<?x5x5x64xf32>
// SPEC-CNN: graph.reshape %{{.*}} : (tensor<?x5x5x64xf32>) -> tensor<?x1600xf32>
// SPEC-CNN: graph.dense {{.*}} -> tensor<?x64xf32>
// SPEC-CNN: graph.dense {{.*}} -> tensor<?x10xf32>
// SPEC-CNN: graph.softmax %{{.*}} : tensor<?x10xf32>

