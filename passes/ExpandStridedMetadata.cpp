//===- ExpandStridedMetadata.cpp - memref views as explicit metadata ------===//
//
// MLIR's expand-strided-metadata applies its patterns with the whole-region
// greedy driver, which tries and folds every op of the module on each sweep;
// on a function of ~100,000 scalar ops that matched a handful of views, that
// was most of its time (docs/reliability.md). The same patterns, applied from
// the ops they are rooted at.
//
//===----------------------------------------------------------------------===//

#include "passes/AnchoredRewrite.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_EXPANDSTRIDEDMETADATA
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

struct ExpandStridedMetadataPass
    : tfcc::impl::ExpandStridedMetadataBase<ExpandStridedMetadataPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    memref::populateExpandStridedMetadataPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    if (failed(tfcc::applyPatternsAtAnchorsAndMergeConstants(getOperation(),
                                                             patterns)))
      signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
};

} // namespace
