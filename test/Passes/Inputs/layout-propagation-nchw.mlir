// An NCHW CNN as the ONNX importer writes it: every NHWC op (conv2d,
// max_pool2d) wrapped in transposes, layout-agnostic ops in between. Used by
// layout-propagation-numerics.test.
module @nchw_cnn {
  graph.variable @k1 : tensor<3x3x3x8xf32> = #graph.init<"glorot_uniform", seed = 1>
  graph.variable @k2 : tensor<3x3x8x8xf32> = #graph.init<"glorot_uniform", seed = 2>
  graph.variable @k3 : tensor<1x1x16x4xf32> = #graph.init<"glorot_uniform", seed = 3>
  graph.variable @bias : tensor<8x1x1xf32> = #graph.init<"uniform", seed = 4, scale = 0.5>
  graph.variable @full : tensor<1x8x6x6xf32> = #graph.init<"uniform", seed = 5, scale = 0.5>

  func.func @predict(%x: tensor<1x3x6x6xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x8x6x6xf32>) {
    %k1 = graph.read @k1 : tensor<3x3x3x8xf32>
    %k2 = graph.read @k2 : tensor<3x3x8x8xf32>
    %k3 = graph.read @k3 : tensor<1x1x16x4xf32>
    %bias = graph.read @bias : tensor<8x1x1xf32>
    %full = graph.read @full : tensor<1x8x6x6xf32>
    %scale = graph.constant dense<[[[0.5]], [[1.0]], [[1.5]], [[2.0]], [[-0.5]], [[-1.0]], [[0.25]], [[3.0]]]> : tensor<8x1x1xf32>
    %half = graph.constant dense<0.5> : tensor<f32>
    // conv1 -> relu -> + bias[C,1,1] -> * scale[C,1,1]
    %0 = graph.transpose %x {perm = [0, 2, 3, 1]} : (tensor<1x3x6x6xf32>) -> tensor<1x6x6x3xf32>
    %1 = graph.conv2d %0, %k1 {padding = "same"} : (tensor<1x6x6x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32>
    %2 = graph.transpose %1 {perm = [0, 3, 1, 2]} : (tensor<1x6x6x8xf32>) -> tensor<1x8x6x6xf32>
    %3 = graph.relu %2 : tensor<1x8x6x6xf32>
    %4 = graph.add %3, %bias : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
    %5 = graph.mul %4, %scale : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
    // conv2 -> residual add -> SiLU
    %6 = graph.transpose %5 {perm = [0, 2, 3, 1]} : (tensor<1x8x6x6xf32>) -> tensor<1x6x6x8xf32>
    %7 = graph.conv2d %6, %k2 {padding = "same"} : (tensor<1x6x6x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x6x8xf32>
    %8 = graph.transpose %7 {perm = [0, 3, 1, 2]} : (tensor<1x6x6x8xf32>) -> tensor<1x8x6x6xf32>
    %9 = graph.add %8, %5 : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %10 = graph.sigmoid %9 : tensor<1x8x6x6xf32>
    %11 = graph.mul %9, %10 : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    // a full-size variable operand, a scalar, a compare/select
    %12 = graph.sub %11, %full : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %13 = graph.maximum %12, %half : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
    %14 = graph.compare %12, %half {predicate = "gt"} : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xi1>
    %15 = graph.select %14, %13, %11 : (tensor<1x8x6x6xi1>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    // concat on channels, pad, max_pool, slice, conv3, softmax over channels
    %16 = graph.concat %15, %9 {axis = 1} : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x16x6x6xf32>
    %17 = graph.pad %16 {pads = [0, 0, 0, 0, 1, 1, 1, 1], value = -1.0 : f32} : (tensor<1x16x6x6xf32>) -> tensor<1x16x8x8xf32>
    %18 = graph.transpose %17 {perm = [0, 2, 3, 1]} : (tensor<1x16x8x8xf32>) -> tensor<1x8x8x16xf32>
    %19 = graph.max_pool2d %18 {window = [2, 2]} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
    %20 = graph.transpose %19 {perm = [0, 3, 1, 2]} : (tensor<1x4x4x16xf32>) -> tensor<1x16x4x4xf32>
    %21 = graph.slice %20 {starts = [0, 0, 1, 0], limits = [1, 16, 4, 3]} : (tensor<1x16x4x4xf32>) -> tensor<1x16x3x3xf32>
    %22 = graph.transpose %21 {perm = [0, 2, 3, 1]} : (tensor<1x16x3x3xf32>) -> tensor<1x3x3x16xf32>
    %23 = graph.conv2d %22, %k3 : (tensor<1x3x3x16xf32>, tensor<1x1x16x4xf32>) -> tensor<1x3x3x4xf32>
    %24 = graph.transpose %23 {perm = [0, 3, 1, 2]} : (tensor<1x3x3x4xf32>) -> tensor<1x4x3x3xf32>
    %25 = graph.softmax %24 {axis = 1} : tensor<1x4x3x3xf32>
    return %25, %11 : tensor<1x4x3x3xf32>, tensor<1x8x6x6xf32>
  }
}
