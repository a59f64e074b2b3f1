// A function that returns its argument: no graph op sees the huge type.
module @huge_signature {
  func.func @main(%x: tensor<?x4611686018427387904xf32>) -> tensor<?x4611686018427387904xf32> {
    return %x : tensor<?x4611686018427387904xf32>
  }
}
