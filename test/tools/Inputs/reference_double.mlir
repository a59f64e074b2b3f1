// y = 2 x: the reference build of test/tools/reference.test.
module @scaled {
  func.func @predict(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %two = graph.constant dense<2.0> : tensor<f32>
    %y = graph.mul %x, %two : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
}
