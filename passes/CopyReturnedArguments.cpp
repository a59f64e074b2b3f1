//===- CopyReturnedArguments.cpp - returned buffers become copies ---------===//
//
// buffer-results-to-out-params (MLIR 19) crashes on a function that returns
// one of its arguments (a model whose only op folded away) or one buffer
// twice (two results CSE made one, found by random-graph testing). Before it,
// each such returned value becomes a fresh buffer holding a copy.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_COPYRETURNEDARGUMENTS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Replaces each memref operand of `ret` that is a block argument, or that an
/// earlier operand already returns, by a copy in a new allocation.
void copyReturnedBuffers(func::ReturnOp ret) {
  OpBuilder b(ret);
  llvm::SmallPtrSet<Value, 4> returned;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value value = operand.get();
    auto type = dyn_cast<MemRefType>(value.getType());
    bool again = !returned.insert(value).second;
    if (!type || (!isa<BlockArgument>(value) && !again))
      continue;
    SmallVector<Value> dynamicSizes;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dynamicSizes.push_back(b.create<memref::DimOp>(ret.getLoc(), value, i));
    auto copy = b.create<memref::AllocOp>(
        ret.getLoc(), MemRefType::get(type.getShape(), type.getElementType()),
        dynamicSizes);
    b.create<memref::CopyOp>(ret.getLoc(), value, copy);
    operand.set(copy);
  }
}

struct CopyReturnedArgumentsPass
    : tfcc::impl::CopyReturnedArgumentsBase<CopyReturnedArgumentsPass> {
  void runOnOperation() override {
    getOperation()->walk(copyReturnedBuffers);
  }
};

} // namespace
