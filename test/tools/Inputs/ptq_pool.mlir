// A float model for quantize-pooling.test: a convolution, relu and max
// pooling, then a second convolution, whose quantized input tfcc
// --quantize=int8 places after the pooling.
module @ptq_pool {
  graph.variable @k1 : tensor<3x3x2x4xf32> = #graph.init<"glorot_uniform", seed = 4>
  graph.variable @k2 : tensor<3x3x4x3xf32> = #graph.init<"glorot_uniform", seed = 5>
  func.func @predict(%img: tensor<?x10x10x2xf32>) -> tensor<?x2x2x3xf32> {
    %k1 = graph.read @k1 : tensor<3x3x2x4xf32>
    %c1 = graph.conv2d %img, %k1 : (tensor<?x10x10x2xf32>, tensor<3x3x2x4xf32>) -> tensor<?x8x8x4xf32>
    %r1 = graph.relu %c1 : tensor<?x8x8x4xf32>
    %p1 = graph.max_pool2d %r1 {window = [2, 2]} : (tensor<?x8x8x4xf32>) -> tensor<?x4x4x4xf32>
    %k2 = graph.read @k2 : tensor<3x3x4x3xf32>
    %c2 = graph.conv2d %p1, %k2 : (tensor<?x4x4x4xf32>, tensor<3x3x4x3xf32>) -> tensor<?x2x2x3xf32>
    return %c2 : tensor<?x2x2x3xf32>
  }
}
