// A bf16 argument widened to f32: tfcc-run reads the argument from a '<f4'
// .npy file, rounding it to bf16 (low-precision.test).
func.func @widen(%x: tensor<?xbf16>) -> tensor<?xf32> {
  %y = graph.cast %x : (tensor<?xbf16>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}
