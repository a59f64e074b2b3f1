// RUN: tfcc-opt %s --tfcc-drop-train-steps | FileCheck %s
// RUN: tfcc-opt %s --tfcc-drop-train-steps --tfcc-autodiff | FileCheck %s --check-prefix=AUTODIFF

// The train step goes; the variables, the loss and the other entries stay.
// CHECK: graph.variable @w
// CHECK: func.func @predict
// CHECK: func.func @loss
// CHECK-NOT: graph.train_step
// tfcc-autodiff then has nothing to do: no training function, no slots.
// AUTODIFF-NOT: @train
// AUTODIFF-NOT: momentum
module @m {
  graph.variable @w : tensor<4x2xf32> = dense<0.5>
  func.func @predict(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
    %w = graph.read @w : tensor<4x2xf32>
    %y = graph.matmul %x, %w : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    return %y : tensor<?x2xf32>
  }
  func.func @loss(%x: tensor<?x4xf32>) -> tensor<f32> {
    %y = func.call @predict(%x) : (tensor<?x4xf32>) -> tensor<?x2xf32>
    %l = graph.reduce_mean %y {axes = [0, 1]} : (tensor<?x2xf32>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @train {loss = @loss, optimizer = #graph.sgd<learning_rate = 0.1, momentum = 0.9>}
}
