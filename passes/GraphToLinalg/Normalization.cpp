//===- Normalization.cpp - graph.batch_norm and graph.layer_norm ----------===//
//
// batch_norm (inference form) is elementwise: the per-channel parameters
// broadcast along the last axis. The training forms (graph.moments,
// batch_norm_train, batch_norm_grad_sums, batch_norm_train_grad) keep their
// statistics as [2, C] tensors: per-channel coefficients are computed once
// over C, then one elementwise pass (which fuses with a following ReLU);
// the two reductions lower to linalg here and, for float32, to calls of
// the runtime's parallel per-channel kernels. layer_norm makes two reductions over the
// axes [axis, rank) -- the sum, then the sum of squared deviations from the
// mean (two passes, as the reference does, for accuracy) -- and one
// elementwise pass; float32 over static trailing dims it is a call of the
// runtime's row-wise kernel instead.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "passes/GraphToLinalg/KernelCalls.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <type_traits>

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

/// The sum of `x` over `axes`, then the sum of squared deviations from the
/// mean sum / `count` (a second pass, as the reference computes variances),
/// both without those axes.
std::pair<Value, Value> buildSumAndSquaredDeviations(OpBuilder &b,
                                                     Location loc, Value x,
                                                     ArrayRef<int64_t> axes,
                                                     Value count) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.getType());
  unsigned rank = type.getRank();
  Value zero = createScalarConstant(b, loc, type.getElementType(), 0.0);
  Value sum =
      buildReduction(b, loc, x, axes, zero,
                     [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                       return nb.create<arith::AddFOp>(l, args[0], args[1]);
                     });
  AffineMap reduced = getDropDimsMap(ctx, rank, axes);
  Value squaresInit =
      createFilled(b, loc, cast<RankedTensorType>(sum.getType()),
                   tensor::getMixedSizes(b, loc, sum), zero);
  Value squares = buildGeneric(
      b, loc, ValueRange{x, sum}, {b.getMultiDimIdentityMap(rank), reduced},
      squaresInit, reduced, getIterators(rank, axes),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value mean = nb.create<arith::DivFOp>(l, args[1], count);
        Value centered = nb.create<arith::SubFOp>(l, args[0], mean);
        return nb.create<arith::AddFOp>(
            l, args[2], nb.create<arith::MulFOp>(l, centered, centered));
      });
  return {sum, squares};
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
    Value count = castIndexTo(
        rewriter, loc, getDimsProduct(rewriter, loc, x, axes), elementType);
    auto [sum, squares] =
        buildSumAndSquaredDeviations(rewriter, loc, x, axes, count);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = getDropDimsMap(ctx, rank, axes);

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

/// Row `row` of a [2, C] statistics tensor read in `rank` loops whose last
/// one runs over the channels.
AffineMap getStatsRowMap(MLIRContext *ctx, unsigned rank, int64_t row) {
  return AffineMap::get(rank, 0,
                        {getAffineConstantExpr(row, ctx),
                         getAffineDimExpr(rank - 1, ctx)},
                        ctx);
}

/// The last loop of `rank` (a [C] operand read per channel).
AffineMap getChannelMap(MLIRContext *ctx, unsigned rank) {
  return AffineMap::get(rank, 0, {getAffineDimExpr(rank - 1, ctx)}, ctx);
}

/// An operand of a per-channel computation: a [C] tensor (row < 0) or one
/// row of a [2, C] one.
struct ChannelInput {
  Value value;
  int64_t row = -1;
};

/// Inputs and maps of `inputs` in `rank` loops ending with the channel loop.
void appendChannelInputs(MLIRContext *ctx, unsigned rank,
                         ArrayRef<ChannelInput> inputs,
                         SmallVectorImpl<Value> &values,
                         SmallVectorImpl<AffineMap> &maps) {
  for (const ChannelInput &in : inputs) {
    values.push_back(in.value);
    maps.push_back(in.row < 0 ? getChannelMap(ctx, rank)
                              : getStatsRowMap(ctx, rank, in.row));
  }
}

