// A small MLP trained with SGD + momentum (sparse softmax cross-entropy):
// the state memory, the compiled train step and the variable API
// (test/tools/training.test, test/tools/Inputs/c_api_train_test.c).
module @mlp_small {
  graph.variable @hidden_kernel : tensor<8x16xf32> = #graph.init<"glorot_uniform", seed = 3>
  graph.variable @hidden_bias : tensor<16xf32> = dense<0.1>
  graph.variable @out_kernel : tensor<16x4xf32> = #graph.init<"glorot_uniform", seed = 4>
  graph.variable @out_bias : tensor<4xf32> = dense<0.0>

  func.func private @logits(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
    %k1 = graph.read @hidden_kernel : tensor<8x16xf32>
    %b1 = graph.read @hidden_bias : tensor<16xf32>
    %h = graph.dense %x, %k1, %b1 : (tensor<?x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
    %a = graph.relu %h : tensor<?x16xf32>
    %k2 = graph.read @out_kernel : tensor<16x4xf32>
    %b2 = graph.read @out_bias : tensor<4xf32>
    %l = graph.dense %a, %k2, %b2 : (tensor<?x16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    return %l : tensor<?x4xf32>
  }

  func.func @predict(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
    %l = func.call @logits(%x) : (tensor<?x8xf32>) -> tensor<?x4xf32>
    %p = graph.softmax %l {axis = -1} : tensor<?x4xf32>
    return %p : tensor<?x4xf32>
  }

  func.func @loss(%x: tensor<?x8xf32>, %y: tensor<?xi32>) -> tensor<f32> {
    %l = func.call @logits(%x) : (tensor<?x8xf32>) -> tensor<?x4xf32>
    %loss = graph.sparse_softmax_cross_entropy %l, %y : (tensor<?x4xf32>, tensor<?xi32>) -> tensor<f32>
    return %loss : tensor<f32>
  }

  graph.train_step @train_step {loss = @loss,
      optimizer = #graph.sgd<learning_rate = 0.1, momentum = 0.9>}
}
