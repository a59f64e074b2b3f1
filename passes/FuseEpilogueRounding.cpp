//===- FuseEpilogueRounding.cpp - 16-bit rounding into kernel epilogues ---===//
//
// tfcc-widen-low-precision-ops leaves each 16-bit layer as an f32 op and a
// rounding, f32 -> bf16 / f16 -> f32 casts that lower to their own loop: a
// pass over the layer's output in memory. A fused convolution or dense
// layer rounds in its kernel's epilogue instead (`round_to`), while each
// output tile is in cache.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_FUSEEPILOGUEROUNDING
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

/// cast(cast(%r : f32 -> 16-bit) : 16-bit -> f32), %r the only use of a
/// float fused op's result: the op rounds (round_to) and %r replaces the
/// pair. The inner cast, where it has other users, then rounds exactly.
struct RoundInEpilogue : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp widening,
                                PatternRewriter &rewriter) const override {
    auto rounding = widening.getX().getDefiningOp<CastOp>();
    if (!rounding)
      return rewriter.notifyMatchFailure(widening, "not a cast pair");
    Type low = getElementTypeOrSelf(rounding.getY().getType());
    Value exact = rounding.getX();
    if (!low.isBF16() && !low.isF16())
      return rewriter.notifyMatchFailure(widening, "not a 16-bit rounding");
    if (!getElementTypeOrSelf(exact.getType()).isF32() ||
        widening.getY().getType() != exact.getType())
      return rewriter.notifyMatchFailure(widening, "not f32 there and back");
    Operation *producer = exact.getDefiningOp();
    if (!isa_and_present<FusedConv2DOp, FusedDenseOp>(producer) ||
        producer->getAttr("round_to"))
      return rewriter.notifyMatchFailure(widening, "no epilogue to round in");
    if (!exact.hasOneUse())
      return rewriter.notifyMatchFailure(widening,
                                         "other users read the exact value");
    rewriter.modifyOpInPlace(
        producer, [&] { producer->setAttr("round_to", TypeAttr::get(low)); });
    rewriter.replaceOp(widening, exact);
    return success();
  }
};

struct FuseEpilogueRoundingPass
    : tfcc::impl::FuseEpilogueRoundingBase<FuseEpilogueRoundingPass> {
  void runOnOperation() override {
    // Only the casts (no folding of other ops): each pair once.
    SmallVector<Operation *> casts;
    getOperation()->walk([&](CastOp op) { casts.push_back(op); });
    RewritePatternSet patterns(&getContext());
    patterns.add<RoundInEpilogue>(&getContext());
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    (void)applyOpPatternsAndFold(casts, std::move(patterns), config);
  }
};

} // namespace