/// A [C] tensor (`like`'s type and sizes) computed per channel from
/// `inputs`.
Value buildPerChannel(OpBuilder &b, Location loc, Value like,
                      ArrayRef<ChannelInput> inputs, ScalarBodyFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> values;
  SmallVector<AffineMap> maps;
  appendChannelInputs(ctx, 1, inputs, values, maps);
  Value init = createEmpty(b, loc, cast<RankedTensorType>(like.getType()),
                           tensor::getMixedSizes(b, loc, like));
  return buildGeneric(b, loc, values, maps, init, b.getMultiDimIdentityMap(1),
                      getIterators(1), body);
}

/// An elementwise pass over `x`'s shape reading `full` (x's shape) and
/// per-channel `inputs`.
Value buildChannelElementwise(OpBuilder &b, Location loc, Value x,
                              ValueRange full, ArrayRef<ChannelInput> inputs,
                              ScalarBodyFn body) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.getType());
  unsigned rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<Value> values(full.begin(), full.end());
  SmallVector<AffineMap> maps(full.size(), identity);
  appendChannelInputs(ctx, rank, inputs, values, maps);
  Value init = createEmpty(b, loc, type, tensor::getMixedSizes(b, loc, x));
  return buildGeneric(b, loc, values, maps, init, identity,
                      getIterators(rank), body);
}

/// [2, C] from two [C] tensors: row 0 `first / count`, row 1 `second /
/// count`.
Value buildStatsRows(OpBuilder &b, Location loc, RankedTensorType type,
                     Value first, Value second, Value count) {
  MLIRContext *ctx = b.getContext();
  AffineMap channel = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(2)};
  sizes.push_back(tensor::getMixedSizes(b, loc, first)[0]);
  Value init = createEmpty(b, loc, type, sizes);
  return buildGeneric(
      b, loc, ValueRange{first, second}, {channel, channel}, init,
      b.getMultiDimIdentityMap(2), getIterators(2),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value isFirst = nb.create<arith::CmpIOp>(
            l, arith::CmpIPredicate::eq, nb.create<linalg::IndexOp>(l, 0),
            nb.create<arith::ConstantIndexOp>(l, 0));
        Value picked = nb.create<arith::SelectOp>(l, isFirst, args[0], args[1]);
        return count ? nb.create<arith::DivFOp>(l, picked, count) : picked;
      });
}

/// The reduced axes (all but the last) of a training batch norm's input.
SmallVector<int64_t> getBatchAxes(Value x) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  return llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
}

/// graph.moments: the sum, then the sum of squared deviations from the mean
/// (two passes, as the reference does).
struct MomentsLowering : OpRewritePattern<MomentsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MomentsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    SmallVector<int64_t> axes = getBatchAxes(x);
    Type elementType = cast<RankedTensorType>(x.getType()).getElementType();
    Value count = castIndexTo(
        rewriter, loc, getDimsProduct(rewriter, loc, x, axes), elementType);
    auto [sum, squares] =
        buildSumAndSquaredDeviations(rewriter, loc, x, axes, count);
    rewriter.replaceOp(op, buildStatsRows(rewriter, loc, op.getType(), sum,
                                          squares, count));
    return success();
  }
};

