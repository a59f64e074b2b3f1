// f64 end to end: elementwise math, a dense layer, softmax, a reduction,
// pooling and casts to and from f32, with a dynamic batch. Compiled and
// compared with the interpreter (which keeps f64 results in double).
module @f64_ops {
  func.func @predict(%x: tensor<?x4xf64>, %k: tensor<4x3xf64>, %img: tensor<?x4x4x2xf64>)
      -> (tensor<?x3xf64>, tensor<?x3xf64>, tensor<?xf64>, tensor<?x4xf32>, tensor<?x2x2x2xf64>, tensor<?x2x2x2xf64>) {
    %c = graph.constant dense<[1.0e-10, -0.5, 2.0, 0.25]> : tensor<4xf64>
    %a = graph.add %x, %c : (tensor<?x4xf64>, tensor<4xf64>) -> tensor<?x4xf64>
    %t = graph.tanh %a : tensor<?x4xf64>
    %e = graph.exp %t : tensor<?x4xf64>
    %d = graph.dense %e, %k : (tensor<?x4xf64>, tensor<4x3xf64>) -> tensor<?x3xf64>
    %r = graph.relu %d : tensor<?x3xf64>
    %s = graph.softmax %d {axis = -1 : i64} : tensor<?x3xf64>
    %m = graph.reduce_max %a {axes = [1]} : (tensor<?x4xf64>) -> tensor<?xf64>
    %f = graph.cast %a : (tensor<?x4xf64>) -> tensor<?x4xf32>
    %mp = graph.max_pool2d %img {window = [2, 2], strides = [2, 2]} : (tensor<?x4x4x2xf64>) -> tensor<?x2x2x2xf64>
    %ap = graph.avg_pool2d %img {window = [3, 3], strides = [2, 2], padding = "same"} : (tensor<?x4x4x2xf64>) -> tensor<?x2x2x2xf64>
    return %r, %s, %m, %f, %mp, %ap : tensor<?x3xf64>, tensor<?x3xf64>, tensor<?xf64>, tensor<?x4xf32>, tensor<?x2x2x2xf64>, tensor<?x2x2x2xf64>
  }
}
