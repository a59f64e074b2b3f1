// An op without a gradient rule on the path from a trainable variable to the
// loss is an error that names the op at its location.
// RUN: tfcc-opt %s -split-input-file -tfcc-autodiff -verify-diagnostics

module @fused {
  graph.variable @k : tensor<4x2xf32> = dense<0.5>
  func.func @loss(%x: tensor<3x4xf32>) -> tensor<f32> {
    %k = graph.read @k : tensor<4x2xf32>
    // expected-error @+1 {{no gradient rule for 'graph.fused_dense'}}
    %y = graph.fused_dense %x, %k : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %l = graph.reduce_mean %y {axes = [0, 1]} : (tensor<3x2xf32>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @train {loss = @loss, optimizer = #graph.sgd<>}
}

// -----

module @reflect {
  graph.variable @v : tensor<3x4xf32> = dense<0.5>
  func.func @loss() -> tensor<f32> {
    %v = graph.read @v : tensor<3x4xf32>
    // expected-error @+1 {{no gradient rule for 'graph.pad': mode "reflect" is not differentiated}}
    %p = graph.pad %v {pads = [1, 1, 1, 1], mode = "reflect"} : (tensor<3x4xf32>) -> tensor<5x6xf32>
    %l = graph.reduce_sum %p {axes = [0, 1]} : (tensor<5x6xf32>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @train {loss = @loss, optimizer = #graph.sgd<>}
}

// -----

// Paths that do not reach a trainable variable need no rule: the argmax
// and integer cast below are fine.
module @inactive {
  graph.variable @v : tensor<4xf32> = dense<0.5>
  func.func @loss(%x: tensor<3x4xf32>) -> tensor<f32> {
    %v = graph.read @v : tensor<4xf32>
    %a = graph.argmax %x : (tensor<3x4xf32>) -> tensor<3xi32>
    %f = graph.cast %a : (tensor<3xi32>) -> tensor<3xf32>
    %s = graph.reduce_sum %f {axes = [0]} : (tensor<3xf32>) -> tensor<f32>
    %m = graph.mul %x, %v : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %t = graph.reduce_sum %m {axes = [0, 1]} : (tensor<3x4xf32>) -> tensor<f32>
    %l = graph.add %s, %t : (tensor<f32>, tensor<f32>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @train {loss = @loss, optimizer = #graph.sgd<>}
}
