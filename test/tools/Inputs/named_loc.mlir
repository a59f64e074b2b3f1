// A named node with a wrong kernel: the error names the node and its position.
module @named_loc {
  func.func @predict(%image: tensor<?x28x28x1xf32>, %k: tensor<3x3x2x32xf32>) -> tensor<?x26x26x32xf32> {
    %c1 = graph.conv2d %image, %k {strides = [1, 1], padding = "valid"}
        : (tensor<?x28x28x1xf32>, tensor<3x3x2x32xf32>) -> tensor<?x26x26x32xf32> loc("conv1")
    return %c1 : tensor<?x26x26x32xf32>
  }
}
