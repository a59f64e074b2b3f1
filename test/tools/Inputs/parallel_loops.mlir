// Generated loop nests large enough for tfcc-parallelize-loops: an
// elementwise chain, a transpose and a reduction over a middle axis, with a
// dynamic batch (num_threads computed at run time), and a static softmax.
module @parallel_loops {
  func.func @predict(%x: tensor<?x64x96xf32>) -> (tensor<?x96x64xf32>, tensor<?x96xf32>) {
    %t = graph.tanh %x : tensor<?x64x96xf32>
    %s = graph.sigmoid %t : tensor<?x64x96xf32>
    %p = graph.transpose %s {perm = [0, 2, 1]} : (tensor<?x64x96xf32>) -> tensor<?x96x64xf32>
    %r = graph.reduce_sum %t {axes = [1]} : (tensor<?x64x96xf32>) -> tensor<?x96xf32>
    return %p, %r : tensor<?x96x64xf32>, tensor<?x96xf32>
  }
  func.func @static_softmax(%x: tensor<256x384xf32>) -> tensor<256x384xf32> {
    %e = graph.exp %x : tensor<256x384xf32>
    %s = graph.softmax %e {axis = -1} : tensor<256x384xf32>
    return %s : tensor<256x384xf32>
  }
}
