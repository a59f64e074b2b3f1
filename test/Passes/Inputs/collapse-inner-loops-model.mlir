// The model of collapse-inner-loops.mlir's --compare run: elementwise ops
// on a one-channel image with a dynamic batch, and with a per-channel
// operand.
module @collapse_inner_loops {
  func.func @predict(%x: tensor<?x28x28x1xf32>, %y: tensor<?x7x7x4xf32>, %b: tensor<4xf32>)
      -> (tensor<?x28x28x1xf32>, tensor<?x7x7x4xf32>) {
    %t = graph.mul %x, %x : (tensor<?x28x28x1xf32>, tensor<?x28x28x1xf32>) -> tensor<?x28x28x1xf32>
    %r = graph.relu %t : tensor<?x28x28x1xf32>
    %s = graph.add %y, %b : (tensor<?x7x7x4xf32>, tensor<4xf32>) -> tensor<?x7x7x4xf32>
    %u = graph.tanh %s : tensor<?x7x7x4xf32>
    return %r, %u : tensor<?x28x28x1xf32>, tensor<?x7x7x4xf32>
  }
}
