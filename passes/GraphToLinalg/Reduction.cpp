//===- Reduction.cpp - graph reductions, argmax and softmax to linalg -----===//
//
// Reductions are linalg.generic ops with reduction iterators over the
// normalized axes, their outputs filled with the identity of the combiner
// (0, -inf/+inf or the integer extremes); keep_dims re-inserts the size-1
// dims with tensor.expand_shape. argmax is one generic with two outputs
// (value, index). softmax subtracts the maximum before exponentiating;
// float32 over a static last axis it is a call of the runtime's row-wise
// kernel instead.
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

enum class ReduceKind { Sum, Mean, Max, Min };

/// Sorted, distinct, non-negative axes; failure if one is out of range.
FailureOr<SmallVector<int64_t>> normalizeAxes(ArrayAttr axesAttr,
                                              int64_t rank) {
  SmallVector<int64_t> axes;
  for (int64_t axis : getIntegers(axesAttr)) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized)
      return failure();
    axes.push_back(*normalized);
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// Re-inserts the reduced dims of a keep_dims reduction as size-1 dims: each
/// kept dim groups with the 1s that follow it (leading 1s join the first).
Value expandReducedDims(OpBuilder &b, Location loc, Value reduced,
                        RankedTensorType resultType, ArrayRef<int64_t> axes) {
  int64_t rank = resultType.getRank();
  SmallVector<ReassociationIndices> groups;
  SmallVector<OpFoldResult> reducedSizes =
      tensor::getMixedSizes(b, loc, reduced);
  SmallVector<OpFoldResult> sizes;
  ReassociationIndices leadingOnes;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (llvm::is_contained(axes, dim)) {
      sizes.push_back(b.getIndexAttr(1));
      (groups.empty() ? leadingOnes : groups.back()).push_back(dim);
      continue;
    }
    sizes.push_back(reducedSizes[groups.size()]);
    ReassociationIndices group = leadingOnes;
    group.push_back(dim);
    leadingOnes.clear();
    groups.push_back(group);
  }
  return b.create<tensor::ExpandShapeOp>(loc, resultType, reduced, groups,
                                         sizes);
}

/// The combiner of a reduction for float or integer elements.
Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value in,
              Value acc) {
  bool isFloat = isa<FloatType>(in.getType());
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    return isFloat ? b.create<arith::AddFOp>(loc, in, acc).getResult()
                   : b.create<arith::AddIOp>(loc, in, acc).getResult();
  case ReduceKind::Max:
    return isFloat ? b.create<arith::MaximumFOp>(loc, in, acc).getResult()
                   : b.create<arith::MaxSIOp>(loc, in, acc).getResult();
  case ReduceKind::Min:
    return isFloat ? b.create<arith::MinimumFOp>(loc, in, acc).getResult()
                   : b.create<arith::MinSIOp>(loc, in, acc).getResult();
  }
  llvm_unreachable("unknown reduction");
}

template <typename OpTy, ReduceKind kind>
struct ReduceLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto type = cast<RankedTensorType>(x.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    FailureOr<SmallVector<int64_t>> axes =
        normalizeAxes(op.getAxes(), type.getRank());
    if (failed(axes))
      return rewriter.notifyMatchFailure(op, "axis out of range");

    Value init;
    if (kind == ReduceKind::Max)
      init = createLowestValue(rewriter, loc, elementType);
    else if (kind == ReduceKind::Min)
      init = createHighestValue(rewriter, loc, elementType);
    else
      init = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value result =
        buildReduction(rewriter, loc, x, *axes, init,
                       [](OpBuilder &b, Location l, ValueRange args) {
                         return combine(b, l, kind, args[0], args[1]);
                       });
    if (kind == ReduceKind::Mean) {
      // Integer means truncate toward zero, like TF's.
      Value count = castIndexTo(
          rewriter, loc, getDimsProduct(rewriter, loc, x, *axes), elementType);
      auto reducedType = cast<RankedTensorType>(result.getType());
      result = buildElementwise(
          rewriter, loc, reducedType, result,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            if (isa<FloatType>(elementType))
              return b.create<arith::DivFOp>(l, args[0], count);
            return b.create<arith::DivSIOp>(l, args[0], count);
          });
    }
    if (op.getKeepDims())
      result = expandReducedDims(rewriter, loc, result, resultType, *axes);
    else if (result.getType() != resultType)
      result = rewriter.create<tensor::CastOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// argmax along an axis, as i32: a reduction carrying (value, index) that
/// takes a new element only when it is strictly greater (the first maximum
/// wins ties) or the first NaN (NaN counts as the maximum).
struct ArgmaxLowering : OpRewritePattern<ArgmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ArgmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = op.getX();
    auto type = cast<RankedTensorType>(x.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Type elementType = type.getElementType();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, x);
    sizes.erase(sizes.begin() + *axis);
    auto valuesType = RankedTensorType::get(resultType.getShape(), elementType);
    Value values = createFilled(rewriter, loc, valuesType, sizes,
                                createLowestValue(rewriter, loc, elementType));
    Value indices = createFilled(
        rewriter, loc, resultType, sizes,
        createScalarConstant(rewriter, loc, resultType.getElementType(), 0));
    AffineMap reduced = getDropDimsMap(ctx, rank, *axis);
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   reduced, reduced};
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{valuesType, resultType}, x, ValueRange{values, indices},
        maps, getIterators(rank, *axis),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value in = args[0], best = args[1], bestIndex = args[2];
          Value take;
          if (isa<FloatType>(elementType)) {
            Value greater =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, in, best);
            Value inIsNan =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNO, in, in);
            Value bestIsNumber = b.create<arith::CmpFOp>(
                l, arith::CmpFPredicate::ORD, best, best);
            take = b.create<arith::OrIOp>(
                l, greater, b.create<arith::AndIOp>(l, inIsNan, bestIsNumber));
          } else {
            take =
                b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sgt, in, best);
          }
          Value index = castIndexTo(b, l, b.create<linalg::IndexOp>(l, *axis),
                                    bestIndex.getType());
          b.create<linalg::YieldOp>(
              l,
              ValueRange{b.create<arith::SelectOp>(l, take, in, best),
                         b.create<arith::SelectOp>(l, take, index, bestIndex)});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

