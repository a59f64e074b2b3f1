//===- Pooling.cpp - graph pooling ops to linalg --------------------------===//
//
// max_pool2d pads with -inf, so padding never wins (TF ignores it), and runs
// linalg.pooling_nhwc_max. avg_pool2d pads with 0, sums with
// linalg.pooling_nhwc_sum, then divides by the count of real (unpadded)
// elements of each window, a compile-time constant per (oh, ow). Global
// pools are reductions over H and W.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

/// Pads x and runs a linalg pooling op into an accumulator filled with
/// `init`; padded positions hold `padValue`.
template <typename PoolOp, typename OpTy>
FailureOr<Value> buildPool(OpTy op, PatternRewriter &rewriter, Value padValue,
                           Value init, WindowPadding &padding) {
  auto xType = cast<RankedTensorType>(op.getX().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (xType.getRank() != 4)
    return rewriter.notifyMatchFailure(op, "expected an NHWC input");
  for (int64_t dim = 1; dim < 3; ++dim)
    if (xType.isDynamicDim(dim) || resultType.isDynamicDim(dim))
      return rewriter.notifyMatchFailure(op, "expected static H and W");
  Location loc = op.getLoc();
  SmallVector<int64_t> window = getIntegers(op.getWindow());
  SmallVector<int64_t> strides = getIntegers(op.getEffectiveStrides());
  SmallVector<int64_t> dilations = {1, 1};
  padding = getWindowPadding(xType.getShape().slice(1, 2), window, strides,
                             dilations, op.getPadding() == "same");
  Value input = padSpatial(rewriter, loc, op.getX(), padding, padValue);
  SmallVector<OpFoldResult> sizes =
      getBroadcastSizes(rewriter, loc, resultType, op.getX());
  Value acc = createFilled(rewriter, loc, resultType, sizes, init);
  // The pooling ops take the window's shape from an (unread) tensor.
  Value windowShape =
      rewriter.create<tensor::EmptyOp>(loc, window, xType.getElementType());
  auto pool = rewriter.create<PoolOp>(
      loc, resultType, ValueRange{input, windowShape}, acc,
      rewriter.getI64TensorAttr(strides), rewriter.getI64TensorAttr(dilations));
  return pool.getResult(0);
}

struct MaxPool2DLowering : OpRewritePattern<MaxPool2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Type elementType = op.getType().getElementType();
    Value lowest = createLowestValue(rewriter, op.getLoc(), elementType);
    WindowPadding padding;
    FailureOr<Value> pooled = buildPool<linalg::PoolingNhwcMaxOp>(
        op, rewriter, lowest, lowest, padding);
    if (failed(pooled))
      return failure();
    rewriter.replaceOp(op, *pooled);
    return success();
  }
};

struct AvgPool2DLowering : OpRewritePattern<AvgPool2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AvgPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    WindowPadding padding;
    FailureOr<Value> sums =
        buildPool<linalg::PoolingNhwcSumOp>(op, rewriter, zero, zero, padding);
    if (failed(sums))
      return failure();

    // counts[oh][ow][0]: real elements per window, broadcast over n and c.
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getEffectiveStrides());
    auto xShape = cast<RankedTensorType>(op.getX().getType()).getShape();
    int64_t outH = resultType.getDimSize(1), outW = resultType.getDimSize(2);
    Value countsTensor = createWindowCounts(
        rewriter, loc, elementType, xShape.slice(1, 2), outH, outW, window,
        strides, padding, /*minimum=*/0);

    SmallVector<OpFoldResult> sizes =
        getBroadcastSizes(rewriter, loc, resultType, *sums);
    Value mean = buildElementwise(
        rewriter, loc, resultType, sizes, ValueRange{*sums, countsTensor},
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::DivFOp>(l, args[0], args[1]);
        });
    rewriter.replaceOp(op, mean);
    return success();
  }
};

/// global_{avg,max}_pool2d: a reduction of [n, h, w, c] over h and w.
template <typename OpTy, bool isMax>
struct GlobalPoolLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    Type elementType = cast<RankedTensorType>(x.getType()).getElementType();
    Value init = isMax ? createLowestValue(rewriter, loc, elementType)
                       : createScalarConstant(rewriter, loc, elementType, 0.0);
    Value reduced = buildReduction(
        rewriter, loc, x, {1, 2}, init,
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          if (isMax)
            return b.create<arith::MaximumFOp>(l, args[0], args[1]);
          return b.create<arith::AddFOp>(l, args[0], args[1]);
        });
    if (!isMax) {
      Value count = castIndexTo(
          rewriter, loc, getDimsProduct(rewriter, loc, x, {1, 2}), elementType);
      auto type = cast<RankedTensorType>(reduced.getType());
      reduced = buildElementwise(
          rewriter, loc, type, reduced,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return b.create<arith::DivFOp>(l, args[0], count);
          });
    }
    rewriter.replaceOp(op, reduced);
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphPoolingToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MaxPool2DLowering, AvgPool2DLowering,
               GlobalPoolLowering<GlobalAvgPool2DOp, false>,
               GlobalPoolLowering<GlobalMaxPool2DOp, true>>(
      patterns.getContext());
}
