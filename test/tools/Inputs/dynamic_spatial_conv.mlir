// A convolution over dynamic spatial sizes: valid graph IR that the lowering
// refuses (the memory plan: an output dimension that is neither the batch
// nor named; tfcc-emit.test draws it anyway).
module @dynamic_spatial {
  func.func @predict(%x: tensor<1x?x?x1xf32>, %k: tensor<3x3x1x2xf32>) -> tensor<1x?x?x2xf32> {
    %r = graph.conv2d %x, %k : (tensor<1x?x?x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x?x?x2xf32> loc("conv")
    return %r : tensor<1x?x?x2xf32>
  }
}
