//===- SplitEmptyTensors.cpp - one tensor.empty per use -------------------===//
//
// The lowering gives every linalg op a tensor.empty as its init, and CSE
// merges the empties of one shape into a single value. One-shot
// bufferization then sees every op writing into that value as aliasing every
// other, and its conflict analysis takes time quadratic in their number (a
// 100,000-node chain: 397 fused loops, 2.9 s of 3.2). An empty tensor holds
// no data, so each use may have its own: this pass gives it one, created
// beside the original, before bufferization.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_SPLITEMPTYTENSORS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Gives every use of `empty` but one its own copy of it, created right after
/// it (so its dynamic sizes still dominate the copy and the copy its use).
void splitUses(tensor::EmptyOp empty) {
  SmallVector<OpOperand *> uses = llvm::map_to_vector(
      empty->getUses(), [](OpOperand &use) { return &use; });
  OpBuilder builder(empty->getContext());
  builder.setInsertionPointAfter(empty);
  for (OpOperand *use : llvm::drop_begin(uses))
    use->set(builder.clone(*empty)->getResult(0));
}

struct SplitEmptyTensorsPass
    : tfcc::impl::SplitEmptyTensorsBase<SplitEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (!empty->use_empty() && !empty->hasOneUse())
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared)
      splitUses(empty);
  }
};

} // namespace
