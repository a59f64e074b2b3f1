// Batch, H and W dynamic, H and W named (tfcc.dim_names): with --dim-bound
// each is a dimension of its own (tools/named-dims.test). @predict pools to
// [batch, 8]; @features returns relu(x), whose output is [batch, H, W, 3].
module @named {
  graph.variable @k1 : tensor<3x3x3x8xf32> = #graph.init<"glorot_uniform", seed = 3>
  graph.variable @b1 : tensor<8xf32> = #graph.init<"glorot_uniform", seed = 4>
  graph.variable @k2 : tensor<3x3x8x1xf32> = #graph.init<"glorot_uniform", seed = 5>
  func.func @predict(%x: tensor<?x?x?x3xf32> {tfcc.dim_names = ["", "H", "W", ""]}) -> tensor<?x8xf32> {
    %k1 = graph.read @k1 : tensor<3x3x3x8xf32>
    %b1 = graph.read @b1 : tensor<8xf32>
    %k2 = graph.read @k2 : tensor<3x3x8x1xf32>
    %p = graph.pad %x {pads = [0, 0, 1, 1, 1, 1, 0, 0]} : (tensor<?x?x?x3xf32>) -> tensor<?x?x?x3xf32>
    %c = graph.conv2d %p, %k1, %b1 {strides = [2, 1]} : (tensor<?x?x?x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>) -> tensor<?x?x?x8xf32>
    %r = graph.relu %c : tensor<?x?x?x8xf32>
    %d = graph.depthwise_conv2d %r, %k2 {strides = [1, 2]} : (tensor<?x?x?x8xf32>, tensor<3x3x8x1xf32>) -> tensor<?x?x?x8xf32>
    %m = graph.max_pool2d %d {window = [2, 2], strides = [1, 1]} : (tensor<?x?x?x8xf32>) -> tensor<?x?x?x8xf32>
    %g = graph.global_avg_pool2d %m : (tensor<?x?x?x8xf32>) -> tensor<?x8xf32>
    return %g : tensor<?x8xf32>
  }
  func.func @features(%x: tensor<?x?x?x3xf32> {tfcc.dim_names = ["", "H", "W", ""]}) -> tensor<?x?x?x3xf32> {
    %r = graph.relu %x : tensor<?x?x?x3xf32>
    return %r : tensor<?x?x?x3xf32>
  }
}
