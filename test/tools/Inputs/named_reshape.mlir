// Reshapes keeping several dynamic dims in order (an unsqueeze, a squeeze),
// the batch and a named W (tools/named-dims.test).
module @rs {
  func.func @predict(%x: tensor<?x?x6xf32> {tfcc.dim_names = ["", "W", ""]}) -> tensor<?x1x?x2x3xf32> {
    %r = graph.reshape %x : (tensor<?x?x6xf32>) -> tensor<?x1x?x2x3xf32>
    %y = graph.relu %r : tensor<?x1x?x2x3xf32>
    return %y : tensor<?x1x?x2x3xf32>
  }
  func.func @squeeze(%x: tensor<?x4x1x?xf32> {tfcc.dim_names = ["", "", "", "W"]}) -> tensor<?x4x?xf32> {
    %e = graph.exp %x : tensor<?x4x1x?xf32>
    %r = graph.reshape %e : (tensor<?x4x1x?xf32>) -> tensor<?x4x?xf32>
    return %r : tensor<?x4x?xf32>
  }
}
