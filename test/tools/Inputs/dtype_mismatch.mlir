module @dtype_mismatch {
  func.func @predict(%x: tensor<2xf32>, %i: tensor<2xi32>) -> tensor<2xf32> {
    %0 = graph.mul %x, %i : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
