//===- FuseReluPoolGradients.cpp - ReLU and max-pooling gradients ---------===//
//
// Rewrites of the backward pass tfcc-autodiff builds for ReLU and
// max-pooling layers; they run before tfcc-fuse-ops, which can then take the
// ReLU into a convolution's epilogue.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/AnchoredRewrite.h"
#include "passes/ConstantValues.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfcc {
#define GEN_PASS_DEF_FUSERELUPOOLGRADIENTS
#include "passes/Passes.h.inc"
} // namespace mlir::tfcc

using namespace mlir;
using namespace mlir::graph;

namespace {

/// A constant whose every element is zero.
bool isZeroConstant(Value value) {
  std::optional<std::vector<float>> values = tfcc::getConstantFloats(value);
  return values && !values->empty() &&
         llvm::all_of(*values, [](float v) { return v == 0.0f; });
}

/// compare(a, 0, "gt") where relu(a) is computed before it: compare relu(a)
/// instead (relu(a) > 0 exactly when a > 0, NaN included). The ReLU
/// gradient's mask then no longer keeps `a` alive: a producing conv can take
/// the ReLU into its epilogue, and the pooling gradient below can absorb the
/// mask.
struct CompareReluOutput : OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    Value a = op.getLhs();
    if (op.getPredicate() != "gt" || !isZeroConstant(op.getRhs()))
      return rewriter.notifyMatchFailure(op, "not a comparison with zero");
    for (Operation *user : a.getUsers()) {
      auto relu = dyn_cast<ReluOp>(user);
      if (!relu || relu.getType() != a.getType() ||
          relu->getBlock() != op->getBlock() || !relu->isBeforeInBlock(op))
        continue;
      rewriter.modifyOpInPlace(op, [&] { op.getLhsMutable().assign(relu); });
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no ReLU of the operand before it");
  }
};

/// select(x > 0, grad, 0) with grad = max_pool2d_grad(x, dy) used only
/// there: the ReLU mask FoldMaskIntoMaxPoolGrad folds.
MaxPool2DGradOp getMaskedPoolGrad(SelectOp op) {
  auto grad = op.getLhs().getDefiningOp<MaxPool2DGradOp>();
  auto mask = op.getCondition().getDefiningOp<CompareOp>();
  if (!grad || !mask || !grad->hasOneUse() || grad.getPositiveOnly() ||
      grad.getType() != op.getType() || !isZeroConstant(op.getRhs()) ||
      mask.getPredicate() != "gt" || mask.getLhs() != grad.getX() ||
      !isZeroConstant(mask.getRhs()))
    return {};
  return grad;
}

/// select(x > 0, max_pool2d_grad(x, dy), 0): the pooling gradient's kernel
/// applies the mask itself (positive_only), saving a pass over a tensor of
/// the pooling input's size.
struct FoldMaskIntoMaxPoolGrad : OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    MaxPool2DGradOp grad = getMaskedPoolGrad(op);
    if (!grad)
      return rewriter.notifyMatchFailure(op, "not a masked pooling gradient");
    rewriter.modifyOpInPlace(grad, [&] { grad.setPositiveOnly(true); });
    rewriter.replaceOp(op, grad.getResult());
    return success();
  }
};

/// Whether `type` is a float32 NHWC tensor with static H, W and C (what the
/// pooling kernels take).
bool isF32StaticHwc(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.getRank() == 4 && t.getElementType().isF32() &&
         !t.isDynamicDim(1) && !t.isDynamicDim(2) && !t.isDynamicDim(3);
}

/// max_pool2d(x) and max_pool2d_grad(x, dy) of the same geometry (a train
/// step): the forward pool records each window's tap
/// (max_pool2d_with_indices) and the gradient scatters through that record
/// (max_pool2d_grad_indices), so the backward pass does not read x again.
struct RecordMaxPoolTaps : OpRewritePattern<MaxPool2DGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2DGradOp grad,
                                PatternRewriter &rewriter) const override {
    Value x = grad.getX();
    SmallVector<int64_t> window = mlir::tfcc::getIntegers(grad.getWindow());
    if (!isF32StaticHwc(x.getType()) ||
        !isF32StaticHwc(grad.getDy().getType()) || window.size() != 2 ||
        window[0] * window[1] > 127)
      return rewriter.notifyMatchFailure(grad, "not a float32 NHWC pool");
    // The ReLU mask folds first, so the record carries it.
    if (grad->hasOneUse())
      if (auto select = dyn_cast<SelectOp>(*grad->getUsers().begin()))
        if (getMaskedPoolGrad(select))
          return rewriter.notifyMatchFailure(grad, "mask not folded yet");
    for (Operation *user : x.getUsers()) {
      auto pool = dyn_cast<MaxPool2DOp>(user);
      if (!pool || pool->getBlock() != grad->getBlock() ||
          !pool->isBeforeInBlock(grad) ||
          pool.getWindow() != grad.getWindow() ||
          pool.getEffectiveStrides() != grad.getStrides() ||
          pool.getPadding() != grad.getPadding() ||
          pool.getType() != grad.getDy().getType())
        continue;
      auto yType = cast<RankedTensorType>(pool.getType());
      auto tapsType =
          RankedTensorType::get(yType.getShape(), rewriter.getI8Type());
      rewriter.setInsertionPoint(pool);
      auto recorded = rewriter.create<MaxPool2DWithIndicesOp>(
          pool.getLoc(), TypeRange{yType, tapsType}, x, pool.getWindow(),
          pool.getEffectiveStrides(), pool.getPaddingAttr(),
          grad.getPositiveOnly());
      rewriter.replaceOp(pool, recorded.getY());
      auto xType = cast<RankedTensorType>(x.getType());
      rewriter.setInsertionPoint(grad);
      rewriter.replaceOpWithNewOp<MaxPool2DGradIndicesOp>(
          grad, grad.getType(), recorded.getTaps(), grad.getDy(),
          rewriter.getI64ArrayAttr({xType.getDimSize(1), xType.getDimSize(2)}),
          grad.getWindow(), grad.getStrides(), grad.getPaddingAttr());
      return success();
    }
    return rewriter.notifyMatchFailure(grad, "no forward pool of x");
  }
};

struct FuseReluPoolGradients
    : tfcc::impl::FuseReluPoolGradientsBase<FuseReluPoolGradients> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tfcc::populateFuseReluPoolGradientsPatterns(patterns);
    if (failed(
            tfcc::applyPatternsAtAnchors(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::tfcc::populateFuseReluPoolGradientsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<CompareReluOutput, FoldMaskIntoMaxPoolGrad, RecordMaxPoolTaps>(
      patterns.getContext());
}
