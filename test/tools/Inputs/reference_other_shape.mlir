// A model whose input differs from reference_double.mlir's (2x3, not 2x4).
module @scaled {
  func.func @predict(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %y = graph.neg %x : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
}
