//===- Normalization.cpp - graph.batch_norm and graph.layer_norm ----------===//
//
// batch_norm (inference form) is elementwise: the per-channel parameters
// broadcast along the last axis. layer_norm makes two reductions over the
// axes [axis, rank) -- the sum, then the sum of squared deviations from the
// mean (two passes, as the reference does, for accuracy) -- and one
// elementwise pass.
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

/// (x - mean) / sqrt(variance + epsilon) * gamma + beta.
Value normalize(OpBuilder &b, Location loc, Value x, Value mean, Value variance,
                Value gamma, Value beta, Value epsilon) {
  Value centered = b.create<arith::SubFOp>(loc, x, mean);
  Value deviation = b.create<math::SqrtOp>(
      loc, b.create<arith::AddFOp>(loc, variance, epsilon));
  Value scaled = b.create<arith::MulFOp>(
      loc, b.create<arith::DivFOp>(loc, centered, deviation), gamma);
  return b.create<arith::AddFOp>(loc, scaled, beta);
}

struct BatchNormLowering : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value epsilon =
        createScalarConstant(rewriter, loc, resultType.getElementType(),
                             op.getEpsilon().convertToDouble());
    Value result = buildElementwise(
        rewriter, loc, resultType,
        getBroadcastSizes(rewriter, loc, resultType, op.getX()),
        ValueRange{op.getX(), op.getGamma(), op.getBeta(), op.getMean(),
                   op.getVariance()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          return normalize(b, l, args[0], args[3], args[4], args[1], args[2],
                           epsilon);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LayerNormLowering : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = op.getX();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    SmallVector<int64_t> axes =
        llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
    Type elementType = type.getElementType();
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value count = castIndexTo(
        rewriter, loc, getDimsProduct(rewriter, loc, x, axes), elementType);

    Value sum =
        buildReduction(rewriter, loc, x, axes, zero,
                       [](OpBuilder &b, Location l, ValueRange args) -> Value {
                         return b.create<arith::AddFOp>(l, args[0], args[1]);
                       });
    // Sum of squared deviations, the mean read through the reduced map.
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = getDropDimsMap(ctx, rank, axes);
    auto sumType = cast<RankedTensorType>(sum.getType());
    Value squaresInit =
        createFilled(rewriter, loc, sumType,
                     tensor::getMixedSizes(rewriter, loc, sum), zero);
    Value squares = buildGeneric(
        rewriter, loc, ValueRange{x, sum}, {identity, reduced}, squaresInit,
        reduced, getIterators(rank, axes),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value mean = b.create<arith::DivFOp>(l, args[1], count);
          Value centered = b.create<arith::SubFOp>(l, args[0], mean);
          return b.create<arith::AddFOp>(
              l, args[2], b.create<arith::MulFOp>(l, centered, centered));
        });

    // gamma and beta have the shape of the normalized (trailing) axes.
    Value epsilon = createScalarConstant(rewriter, loc, elementType,
                                         op.getEpsilon().convertToDouble());
    Value init = createEmpty(rewriter, loc, type,
                             tensor::getMixedSizes(rewriter, loc, x));
    auto gammaType = cast<ShapedType>(op.getGamma().getType());
    auto betaType = cast<ShapedType>(op.getBeta().getType());
    Value result = buildGeneric(
        rewriter, loc, ValueRange{x, sum, squares, op.getGamma(), op.getBeta()},
        {identity, reduced, reduced, getBroadcastMap(ctx, gammaType, rank),
         getBroadcastMap(ctx, betaType, rank)},
        init, identity, getIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value mean = b.create<arith::DivFOp>(l, args[1], count);
          Value variance = b.create<arith::DivFOp>(l, args[2], count);
          return normalize(b, l, args[0], mean, variance, args[3], args[4],
                           epsilon);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BatchNormLowering, LayerNormLowering>(patterns.getContext());
}
