//===- LowerLinalgToParallelLoops.cpp - linalg on buffers to loops --------===//
//
// MLIR's convert-linalg-to-parallel-loops does this with a pattern that
// matches any op, so its greedy driver tries every op of the function, the
// copied loop bodies included, on two full sweeps and simplifies the regions
// after each. Here the same lowering is rooted at the linalg ops: each is
// lowered once, and only what that creates is folded.
//
//===----------------------------------------------------------------------===//

#include "passes/AnchoredRewrite.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_LOWERLINALGTOPARALLELLOOPS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// A linalg op on buffers -> `scf.parallel` loops over its parallel
/// dimensions and `scf.for` loops over the others, as upstream's lowering.
struct LowerLinalgOp : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(op, "not on buffers");
    if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerLinalgToParallelLoopsPass
    : tfcc::impl::LowerLinalgToParallelLoopsBase<
          LowerLinalgToParallelLoopsPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    set.add<LowerLinalgOp>(context);
    // The index arithmetic the lowering creates, simplified as upstream's
    // pass does (an affine.apply of one dimension folds to its operand).
    memref::DimOp::getCanonicalizationPatterns(set, context);
    affine::AffineApplyOp::getCanonicalizationPatterns(set, context);
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
