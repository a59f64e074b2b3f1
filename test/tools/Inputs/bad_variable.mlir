module @bad_variable {
  graph.variable @kernel : tensor<3x3xf32> = #graph.init<"glorot_uniform", seed = 1, scale = 0.5>
  func.func @predict() -> tensor<3x3xf32> {
    %0 = graph.read @kernel : tensor<3x3xf32>
    return %0 : tensor<3x3xf32>
  }
}
