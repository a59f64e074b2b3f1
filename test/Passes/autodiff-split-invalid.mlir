// tfcc-autodiff{split=true} refuses what it cannot split: a module that
// already has a function of a half's name, a loss that depends on no
// trainable variable (no gradients to hand over).
// RUN: tfcc-opt %s -split-input-file -tfcc-autodiff='split=true' -verify-diagnostics

module @taken {
  graph.variable @k : tensor<4xf32> = dense<0.5>
  func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
    %k = graph.read @k : tensor<4xf32>
    %y = graph.mul %x, %k : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %l = graph.reduce_sum %y {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
    return %l : tensor<f32>
  }
  func.func @apply_gradients(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
  // expected-error @+1 {{cannot be split into @compute_gradients and @apply_gradients: the module already has a symbol @apply_gradients}}
  graph.train_step @train_step {loss = @loss, optimizer = #graph.sgd<>}
}

// -----

module @frozen {
  graph.variable @k : tensor<4xf32> = dense<0.5> {trainable = false}
  func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
    %k = graph.read @k : tensor<4xf32>
    %y = graph.mul %x, %k : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %l = graph.reduce_sum %y {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
    return %l : tensor<f32>
  }
  // expected-error @+1 {{cannot split the train step into compute_gradients and apply_gradients: its loss depends on no trainable variable}}
  graph.train_step @train_step {loss = @loss, optimizer = #graph.sgd<>}
}
