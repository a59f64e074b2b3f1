// graph.pad in its three modes (reflect and edge: the extension for ONNX Pad),
// compiled and compared with the interpreter. The batch dimension is not
// padded: at the C interface every dynamic dimension is the batch.
module @pad_modes {
  func.func @predict(%x: tensor<?x4x5xf32>) -> (tensor<?x7x9xf32>, tensor<?x5x8xf32>, tensor<?x4x6xf32>) {
    %r = graph.pad %x {pads = [0, 0, 2, 1, 3, 1], mode = "reflect"} : (tensor<?x4x5xf32>) -> tensor<?x7x9xf32>
    %e = graph.pad %x {pads = [0, 0, 1, 0, 2, 1], mode = "edge"} : (tensor<?x4x5xf32>) -> tensor<?x5x8xf32>
    %c = graph.pad %x {pads = [0, 0, 0, 0, 1, 0], value = -2.5 : f32} : (tensor<?x4x5xf32>) -> tensor<?x4x6xf32>
    return %r, %e, %c : tensor<?x7x9xf32>, tensor<?x5x8xf32>, tensor<?x4x6xf32>
  }
}
