// RUN: tfcc-opt %s -inline -symbol-dce | FileCheck %s

// Private functions of graph ops inline into their callers (the compiler
// relies on it: entry points are compiled as single functions).
// CHECK-NOT: func.func private @block
// CHECK-LABEL: func.func @predict
// CHECK-NOT: call
// CHECK: graph.dense
// CHECK: graph.relu
// CHECK: graph.dense
// CHECK: graph.relu
graph.variable @k : tensor<4x4xf32> = #graph.init<"glorot_uniform", seed = 1>

func.func private @block(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %k = graph.read @k : tensor<4x4xf32>
  %d = graph.dense %x, %k : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %r = graph.relu %d : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @predict(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = func.call @block(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %b = func.call @block(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}