/// softmax = exp(x - max) / sum, log_softmax = (x - max) - log(sum), with
/// sum = sum(exp(x - max)) along the axis.
template <typename OpTy, bool isLog>
struct SoftmaxLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto type = cast<RankedTensorType>(x.getType());
    unsigned rank = type.getRank();
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    SoftmaxStats stats = buildSoftmaxStats(rewriter, loc, x, *axis);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = getDropDimsMap(rewriter.getContext(), rank, *axis);
    Value init = createEmpty(rewriter, loc, type,
                             tensor::getMixedSizes(rewriter, loc, x));
    Value result = buildGeneric(
        rewriter, loc, ValueRange{x, stats.max, stats.sumExp},
        {identity, reduced, reduced}, init, identity, getIterators(rank),
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value shifted = b.create<arith::SubFOp>(l, args[0], args[1]);
          if (isLog)
            return b.create<arith::SubFOp>(l, shifted,
                                           b.create<math::LogOp>(l, args[2]));
          return b.create<arith::DivFOp>(l, b.create<math::ExpOp>(l, shifted),
                                         args[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};


/// softmax / log_softmax over the last axis through the runtime's row-wise
/// kernel.
template <typename SoftmaxOp>
struct SoftmaxToKernel : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern<SoftmaxOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getX().getType());
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), type.getRank());
    if (!axis || *axis != type.getRank() - 1)
      return rewriter.notifyMatchFailure(op, "not the last axis");
    Location loc = op.getLoc();
    FailureOr<std::pair<Value, int64_t>> shape =
        getRowsAndCols(rewriter, loc, op.getX(), *axis);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, "not float32 static rows");
    Value output = allocResultLike(rewriter, loc, type, op.getX());
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_softmax_f32{
                       .x = op.getX(),
                       .rows = shape->first,
                       .cols = shape->second,
                       .log_softmax = std::is_same_v<SoftmaxOp, LogSoftmaxOp>,
                       .y = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, type, output));
    return success();
  }
};

/// top_k_indices of float32 rows (a static last axis) through the runtime's
/// stable selection kernel.
struct TopKIndicesToKernel : OpRewritePattern<TopKIndicesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopKIndicesOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getX().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    FailureOr<std::pair<Value, int64_t>> shape =
        getRowsAndCols(rewriter, loc, op.getX(), type.getRank() - 1);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op,
                                         "not float32 with a static last axis");
    Value output = allocResultLike(rewriter, loc, resultType, op.getX());
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_top_k_indices_f32{.x = op.getX(),
                                           .rows = shape->first,
                                           .cols = shape->second,
                                           .k = static_cast<int64_t>(op.getK()),
                                           .largest = op.getLargest() ? 1 : 0,
                                           .indices = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// non_max_suppression through the runtime's kernel (static shapes).
struct NonMaxSuppressionToKernel : OpRewritePattern<NonMaxSuppressionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NonMaxSuppressionOp op,
                                PatternRewriter &rewriter) const override {
    auto boxes = cast<RankedTensorType>(op.getBoxes().getType());
    auto scores = cast<RankedTensorType>(op.getScores().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!boxes.hasStaticShape() || !scores.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    Value output = allocResultLike(rewriter, loc, resultType, op.getBoxes());
    std::optional<APFloat> scoreThreshold = op.getScoreThreshold();
    emitKernelCall(
        rewriter, loc,
        kernels::tfcc_rt_non_max_suppression_f32{
            .boxes = op.getBoxes(),
            .scores = op.getScores(),
            .batches = boxes.getDimSize(0),
            .classes = scores.getDimSize(1),
            .n = boxes.getDimSize(1),
            .max_per_class =
                static_cast<int64_t>(op.getMaxOutputBoxesPerClass()),
            .iou_threshold = op.getIouThreshold().convertToFloat(),
            .score_threshold =
                scoreThreshold ? scoreThreshold->convertToFloat() : 0.0f,
            .has_score_threshold = scoreThreshold ? 1 : 0,
            .center_point_box = static_cast<int32_t>(op.getCenterPointBox()),
            .selected = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphReductionToLinalgPatterns(
    RewritePatternSet &patterns, bool kernelCalls) {
  patterns.add<ReduceLowering<ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<ReduceMaxOp, ReduceKind::Max>,
               ReduceLowering<ReduceMinOp, ReduceKind::Min>, ArgmaxLowering,
               SoftmaxLowering<SoftmaxOp, false>,
               SoftmaxLowering<LogSoftmaxOp, true>>(patterns.getContext());
  if (!kernelCalls)
    return;
  patterns.add<SoftmaxToKernel<SoftmaxOp>, SoftmaxToKernel<LogSoftmaxOp>>(
      patterns.getContext(), /*benefit=*/2);
  // No linalg lowering: without kernel calls these ops are reported.
  patterns.add<TopKIndicesToKernel, NonMaxSuppressionToKernel>(
      patterns.getContext());
}
