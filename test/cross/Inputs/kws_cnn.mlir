// A keyword-spotting CNN of the size that runs on a Cortex-M (test/cross/cortex-m.sh,
// docs/embedded.md): 49 frames x 10 MFCC features in, 12 classes out, in the shape of
// the "DS-CNN" models of the Hello Edge paper: a strided convolution, two depthwise-
// separable blocks, global average pooling, a dense layer. 7,612 weights (about 8 KB in int8).
module @kws_cnn {
  graph.variable @conv1_kernel : tensor<10x4x1x32xf32> = #graph.init<"glorot_uniform", seed = 11>
  graph.variable @conv1_bias : tensor<32xf32> = #graph.init<"glorot_uniform", seed = 12>
  graph.variable @dw1_kernel : tensor<3x3x32x1xf32> = #graph.init<"glorot_uniform", seed = 13>
  graph.variable @dw1_bias : tensor<32xf32> = #graph.init<"glorot_uniform", seed = 14>
  graph.variable @pw1_kernel : tensor<1x1x32x48xf32> = #graph.init<"glorot_uniform", seed = 15>
  graph.variable @pw1_bias : tensor<48xf32> = #graph.init<"glorot_uniform", seed = 16>
  graph.variable @dw2_kernel : tensor<3x3x48x1xf32> = #graph.init<"glorot_uniform", seed = 17>
  graph.variable @dw2_bias : tensor<48xf32> = #graph.init<"glorot_uniform", seed = 18>
  graph.variable @pw2_kernel : tensor<1x1x48x64xf32> = #graph.init<"glorot_uniform", seed = 19>
  graph.variable @pw2_bias : tensor<64xf32> = #graph.init<"glorot_uniform", seed = 20>
  graph.variable @dense_kernel : tensor<64x12xf32> = #graph.init<"glorot_uniform", seed = 21>
  graph.variable @dense_bias : tensor<12xf32> = #graph.init<"glorot_uniform", seed = 22>

  func.func @predict(%mfcc: tensor<?x49x10x1xf32>) -> tensor<?x12xf32> {
    %k1 = graph.read @conv1_kernel : tensor<10x4x1x32xf32>
    %b1 = graph.read @conv1_bias : tensor<32xf32>
    %c1 = graph.conv2d %mfcc, %k1, %b1 {strides = [2, 2], padding = "same"}
        : (tensor<?x49x10x1xf32>, tensor<10x4x1x32xf32>, tensor<32xf32>) -> tensor<?x25x5x32xf32> loc("conv1")
    %r1 = graph.relu %c1 : tensor<?x25x5x32xf32> loc("conv1/relu")

    %k2 = graph.read @dw1_kernel : tensor<3x3x32x1xf32>
    %b2 = graph.read @dw1_bias : tensor<32xf32>
    %d1 = graph.depthwise_conv2d %r1, %k2, %b2 {padding = "same"}
        : (tensor<?x25x5x32xf32>, tensor<3x3x32x1xf32>, tensor<32xf32>) -> tensor<?x25x5x32xf32> loc("dw1")
    %r2 = graph.relu %d1 : tensor<?x25x5x32xf32> loc("dw1/relu")
    %k3 = graph.read @pw1_kernel : tensor<1x1x32x48xf32>
    %b3 = graph.read @pw1_bias : tensor<48xf32>
    %p1 = graph.conv2d %r2, %k3, %b3 {strides = [1, 1], padding = "valid"}
        : (tensor<?x25x5x32xf32>, tensor<1x1x32x48xf32>, tensor<48xf32>) -> tensor<?x25x5x48xf32> loc("pw1")
    %r3 = graph.relu %p1 : tensor<?x25x5x48xf32> loc("pw1/relu")

    %k4 = graph.read @dw2_kernel : tensor<3x3x48x1xf32>
    %b4 = graph.read @dw2_bias : tensor<48xf32>
    %d2 = graph.depthwise_conv2d %r3, %k4, %b4 {padding = "same"}
        : (tensor<?x25x5x48xf32>, tensor<3x3x48x1xf32>, tensor<48xf32>) -> tensor<?x25x5x48xf32> loc("dw2")
    %r4 = graph.relu %d2 : tensor<?x25x5x48xf32> loc("dw2/relu")
    %k5 = graph.read @pw2_kernel : tensor<1x1x48x64xf32>
    %b5 = graph.read @pw2_bias : tensor<64xf32>
    %p2 = graph.conv2d %r4, %k5, %b5 {strides = [1, 1], padding = "valid"}
        : (tensor<?x25x5x48xf32>, tensor<1x1x48x64xf32>, tensor<64xf32>) -> tensor<?x25x5x64xf32> loc("pw2")
    %r5 = graph.relu %p2 : tensor<?x25x5x64xf32> loc("pw2/relu")

    %pool = graph.global_avg_pool2d %r5 : (tensor<?x25x5x64xf32>) -> tensor<?x64xf32> loc("pool")
    %k6 = graph.read @dense_kernel : tensor<64x12xf32>
    %b6 = graph.read @dense_bias : tensor<12xf32>
    %logits = graph.dense %pool, %k6, %b6
        : (tensor<?x64xf32>, tensor<64x12xf32>, tensor<12xf32>) -> tensor<?x12xf32> loc("dense")
    %probs = graph.softmax %logits {axis = -1} : tensor<?x12xf32> loc("softmax")
    return %probs : tensor<?x12xf32>
  }
}
