// RUN: tfcc-opt --tfcc-precision-policy %s | FileCheck %s

// Values the policy made 16-bit are cast back to f32 where an op outside
// it takes them: a call (whose signature is the model's) and an assign.
// CHECK-LABEL: func.func @calls_and_assigns
// CHECK: %[[E:.*]] = graph.exp %{{.*}} : tensor<4xbf16>
// CHECK: %[[EF:.*]] = graph.cast %[[E]] : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK: %[[C:.*]] = call @helper(%[[EF]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: graph.assign @state, %[[EF]] : tensor<4xf32>
// CHECK: return %[[C]] : tensor<4xf32>
module {
  graph.variable @state : tensor<4xf32> = dense<0.0>
  func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
    %r = graph.relu %a : tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func @calls_and_assigns(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = graph.exp %x : tensor<4xf32>
    %c = func.call @helper(%e) : (tensor<4xf32>) -> tensor<4xf32>
    graph.assign @state, %e : tensor<4xf32>
    return %c : tensor<4xf32>
  }
}