/// graph.batch_norm_grad_sums: sum(dy) and sum(dy * (x - mean)).
struct BatchNormGradSumsLowering : OpRewritePattern<BatchNormGradSumsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormGradSumsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = op.getX();
    auto type = cast<RankedTensorType>(x.getType());
    unsigned rank = type.getRank();
    SmallVector<int64_t> axes = getBatchAxes(x);
    Value zero =
        createScalarConstant(rewriter, loc, type.getElementType(), 0.0);
    Value sumDy = buildReduction(
        rewriter, loc, op.getDy(), axes, zero,
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::AddFOp>(l, args[0], args[1]);
        });
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    Value init = createFilled(rewriter, loc,
                              cast<RankedTensorType>(sumDy.getType()),
                              tensor::getMixedSizes(rewriter, loc, sumDy), zero);
    Value sumDyXc = buildGeneric(
        rewriter, loc, ValueRange{x, op.getDy(), op.getMoments()},
        {identity, identity, getStatsRowMap(ctx, rank, 0)}, init,
        getDropDimsMap(ctx, rank, axes), getIterators(rank, axes),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value centered = b.create<arith::SubFOp>(l, args[0], args[2]);
          return b.create<arith::AddFOp>(
              l, args[3], b.create<arith::MulFOp>(l, args[1], centered));
        });
    rewriter.replaceOp(op, buildStatsRows(rewriter, loc, op.getType(), sumDy,
                                          sumDyXc, Value()));
    return success();
  }
};

/// rsqrt(variance + epsilon) as 1 / sqrt (the interpreter's rounding).
Value inverseDeviation(OpBuilder &b, Location l, Value variance,
                       Value epsilon) {
  Value one = b.create<arith::ConstantOp>(
      l, b.getFloatAttr(variance.getType(), 1.0));
  return b.create<arith::DivFOp>(
      l, one,
      b.create<math::SqrtOp>(l, b.create<arith::AddFOp>(l, variance, epsilon)));
}

/// y = (x - mean) * scale + beta with scale = gamma * rsqrt(var + epsilon)
/// computed once per channel.
struct BatchNormTrainLowering : OpRewritePattern<BatchNormTrainOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormTrainOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = op.getType().getElementType();
    Value epsilon = createScalarConstant(rewriter, loc, elementType,
                                         op.getEpsilon().convertToDouble());
    Value moments = op.getMoments();
    Value scale = buildPerChannel(
        rewriter, loc, op.getGamma(), {{moments, 1}, {op.getGamma()}},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::MulFOp>(
              l, inverseDeviation(b, l, args[0], epsilon), args[1]);
        });
    Value y = buildChannelElementwise(
        rewriter, loc, op.getX(), op.getX(),
        {{moments, 0}, {scale}, {op.getBeta()}},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value centered = b.create<arith::SubFOp>(l, args[0], args[1]);
          return b.create<arith::AddFOp>(
              l, b.create<arith::MulFOp>(l, centered, args[2]), args[3]);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// dx = dy * k - (x - mean) * k * r^2 * s1 / N - k * s0 / N with
/// k = gamma * r, r = rsqrt(var + epsilon): three coefficients per channel,
/// then one pass over x and dy.
struct BatchNormTrainGradLowering : OpRewritePattern<BatchNormTrainGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormTrainGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    Type elementType = op.getType().getElementType();
    Value epsilon = createScalarConstant(rewriter, loc, elementType,
                                         op.getEpsilon().convertToDouble());
    Value count = castIndexTo(
        rewriter, loc, getDimsProduct(rewriter, loc, x, getBatchAxes(x)),
        elementType);
    Value moments = op.getMoments(), sums = op.getSums(), gamma = op.getGamma();
    // k = gamma * r; a = -k * r^2 * s1 / N; b = -k * s0 / N.
    Value k = buildPerChannel(
        rewriter, loc, gamma, {{moments, 1}, {gamma}},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::MulFOp>(
              l, args[1], inverseDeviation(b, l, args[0], epsilon));
        });
    Value a = buildPerChannel(
        rewriter, loc, gamma, {{moments, 1}, {k}, {sums, 1}},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value r = inverseDeviation(b, l, args[0], epsilon);
          Value t = b.create<arith::MulFOp>(
              l, b.create<arith::MulFOp>(l, args[1], b.create<arith::MulFOp>(l, r, r)),
              b.create<arith::DivFOp>(l, args[2], count));
          return b.create<arith::NegFOp>(l, t);
        });
    Value shift = buildPerChannel(
        rewriter, loc, gamma, {{k}, {sums, 0}},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::NegFOp>(
              l, b.create<arith::MulFOp>(
                     l, args[0], b.create<arith::DivFOp>(l, args[1], count)));
        });
    Value dx = buildChannelElementwise(
        rewriter, loc, x, ValueRange{x, op.getDy()},
        {{moments, 0}, {k}, {a}, {shift}},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value centered = b.create<arith::SubFOp>(l, args[0], args[2]);
          Value sum = b.create<arith::AddFOp>(
              l, b.create<arith::MulFOp>(l, args[1], args[3]),
              b.create<arith::MulFOp>(l, centered, args[4]));
          return b.create<arith::AddFOp>(l, sum, args[5]);
        });
    rewriter.replaceOp(op, dx);
    return success();
  }
};


