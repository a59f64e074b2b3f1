// fuzz/graph_ir_compile: MLIR 19's gpu.launch parser crashed (SIGSEGV) on a
// grid size defined later, inside the launch's body. tfcc models reach no
// dialect parser but graph's and func's.
func.func @f() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c0, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    gpu.terminator
  }
  return
}
