// global_avg_pool2d -> matmul -> matmul -> loss: the gradient of the first
// kernel read the pooled values after a later op had overwritten their buffer
// (0.6% off at learning rate 0.05; test/tools/training-regressions.test).
module @pooled_two_matmuls {
  graph.variable @w1 : tensor<4x6xf32> = #graph.init<"glorot_uniform", seed = 70>
  graph.variable @w3 : tensor<6x4xf32> = #graph.init<"glorot_uniform", seed = 1>
  func.func @loss(%x: tensor<?x5x5x4xf32>, %y: tensor<?xi32>) -> tensor<f32> {
    %t5 = graph.global_avg_pool2d %x : (tensor<?x5x5x4xf32>) -> tensor<?x4xf32>
    %t6 = graph.read @w1 : tensor<4x6xf32>
    %t8 = graph.matmul %t5, %t6 : (tensor<?x4xf32>, tensor<4x6xf32>) -> tensor<?x6xf32>
    %t10 = graph.read @w3 : tensor<6x4xf32>
    %t11 = graph.matmul %t8, %t10 : (tensor<?x6xf32>, tensor<6x4xf32>) -> tensor<?x4xf32>
    %l = graph.sparse_softmax_cross_entropy %t11, %y : (tensor<?x4xf32>, tensor<?xi32>) -> tensor<f32>
    return %l : tensor<f32>
  }
  graph.train_step @train_step {loss = @loss, optimizer = #graph.sgd<learning_rate = 5.0e-02>}
}
