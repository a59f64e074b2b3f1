module @pool8 {
  func.func @predict(%u: tensor<?x9x9x20xui8>, %s: tensor<2x8x8x3xi8>, %d: tensor<1x6x6x?xi8>) -> (tensor<?x4x4x20xui8>, tensor<2x4x4x3xi8>, tensor<1x3x3x?xi8>, tensor<?x5x5x20xui8>) {
    %p = graph.pad %u {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<?x9x9x20xui8>) -> tensor<?x11x11x20xui8>
    %0 = graph.max_pool2d %p {window = [3, 3], strides = [2, 2]} : (tensor<?x11x11x20xui8>) -> tensor<?x5x5x20xui8>
    %1 = graph.max_pool2d %s {window = [2, 2], padding = "same"} : (tensor<2x8x8x3xi8>) -> tensor<2x4x4x3xi8>
    %2 = graph.max_pool2d %d {window = [2, 2]} : (tensor<1x6x6x?xi8>) -> tensor<1x3x3x?xi8>
    %3 = graph.max_pool2d %u {window = [2, 2]} : (tensor<?x9x9x20xui8>) -> tensor<?x4x4x20xui8>
    return %3, %1, %2, %0 : tensor<?x4x4x20xui8>, tensor<2x4x4x3xi8>, tensor<1x3x3x?xi8>, tensor<?x5x5x20xui8>
  }
}
