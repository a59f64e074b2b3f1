// TopK as ONNX imports it: graph.top_k_indices along the last axis, the
// values picked by graph.gather_elements; largest and smallest, a dynamic
// batch. Compiled (the runtime's selection kernel) and compared with the
// interpreter (a stable sort).
module @top_k {
  func.func @predict(%x: tensor<?x37xf32>)
      -> (tensor<?x5xf32>, tensor<?x5xi64>, tensor<?x37xf32>, tensor<?x37xi64>) {
    %i = graph.top_k_indices %x {k = 5} : (tensor<?x37xf32>) -> tensor<?x5xi64>
    %v = graph.gather_elements %x, %i {axis = 1} : (tensor<?x37xf32>, tensor<?x5xi64>) -> tensor<?x5xf32>
    %j = graph.top_k_indices %x {k = 37, largest = false} : (tensor<?x37xf32>) -> tensor<?x37xi64>
    %s = graph.gather_elements %x, %j {axis = 1} : (tensor<?x37xf32>, tensor<?x37xi64>) -> tensor<?x37xf32>
    return %v, %i, %s, %j : tensor<?x5xf32>, tensor<?x5xi64>, tensor<?x37xf32>, tensor<?x37xi64>
  }
}
