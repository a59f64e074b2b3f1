//===- DropTrainSteps.cpp - an inference build of a training model --------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_DROPTRAINSTEPS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

struct DropTrainSteps : tfcc::impl::DropTrainStepsBase<DropTrainSteps> {
  void runOnOperation() override {
    for (auto step :
         llvm::to_vector(getOperation().getOps<graph::TrainStepOp>()))
      step.erase();
  }
};

} // namespace
