module @unknown_op {
  func.func @predict(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = graph.frobnicate %x : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
