// A missing closing parenthesis in the result type.
module @syntax_error {
  func.func @predict(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = graph.add %x, %x : (tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
