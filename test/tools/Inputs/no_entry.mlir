// Only a private function: nothing to export.
module @no_entry {
  func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = graph.relu %x : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
