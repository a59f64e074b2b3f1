// A model with an op that has no GPU lowering (test/tools/cuda.test).
module @top_k {
  func.func @predict(%x: tensor<2x4xf32>) -> tensor<2x3xi64> {
    %0 = graph.top_k_indices %x {k = 3} : (tensor<2x4xf32>) -> tensor<2x3xi64> loc("best3")
    return %0 : tensor<2x3xi64>
  }
}
