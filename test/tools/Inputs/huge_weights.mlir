// Two variables of 12 GiB each: each within the limit, together over it.
module @huge_weights {
  graph.variable @a : tensor<3221225472xf32> = #graph.init<"zeros", seed = 0>
  graph.variable @b : tensor<3221225472xf32> = #graph.init<"zeros", seed = 0>
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
