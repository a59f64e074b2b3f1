// Outputs whose height and width are computed from the input's (a strided
// convolution, a depthwise one): derived dimensions (tools/named-dims.test).
module @derived {
  graph.variable @k1 : tensor<3x3x3x8xf32> = #graph.init<"glorot_uniform", seed = 3>
  graph.variable @k2 : tensor<3x3x8x1xf32> = #graph.init<"glorot_uniform", seed = 5>
  func.func @predict(%x: tensor<?x?x?x3xf32> {tfcc.dim_names = ["", "H", "W", ""]}) -> (tensor<?x?x?x8xf32> {tfcc.name = "features"}) {
    %k1 = graph.read @k1 : tensor<3x3x3x8xf32>
    %k2 = graph.read @k2 : tensor<3x3x8x1xf32>
    %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<?x?x?x3xf32>) -> tensor<?x?x?x3xf32>
    %c = graph.conv2d %p, %k1 {strides = [2, 1]} : (tensor<?x?x?x3xf32>, tensor<3x3x3x8xf32>) -> tensor<?x?x?x8xf32>
    %r = graph.relu %c : tensor<?x?x?x8xf32>
    %d = graph.depthwise_conv2d %r, %k2 {strides = [1, 2]} : (tensor<?x?x?x8xf32>, tensor<3x3x8x1xf32>) -> tensor<?x?x?x8xf32>
    return %d : tensor<?x?x?x8xf32>
  }
}
