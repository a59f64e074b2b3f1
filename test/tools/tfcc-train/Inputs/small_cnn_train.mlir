// A small Fashion-MNIST CNN without batch norm or dropout, whose replicas
// train exactly as one process (test/tools/tfcc-train/mpi_test.py): Conv2D 8
// -> ReLU -> MaxPool -> Dense 10, sparse softmax cross-entropy, Adam.
module @small_cnn {
  graph.variable @conv_kernel : tensor<3x3x1x8xf32> = #graph.init<"he_normal", seed = 1>
  graph.variable @conv_bias : tensor<8xf32> = dense<0.0>
  graph.variable @dense_kernel : tensor<1352x10xf32> = #graph.init<"glorot_uniform", seed = 2>
  graph.variable @dense_bias : tensor<10xf32> = dense<0.0>

  func.func private @logits(%image: tensor<?x28x28x1xf32>) -> tensor<?x10xf32> {
    %k1 = graph.read @conv_kernel : tensor<3x3x1x8xf32>
    %b1 = graph.read @conv_bias : tensor<8xf32>
    %c = graph.conv2d %image, %k1, %b1 {strides = [1, 1], padding = "valid"}
        : (tensor<?x28x28x1xf32>, tensor<3x3x1x8xf32>, tensor<8xf32>) -> tensor<?x26x26x8xf32>
    %r = graph.relu %c : tensor<?x26x26x8xf32>
    %p = graph.max_pool2d %r {window = [2, 2], strides = [2, 2]}
        : (tensor<?x26x26x8xf32>) -> tensor<?x13x13x8xf32>
    %f = graph.reshape %p : (tensor<?x13x13x8xf32>) -> tensor<?x1352xf32>
    %k2 = graph.read @dense_kernel : tensor<1352x10xf32>
    %b2 = graph.read @dense_bias : tensor<10xf32>
    %l = graph.dense %f, %k2, %b2
        : (tensor<?x1352xf32>, tensor<1352x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
    return %l : tensor<?x10xf32>
  }

  func.func @predict(%image: tensor<?x28x28x1xf32>) -> tensor<?x10xf32> {
    %l = func.call @logits(%image) : (tensor<?x28x28x1xf32>) -> tensor<?x10xf32>
    %p = graph.softmax %l {axis = -1} : tensor<?x10xf32>
    return %p : tensor<?x10xf32>
  }

  func.func @loss(%image: tensor<?x28x28x1xf32>, %label: tensor<?xi32>) -> tensor<f32> {
    %l = func.call @logits(%image) : (tensor<?x28x28x1xf32>) -> tensor<?x10xf32>
    %loss = graph.sparse_softmax_cross_entropy %l, %label
        : (tensor<?x10xf32>, tensor<?xi32>) -> tensor<f32>
    return %loss : tensor<f32>
  }

  graph.train_step @train_step {loss = @loss, optimizer = #graph.adam<learning_rate = 1.0e-03>}
}
