// A type of a dialect that is not graph IR (llvm).
func.func @f(%x: !llvm.ptr) {
  return
}
