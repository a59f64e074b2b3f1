//===- SinkPadsThroughTransposes.cpp - pads next to their convolutions ----===//
//
// transpose(pad(x)) -> pad(transpose(x)). A separate pass from
// tfcc-layout-propagation: its SinkTransposeThroughPad moves the other way,
// and the two in one greedy driver would undo each other forever.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/AnchoredRewrite.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_SINKPADSTHROUGHTRANSPOSES
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

/// transpose(pad(x)) -> pad(transpose(x)): a pad of an NCHW model input
/// moves to the NHWC side, where the convolution absorbs it.
struct SinkPadThroughTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto pad = op.getX().getDefiningOp<PadOp>();
    if (!pad || !pad->hasOneUse())
      return rewriter.notifyMatchFailure(op, "input is not a pad");
    SmallVector<int64_t> perm = tfcc::getIntegers(op.getPerm());
    SmallVector<int64_t> pads = tfcc::getIntegers(pad.getPads());
    auto inputType = cast<RankedTensorType>(pad.getX().getType());
    if (pads.size() != 2 * perm.size())
      return failure();
    SmallVector<int64_t> shape, newPads;
    for (int64_t dim : perm) {
      shape.push_back(inputType.getDimSize(dim));
      newPads.push_back(pads[2 * dim]);
      newPads.push_back(pads[2 * dim + 1]);
    }
    Location loc = op.getLoc();
    Value transposed = rewriter.create<TransposeOp>(
        loc, RankedTensorType::get(shape, inputType.getElementType()),
        pad.getX(), op.getPerm());
    rewriter.replaceOpWithNewOp<PadOp>(op, op.getType(), transposed,
                                       rewriter.getI64ArrayAttr(newPads),
                                       pad.getValueAttr(), pad.getModeAttr());
    return success();
  }
};

struct SinkPadsThroughTransposes
    : tfcc::impl::SinkPadsThroughTransposesBase<SinkPadsThroughTransposes> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tfcc::populateSinkPadsThroughTransposesPatterns(patterns);
    if (failed(
            tfcc::applyPatternsAtAnchors(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::tfcc::populateSinkPadsThroughTransposesPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SinkPadThroughTranspose>(patterns.getContext());
}
