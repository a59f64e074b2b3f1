module @shape_mismatch {
  func.func @predict(%x: tensor<?x3xf32>, %k: tensor<4x2xf32>) -> tensor<?x2xf32> {
    %0 = graph.dense %x, %k : (tensor<?x3xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    return %0 : tensor<?x2xf32>
  }
}
