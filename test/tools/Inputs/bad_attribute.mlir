module @bad_attribute {
  func.func @predict(%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
    %0 = graph.conv2d %x, %k {padding = "SAME"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
    return %0 : tensor<1x8x8x4xf32>
  }
}
