//===- Loss.cpp - graph loss ops to linalg --------------------------------===//
//
// Each loss is a full reduction into a tensor<f32> followed by a division by
// the batch size (or element count). Cross entropies work from logits with
// the stable log-sum-exp: -log_softmax(x)_j = max + log(sum exp(x - max)) -
// x_j. Out-of-range sparse labels are reported (code 2) and clamped.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

/// A zero-filled tensor<f32> (of `type`) to accumulate a loss into.
Value createZeroScalarTensor(OpBuilder &b, Location loc,
                             RankedTensorType type) {
  Value zero = createScalarConstant(b, loc, type.getElementType(), 0.0);
  return createFilled(b, loc, type, {}, zero);
}

/// `total` / `count` (an index value), elementwise on the rank-0 `total`.
Value divideByCount(OpBuilder &b, Location loc, Value total, Value count) {
  auto type = cast<RankedTensorType>(total.getType());
  Value countAsFloat = castIndexTo(b, loc, count, type.getElementType());
  return buildElementwise(
      b, loc, type, {}, total,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        return nb.create<arith::DivFOp>(nl, args[0], countAsFloat);
      });
}

/// -log_softmax(x)_j given the row's max and sum of exp(x - max).
Value negativeLogSoftmax(OpBuilder &b, Location loc, Value x, Value max,
                         Value sumExp) {
  Value logSum =
      b.create<arith::AddFOp>(loc, max, b.create<math::LogOp>(loc, sumExp));
  return b.create<arith::SubFOp>(loc, logSum, x);
}

struct SparseSoftmaxCrossEntropyLowering
    : OpRewritePattern<SparseSoftmaxCrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SparseSoftmaxCrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value logits = op.getLogits(), labels = op.getLabels();
    if (cast<RankedTensorType>(logits.getType()).getRank() != 2 ||
        cast<RankedTensorType>(labels.getType()).getRank() != 1)
      return rewriter.notifyMatchFailure(
          op, "expected logits [n, c] and labels [n]");
    Value classes = getDimValue(rewriter, loc, logits, 1);
    buildErrorReport(rewriter, loc, op,
                     buildAnyOutOfRange(rewriter, loc, labels, classes),
                     kErrorOutOfRange);

    SoftmaxStats stats = buildSoftmaxStats(rewriter, loc, logits, 1);
    auto resultType = cast<RankedTensorType>(op.getType());
    AffineMap row = AffineMap::get(1, 0, getAffineDimExpr(0, ctx));
    Value total = buildGeneric(
        rewriter, loc, ValueRange{stats.max, stats.sumExp, labels},
        {row, row, row}, createZeroScalarTensor(rewriter, loc, resultType),
        AffineMap::get(1, 0, ctx), getIterators(1, {0}),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value n = b.create<linalg::IndexOp>(l, 0);
          Value label = buildClampedIndex(b, l, args[2], classes);
          Value x =
              b.create<tensor::ExtractOp>(l, logits, ValueRange{n, label});
          return b.create<arith::AddFOp>(
              l, args[3], negativeLogSoftmax(b, l, x, args[0], args[1]));
        });
    rewriter.replaceOp(op,
                       divideByCount(rewriter, loc, total,
                                     getDimValue(rewriter, loc, logits, 0)));
    return success();
  }
};

struct SoftmaxCrossEntropyLowering : OpRewritePattern<SoftmaxCrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxCrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value logits = op.getLogits(), targets = op.getTargets();
    auto targetsType = cast<RankedTensorType>(targets.getType());
    if (cast<RankedTensorType>(logits.getType()).getRank() != 2 ||
        targetsType.getRank() != 2)
      return rewriter.notifyMatchFailure(op,
                                         "expected logits and targets [n, c]");
    SoftmaxStats stats = buildSoftmaxStats(rewriter, loc, logits, 1);
    auto resultType = cast<RankedTensorType>(op.getType());
    AffineMap identity = rewriter.getMultiDimIdentityMap(2);
    AffineMap row = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
    Value total = buildGeneric(
        rewriter, loc, ValueRange{logits, targets, stats.max, stats.sumExp},
        {identity, getBroadcastMap(ctx, targetsType, 2), row, row},
        createZeroScalarTensor(rewriter, loc, resultType),
        AffineMap::get(2, 0, ctx), getIterators(2, {0, 1}),
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value term = b.create<arith::MulFOp>(
              l, args[1], negativeLogSoftmax(b, l, args[0], args[2], args[3]));
          return b.create<arith::AddFOp>(l, args[4], term);
        });
    rewriter.replaceOp(op,
                       divideByCount(rewriter, loc, total,
                                     getDimValue(rewriter, loc, logits, 0)));
    return success();
  }
};

/// mean((prediction - target)^2) over the broadcast shape: the squares are
/// computed elementwise with broadcasting, then summed.
struct MeanSquaredErrorLowering : OpRewritePattern<MeanSquaredErrorOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MeanSquaredErrorOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value prediction = op.getPrediction(), target = op.getTarget();
    auto predictionType = cast<RankedTensorType>(prediction.getType());
    auto targetType = cast<RankedTensorType>(target.getType());
    FailureOr<SmallVector<int64_t>> shape =
        broadcastShapes(predictionType.getShape(), targetType.getShape());
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, "shapes do not broadcast");
    auto squaresType =
        RankedTensorType::get(*shape, predictionType.getElementType());
    Value squares = buildElementwise(
        rewriter, loc, squaresType, ValueRange{prediction, target},
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value difference = b.create<arith::SubFOp>(l, args[0], args[1]);
          return b.create<arith::MulFOp>(l, difference, difference);
        });
    int64_t rank = squaresType.getRank();
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Value total = buildReduction(
        rewriter, loc, squares, all,
        createScalarConstant(rewriter, loc, squaresType.getElementType(), 0.0),
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::AddFOp>(l, args[0], args[1]);
        });
    rewriter.replaceOp(
        op, divideByCount(rewriter, loc, total,
                          getDimsProduct(rewriter, loc, squares, all)));
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphLossToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SparseSoftmaxCrossEntropyLowering, SoftmaxCrossEntropyLowering,
               MeanSquaredErrorLowering>(patterns.getContext());
}
