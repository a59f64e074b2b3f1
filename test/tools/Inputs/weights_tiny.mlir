// A dense layer whose weights come from a checkpoint (tfcc --weights).
module @tiny {
  graph.variable @k : tensor<2x2xf32> = dense<0.0>
  graph.variable @b : tensor<2xf32> = dense<0.0>
  func.func @predict(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
    %k = graph.read @k : tensor<2x2xf32>
    %b = graph.read @b : tensor<2xf32>
    %y = graph.dense %x, %k, %b : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    return %y : tensor<?x2xf32>
  }
}
