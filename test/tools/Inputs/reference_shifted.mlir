// y = 2 x + [0, 0, 0, -5]: the build test/tools/reference.test measures
// against reference_double.mlir.
module @scaled {
  func.func @predict(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %two = graph.constant dense<2.0> : tensor<f32>
    %shift = graph.constant dense<[0.0, 0.0, 0.0, -5.0]> : tensor<4xf32>
    %d = graph.mul %x, %two : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    %y = graph.add %d, %shift : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
}
