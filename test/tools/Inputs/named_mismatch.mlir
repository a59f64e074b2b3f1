// Two inputs whose widths have different names (W, V) meet in an add: the
// call must give them equal values (tools/named-dims.test).
module @mismatch {
  func.func @predict(%x: tensor<?x?xf32> {tfcc.dim_names = ["", "W"]}, %y: tensor<?x?xf32> {tfcc.dim_names = ["", "V"]}) -> tensor<?x?xf32> {
    %s = graph.add %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %e = graph.exp %s : tensor<?x?xf32>
    return %e : tensor<?x?xf32>
  }
}
