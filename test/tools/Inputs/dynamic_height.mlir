// Convolutions and pooling over an input height known only at run time (the
// one dynamic dim, so the batch's value): tools/dynamic-height.test.
module @dynh {
  graph.variable @k1 : tensor<3x3x3x8xf32> = #graph.init<"glorot_uniform", seed = 3>
  graph.variable @b1 : tensor<8xf32> = #graph.init<"glorot_uniform", seed = 4>
  graph.variable @k2 : tensor<3x3x8x1xf32> = #graph.init<"glorot_uniform", seed = 5>
  func.func @predict(%x: tensor<1x?x11x3xf32>) -> tensor<1x8xf32> {
    %k1 = graph.read @k1 : tensor<3x3x3x8xf32>
    %b1 = graph.read @b1 : tensor<8xf32>
    %k2 = graph.read @k2 : tensor<3x3x8x1xf32>
    %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<1x?x11x3xf32>) -> tensor<1x?x13x3xf32>
    %c = graph.conv2d %p, %k1, %b1 {strides = [1, 1]} : (tensor<1x?x13x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>) -> tensor<1x?x11x8xf32>
    %r = graph.relu %c : tensor<1x?x11x8xf32>
    %d = graph.depthwise_conv2d %r, %k2 {strides = [1, 2]} : (tensor<1x?x11x8xf32>, tensor<3x3x8x1xf32>) -> tensor<1x?x5x8xf32>
    %m = graph.max_pool2d %d {window = [2, 2], strides = [1, 1]} : (tensor<1x?x5x8xf32>) -> tensor<1x?x4x8xf32>
    %g = graph.global_avg_pool2d %m : (tensor<1x?x4x8xf32>) -> tensor<1x8xf32>
    return %g : tensor<1x8xf32>
  }
}
