// A module inside the model's module (two models pasted into one file).
module @outer {
  func.func @loss(%x: tensor<?x4xf32>) -> tensor<f32> {
    %0 = graph.reduce_mean %x {axes = [0, 1]} : (tensor<?x4xf32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  module @inner {
    func.func @loss(%x: tensor<?x4xf32>) -> tensor<f32> {
      %0 = graph.reduce_mean %x {axes = [0, 1]} : (tensor<?x4xf32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
    graph.train_step @sgd_small {loss = @loss, optimizer = #graph.sgd<momentum = 0.125, learning_rate = 1.0e-05>}
  }
  graph.train_step @sgd_defaults {loss = @loss, optimizer = #graph.sgd<>}
}
