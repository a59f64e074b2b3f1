// RUN: tfcc-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tfcc-refine-result-types))' | FileCheck %s

// A `?` that inference knows: the op and the same-type op after it take the
// inferred type, and so does the function's result.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: -> tensor<2x3xf32>
// CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: graph.relu %{{.*}} : tensor<2x3xf32>
// CHECK: return %{{.*}} : tensor<2x3xf32>
func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x?xf32> {
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x?xf32>
  %1 = graph.relu %0 : tensor<2x?xf32>
  return %1 : tensor<2x?xf32>
}

// -----

// keep_dims: the reduced axis is 1, the others the input's.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: -> tensor<2x1x4xf32>
// CHECK: graph.reduce_sum %{{.*}} {axes = [1], keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
func.func @reduce(%x: tensor<2x3x4xf32>) -> tensor<?x?x4xf32> {
  %0 = graph.reduce_sum %x {axes = [1], keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// -----

// The batch stays dynamic; same-type users follow (softmax), others read the
// old type through a cast (the call).
// CHECK-LABEL: func.func @batch
// CHECK-SAME: -> tensor<?x3xf32>
// CHECK: %[[ADD:.*]] = graph.add %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: %[[SOFTMAX:.*]] = graph.softmax %[[ADD]] : tensor<?x3xf32>
// CHECK: %[[CAST:.*]] = tensor.cast %[[ADD]] : tensor<?x3xf32> to tensor<?x?xf32>
// CHECK: call @sink(%[[CAST]]) : (tensor<?x?xf32>) -> ()
// CHECK: return %[[SOFTMAX]] : tensor<?x3xf32>
func.func private @sink(tensor<?x?xf32>)
func.func @batch(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x?xf32> {
  %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  %1 = graph.softmax %0 {axis = -1 : i64} : tensor<?x?xf32>
  func.call @sink(%0) : (tensor<?x?xf32>) -> ()
  return %1 : tensor<?x?xf32>
}

// -----

// Already as static as inference makes it: unchanged.
// CHECK-LABEL: func.func @unchanged
// CHECK-SAME: -> tensor<?x3xf32>
// CHECK-NOT: tensor.cast
func.func @unchanged(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
