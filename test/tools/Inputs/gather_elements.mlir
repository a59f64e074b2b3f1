// graph.gather_elements with a dynamic batch: along axis 1 of a batch of
// rows (an NLL-loss-style pick) and along axis 0 with fewer rows of
// indices than data, indices from the caller.
module @gather_elements {
  func.func @predict(%d: tensor<?x5xf32>, %i: tensor<?x3xi64>, %t: tensor<4x6xf32>, %j: tensor<2x6xi32>)
      -> (tensor<?x3xf32>, tensor<2x6xf32>) {
    %0 = graph.gather_elements %d, %i {axis = 1} : (tensor<?x5xf32>, tensor<?x3xi64>) -> tensor<?x3xf32>
    %1 = graph.gather_elements %t, %j {axis = -2} : (tensor<4x6xf32>, tensor<2x6xi32>) -> tensor<2x6xf32>
    return %0, %1 : tensor<?x3xf32>, tensor<2x6xf32>
  }
}
