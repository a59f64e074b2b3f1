// check-numerics.test: sqrt(x) / log(x * x) makes NaN at "root" for a
// negative x, an infinity at "ratio" for x = 1 (log 1 = 0), and a NaN input
// a NaN at "square" first.
module @nonfinite {
  func.func @predict(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %s = graph.mul %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> loc("square")
    %r = graph.sqrt %x : tensor<?x4xf32> loc("root")
    %l = graph.log %s : tensor<?x4xf32> loc("log_square")
    %d = graph.div %r, %l : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> loc("ratio")
    return %d : tensor<?x4xf32>
  }
}