//===----------------------------------------------------------------------===//
// Runtime kernel calls
//===----------------------------------------------------------------------===//

/// layer_norm whose gamma and beta have the normalized dims' shape.
struct LayerNormToKernel : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getX().getType());
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), type.getRank());
    if (!axis)
      return failure();
    ArrayRef<int64_t> trailing = type.getShape().drop_front(*axis);
    for (Value param : {op.getGamma(), op.getBeta()})
      if (cast<RankedTensorType>(param.getType()).getShape() != trailing)
        return rewriter.notifyMatchFailure(op, "broadcast gamma or beta");
    Location loc = op.getLoc();
    FailureOr<std::pair<Value, int64_t>> shape =
        getRowsAndCols(rewriter, loc, op.getX(), *axis);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, "not float32 static rows");
    Value output = allocResultLike(rewriter, loc, type, op.getX());
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_layer_norm_f32{
                       .x = op.getX(),
                       .rows = shape->first,
                       .cols = shape->second,
                       .gamma = op.getGamma(),
                       .beta = op.getBeta(),
                       .epsilon = op.getEpsilon().convertToFloat(),
                       .y = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, type, output));
    return success();
  }
};

/// graph.moments / graph.batch_norm_grad_sums of float32 with a static
/// channel count: one call of the runtime's parallel per-channel reduction
/// (the linalg lowering's reductions run serially with their accumulators
/// in memory).
template <typename StatsOp>
struct ChannelStatsToKernel : OpRewritePattern<StatsOp> {
  using OpRewritePattern<StatsOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(StatsOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    Location loc = op.getLoc();
    FailureOr<std::pair<Value, int64_t>> shape =
        getRowsAndCols(rewriter, loc, x, rank - 1);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, "not float32 static channels");
    auto type = cast<RankedTensorType>(op.getType());
    Value output = allocResult(rewriter, loc, type, {});
    if constexpr (std::is_same_v<StatsOp, BatchNormGradSumsOp>)
      emitKernelCall(rewriter, loc,
                     kernels::tfcc_rt_batch_norm_grad_sums_f32{
                         .x = x,
                         .dy = op.getDy(),
                         .moments = op.getMoments(),
                         .rows = shape->first,
                         .c = shape->second,
                         .sums = output});
    else
      emitKernelCall(rewriter, loc,
                     kernels::tfcc_rt_channel_moments_f32{
                         .x = x,
                         .rows = shape->first,
                         .c = shape->second,
                         .moments = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, type, output));
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphNormalizationToLinalgPatterns(
    RewritePatternSet &patterns, bool kernelCalls) {
  patterns.add<BatchNormLowering, LayerNormLowering, MomentsLowering,
               BatchNormGradSumsLowering, BatchNormTrainLowering,
               BatchNormTrainGradLowering>(patterns.getContext());
  if (kernelCalls)
    patterns.add<LayerNormToKernel, ChannelStatsToKernel<MomentsOp>,
                 ChannelStatsToKernel<BatchNormGradSumsOp>>(
        patterns.getContext(),
        /*benefit=*/2);
}
