// An op of another dialect in the generic form.
func.func @f() {
  "gpu.barrier"() : () -> ()
  return
}
