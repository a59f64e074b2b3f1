module @bare_float {
  func.func @predict(%x: tensor<2x3xf32>, %g: tensor<3xf32>) -> tensor<2x3xf32> {
    %0 = graph.layer_norm %x, %g, %g {epsilon = 0.1} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
