// bf16 end to end (the f16 test runs this file with bf16 replaced by f16):
// matmul, convolutions, normalization, softmax, reductions and pooling
// (computed in f32 and rounded once: tfcc-widen-low-precision-ops),
// elementwise math, data movement and casts, with a dynamic batch. Compiled
// and compared with the interpreter, which rounds each op's exact result to
// the type once.
module @low_precision {
  func.func @predict(%x: tensor<?x8xf32>, %k: tensor<8x6xbf16>, %img: tensor<?x6x6x3xbf16>,
                     %kc: tensor<3x3x3x4xbf16>, %bias: tensor<4xbf16>, %kd: tensor<3x3x4x1xbf16>)
      -> (tensor<?x6xbf16>, tensor<?x6xf32>, tensor<?x6xbf16>, tensor<?xbf16>, tensor<?x4x4x4xbf16>,
          tensor<?x2x2x4xbf16>, tensor<?x4xbf16>, tensor<?x14xbf16>, tensor<?x6xbf16>, tensor<?x8xf32>) {
    %xb = graph.cast %x : (tensor<?x8xf32>) -> tensor<?x8xbf16>
    %d = graph.matmul %xb, %k : (tensor<?x8xbf16>, tensor<8x6xbf16>) -> tensor<?x6xbf16>
    %g = graph.gelu %d : tensor<?x6xbf16>
    %s = graph.softmax %d {axis = -1 : i64} : tensor<?x6xbf16>
    %s32 = graph.cast %s : (tensor<?x6xbf16>) -> tensor<?x6xf32>
    %sg = graph.sigmoid %d : tensor<?x6xbf16>
    %t = graph.tanh %sg : tensor<?x6xbf16>
    %sum = graph.reduce_sum %t {axes = [1]} : (tensor<?x6xbf16>) -> tensor<?xbf16>
    %c = graph.conv2d %img, %kc, %bias : (tensor<?x6x6x3xbf16>, tensor<3x3x3x4xbf16>, tensor<4xbf16>) -> tensor<?x4x4x4xbf16>
    %gamma = graph.constant dense<[1.5, 0.5, -1.0, 2.0]> : tensor<4xbf16>
    %beta = graph.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xbf16>
    %mean = graph.constant dense<[0.05, -0.1, 0.2, 0.0]> : tensor<4xbf16>
    %var = graph.constant dense<[1.0, 2.0, 0.5, 0.25]> : tensor<4xbf16>
    %bn = graph.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0e-03 : f32} : (tensor<?x4x4x4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<?x4x4x4xbf16>
    %r = graph.relu %bn : tensor<?x4x4x4xbf16>
    %dw = graph.depthwise_conv2d %r, %kd {padding = "same"} : (tensor<?x4x4x4xbf16>, tensor<3x3x4x1xbf16>) -> tensor<?x4x4x4xbf16>
    %ap = graph.avg_pool2d %dw {window = [2, 2], strides = [2, 2]} : (tensor<?x4x4x4xbf16>) -> tensor<?x2x2x4xbf16>
    %mp = graph.max_pool2d %dw {window = [2, 2], strides = [2, 2]} : (tensor<?x4x4x4xbf16>) -> tensor<?x2x2x4xbf16>
    %both = graph.add %ap, %mp : (tensor<?x2x2x4xbf16>, tensor<?x2x2x4xbf16>) -> tensor<?x2x2x4xbf16>
    %gp = graph.global_avg_pool2d %both : (tensor<?x2x2x4xbf16>) -> tensor<?x4xbf16>
    %cat = graph.concat %gp, %xb, %gp {axis = 1} : (tensor<?x4xbf16>, tensor<?x8xbf16>, tensor<?x4xbf16>) -> tensor<?x16xbf16>
    %sl = graph.slice %cat {starts = [0, 1], limits = [-1, 15]} : (tensor<?x16xbf16>) -> tensor<?x14xbf16>
    %ln = graph.log_softmax %g {axis = -1 : i64} : tensor<?x6xbf16>
    %back = graph.cast %xb : (tensor<?x8xbf16>) -> tensor<?x8xf32>
    return %d, %s32, %g, %sum, %r, %both, %gp, %sl, %ln, %back
      : tensor<?x6xbf16>, tensor<?x6xf32>, tensor<?x6xbf16>, tensor<?xbf16>, tensor<?x4x4x4xbf16>,
        tensor<?x2x2x4xbf16>, tensor<?x4xbf16>, tensor<?x14xbf16>, tensor<?x6xbf16>, tensor<?x8xf32>
  }
}
