// More operands returned than the function has results: refused by the
// verifier before the entry's result names are read from its return (that
// read went past the result attributes, fuzz/graph_ir_compile).
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x : tensor<2xf32>
  return %y, %y : tensor<2xf32>, tensor<2xf32>
}
