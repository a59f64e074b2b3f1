//===- ApplyCheckpoint.cpp - a checkpoint's values into the variables -----===//
//
// The pass is glue: the reader and its checks are CheckpointWeights.cpp,
// which the checkpoint fuzzer drives directly.
//
//===----------------------------------------------------------------------===//

#include "passes/CheckpointWeights.h"
#include "passes/Passes.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_APPLYCHECKPOINT
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

struct ApplyCheckpoint
    : mlir::tfcc::impl::ApplyCheckpointBase<ApplyCheckpoint> {
  using ApplyCheckpointBase::ApplyCheckpointBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (path.empty()) {
      module.emitError() << "tfcc-apply-checkpoint needs a checkpoint "
                            "(path=FILE)";
      return signalPassFailure();
    }
    std::string error;
    if (!::tfcc::applyCheckpointWeights(module, path, modelName, error)) {
      module.emitError() << error;
      return signalPassFailure();
    }
  }
};

} // namespace
