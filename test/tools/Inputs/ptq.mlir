// A float model for tfcc --quantize=int8 (quantize.test): a dense layer and a
// convolution with constant weights, and a loss entry reading the same
// weights.
module @ptq {
  graph.variable @w : tensor<4x3xf32> = dense<[[0.5, -1.0, 0.25], [1.5, 0.0, -0.125], [-2.0, 0.75, 0.0], [0.1, 0.2, 0.3]]>
  graph.variable @k : tensor<3x3x2x4xf32> = #graph.init<"glorot_uniform", seed = 3>
  func.func @predict(%x: tensor<?x4xf32>, %img: tensor<?x5x5x2xf32>) -> (tensor<?x3xf32>, tensor<?x3x3x4xf32>) {
    %w = graph.read @w : tensor<4x3xf32>
    %y = graph.dense %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %k = graph.read @k : tensor<3x3x2x4xf32>
    %c = graph.conv2d %img, %k : (tensor<?x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<?x3x3x4xf32>
    return %y, %c : tensor<?x3xf32>, tensor<?x3x3x4xf32>
  }
  func.func @loss(%x: tensor<?x4xf32>) -> tensor<f32> {
    %w = graph.read @w : tensor<4x3xf32>
    %y = graph.dense %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %s = graph.reduce_sum %y {axes = [0, 1]} : (tensor<?x3xf32>) -> tensor<f32>
    return %s : tensor<f32>
  }
}
