// Result types written with `?` where inference knows the dimension (the
// contract allows it): every op below once crashed the lowering.
module @less_static {
  func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %img: tensor<1x2x2x1xf32>,
                  %x: tensor<2x3x4xf32>) -> (tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?x?x1xf32>,
                                             tensor<?x?x4xf32>, tensor<?x?xf32>) {
    %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x?xf32>
    %1 = graph.sub %0, %b : (tensor<2x?xf32>, tensor<3xf32>) -> tensor<?x?xf32>
    %2 = graph.mul %1, %a : (tensor<?x?xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
    %3 = graph.div %2, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
    %4 = graph.maximum %3, %a : (tensor<?x?xf32>, tensor<2x3xf32>) -> tensor<?x?xf32>
    %5 = graph.minimum %4, %b : (tensor<?x?xf32>, tensor<3xf32>) -> tensor<?x?xf32>
    %6 = graph.abs %5 : tensor<?x?xf32>
    %7 = graph.pow %6, %b : (tensor<?x?xf32>, tensor<3xf32>) -> tensor<?x?xf32>
    %8 = graph.relu %7 : tensor<?x?xf32>
    %c = graph.compare %a, %b {predicate = "gt"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x?xi1>
    %s = graph.select %c, %a, %8 : (tensor<?x?xi1>, tensor<2x3xf32>, tensor<?x?xf32>) -> tensor<?x3xf32>
    %i = graph.cast %s : (tensor<?x3xf32>) -> tensor<?x?xi32>
    %r = graph.resize %img {size = [4, 4], mode = "nearest"} : (tensor<1x2x2x1xf32>) -> tensor<?x?x?x1xf32>
    %m = graph.reduce_sum %x {axes = [1], keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<?x?x4xf32>
    %t = graph.transpose %s {perm = [1, 0]} : (tensor<?x3xf32>) -> tensor<?x?xf32>
    %k = graph.concat %t, %t {axis = 1} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    return %8, %i, %r, %m, %k : tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?x?x1xf32>, tensor<?x?x4xf32>, tensor<?x?xf32>
  }
}
