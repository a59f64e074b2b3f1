//===- FuseElementwise.cpp - the tfcc-fuse-elementwise pass ---------------===//
//
// linalg-fuse-elementwise-ops with one more condition in its control
// function: a costly producer is not fused into a consumer that reads it
// broadcast, where it would be recomputed per element of the broadcast
// dimensions (a per-channel rsqrt per pixel, say); and bodies stay below a
// size, since each fusion clones both (a chain of 4000 elementwise ops took
// quadratic time, 6 s to compile).
//
//===----------------------------------------------------------------------===//

#include "passes/AnchoredRewrite.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;

namespace {

/// Whether the body of `op` does only cheap arithmetic: adds, multiplies,
/// comparisons, selects, min/max, casts, indices.
bool hasCheapBody(linalg::GenericOp op) {
  for (Operation &inner : op.getBody()->without_terminator())
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp,
             arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
             arith::MinNumFOp, arith::CmpFOp, arith::CmpIOp, arith::SelectOp,
             arith::ConstantOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
             arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::ExtFOp,
             arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
             arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp,
             arith::IndexCastOp, linalg::IndexOp, math::FmaOp>(inner))
      return false;
  return true;
}

/// Ops of a fused body at most: each fusion copies both bodies, and LLVM's
/// code generation slows down on much longer blocks; up to it, fewer loop
/// nests cost LLVM's loop passes less (docs/reliability.md).
constexpr size_t kMaxFusedBodyOps = 2048;

/// The body limits of the rounds of fusion, the last kMaxFusedBodyOps. A
/// chain fused one op at a time copies its growing body at each step
/// (quadratic in the limit); fused in rounds, small bodies first, each op is
/// copied a few times per round.
constexpr size_t kFusionRoundLimits[] = {16, 256, kMaxFusedBodyOps};

/// Ops of a body but its constants: copies of one constant, which bodies
/// fused here keep until the canonicalization after, are not work.
size_t bodySize(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return 0;
  return llvm::count_if(linalgOp.getBlock()->getOperations(),
                        [](Operation &inner) {
                          return !inner.hasTrait<OpTrait::ConstantLike>();
                        });
}

/// Upstream's rule (the producer has one use) plus: no costly producer
/// recomputed over broadcast dimensions, and a body of at most `maxBodyOps`.
bool shouldFuse(OpOperand *fusedOperand, size_t maxBodyOps) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  if (bodySize(producer) + bodySize(fusedOperand->getOwner()) > maxBodyOps)
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  auto consumer = dyn_cast<linalg::LinalgOp>(fusedOperand->getOwner());
  if (generic && consumer &&
      generic.getNumLoops() < consumer.getNumLoops() && !hasCheapBody(generic))
    return false;
  return true;
}

/// The upstream rule alone, for reshape and constant folding.
bool hasOneUseProducer(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

struct FuseElementwise
    : tfcc::impl::FuseElementwiseBase<FuseElementwise> {
  void runOnOperation() override {
    for (size_t limit : kFusionRoundLimits)
      fuse(limit);
  }

  void fuse(size_t maxBodyOps) {
    Operation *op = getOperation();
    MLIRContext *context = op->getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [maxBodyOps](OpOperand *fusedOperand) {
          return shouldFuse(fusedOperand, maxBodyOps);
        });
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      hasOneUseProducer);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, hasOneUseProducer);
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    (void)tfcc::applyPatternsAtAnchors(op, std::move(patterns), config);
  }
};

} // namespace
