//===- Pooling.cpp - graph pooling ops to linalg --------------------------===//
//
// max_pool2d pads with -inf, so padding never wins (TF ignores it), and runs
// linalg.pooling_nhwc_max. avg_pool2d pads with 0, sums with
// linalg.pooling_nhwc_sum, then divides by the count of real (unpadded)
// elements of each window, a compile-time constant per (oh, ow). Global
// pools are reductions over H and W.
//
// Above those, float32 NHWC poolings with static H, W and C are calls of the
// runtime's pooling kernels, which pad implicitly; so are 8-bit max poolings
// (quantized data) with static C and the max poolings that record their taps
// for the gradient (train steps).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "passes/GraphToLinalg/KernelCalls.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_kernels.h"

#include <limits>
#include <type_traits>

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
    // linalg's max pooling compares integers as signed; uint8 pools are
    // kernel calls (PoolToKernel) or reported.
    if (elementType.isUnsignedInteger())
      return rewriter.notifyMatchFailure(op, "uint8 without the kernel");
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


//===----------------------------------------------------------------------===//
// Runtime kernel calls
//===----------------------------------------------------------------------===//

/// Pooling through the runtime's NHWC kernel, which pads implicitly: a
/// max_pool2d reading a -inf pad of H and W (what ONNX MaxPool's pads
/// become) and a VALID avg_pool2d reading a zero pad (count_include_pad)
/// absorb the pad.
template <typename PoolOp>
struct PoolToKernel : OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;
  static constexpr bool isMax = std::is_same_v<PoolOp, MaxPool2DOp>;

  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    bool same = op.getPadding() == "same";
    Type elementType = xType.getElementType();
    bool int8 = isMax && elementType.isInteger(8);
    auto isKernelType = [&](RankedTensorType type) {
      if (!int8)
        return isNhwcF32WithStaticC(type, /*staticHW=*/same);
      return type.getRank() == 4 && !type.isDynamicDim(3) &&
             (!same || (!type.isDynamicDim(1) && !type.isDynamicDim(2)));
    };
    if (!isKernelType(xType) || !isKernelType(resultType))
      return rewriter.notifyMatchFailure(
          op, "not a float32 or 8-bit max NHWC pool (static C; static H, W "
              "if same)");
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getEffectiveStrides());
    WindowPadding padding = getWindowPadding(
        xType.getShape().slice(1, 2), window, strides, {1, 1}, same);
    int32_t mode = isMax ? TFCC_POOL_MAX : TFCC_POOL_AVG;
    Value x = op.getX();
    int64_t absorbedAfter[2] = {0, 0};
    if (auto pad = x.template getDefiningOp<PadOp>()) {
      SmallVector<int64_t> pads = getIntegers(pad.getPads());
      float value = pad.getValue().convertToFloat();
      // A pad of the type's lowest value never wins a window (and a window
      // of padding alone gives that value either way); float pads down to
      // -FLT_MAX count as -inf.
      float lowest = int8 ? getMaxPoolPadValue(elementType)
                          : -std::numeric_limits<float>::max();
      bool absorbs =
          isMax ? value <= lowest : value == 0.0f && padding.isZero();
      if (absorbs && isConstantPadOfHW(pad)) {
        x = pad.getX();
        xType = cast<RankedTensorType>(x.getType());
        padding.before[0] += pads[2];
        padding.before[1] += pads[4];
        absorbedAfter[0] = pads[3];
        absorbedAfter[1] = pads[5];
        if (!isMax)
          mode = TFCC_POOL_AVG_WINDOW;
      }
    }
    Location loc = op.getLoc();
    // An absorbed pad's rows and columns count in the output's extents.
    int64_t padTotals[2] = {
        padding.before[0] + padding.after[0] + absorbedAfter[0],
        padding.before[1] + padding.after[1] + absorbedAfter[1]};
    WindowExtents extents = buildWindowExtents(
        rewriter, loc, op, x, resultType, padTotals, window, strides, {1, 1});
    Value output = extents.output;
    if (int8) {
      emitKernelCall(rewriter, loc,
                     kernels::tfcc_rt_max_pool2d_i8{
                         .x = x,
                         .n = getDimValue(rewriter, loc, x, 0),
                         .h = extents.h,
                         .w = extents.w,
                         .c = xType.getDimSize(3),
                         .kh = window[0],
                         .kw = window[1],
                         .stride_h = strides[0],
                         .stride_w = strides[1],
                         .pad_top = padding.before[0],
                         .pad_left = padding.before[1],
                         .oh = extents.oh,
                         .ow = extents.ow,
                         .is_signed = elementType.isUnsignedInteger() ? 0 : 1,
                         .y = output});
      rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
      return success();
    }
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_pool2d_f32{
                       .x = x,
                       .n = getDimValue(rewriter, loc, x, 0),
                       .h = extents.h,
                       .w = extents.w,
                       .c = xType.getDimSize(3),
                       .kh = window[0],
                       .kw = window[1],
                       .stride_h = strides[0],
                       .stride_w = strides[1],
                       .pad_top = padding.before[0],
                       .pad_left = padding.before[1],
                       .oh = extents.oh,
                       .ow = extents.ow,
                       .mode = mode,
                       .y = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// graph.max_pool2d_with_indices (train steps): one kernel call writing both
/// results.
struct MaxPoolWithIndicesToKernel : OpRewritePattern<MaxPool2DWithIndicesOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DWithIndicesOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    auto yType = cast<RankedTensorType>(op.getY().getType());
    auto tapsType = cast<RankedTensorType>(op.getTaps().getType());
    if (!isStaticF32Nhwc(xType) || !isStaticF32Nhwc(yType))
      return rewriter.notifyMatchFailure(op, "not a static float32 NHWC pool");
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), window, strides,
                         {1, 1}, op.getPadding() == "same");
    Location loc = op.getLoc();
    Value y = allocResultLike(rewriter, loc, yType, x);
    Value taps = allocResultLike(rewriter, loc, tapsType, x);
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_max_pool2d_indices_f32{
                       .x = x,
                       .n = getDimValue(rewriter, loc, x, 0),
                       .h = xType.getDimSize(1),
                       .w = xType.getDimSize(2),
                       .c = xType.getDimSize(3),
                       .kh = window[0],
                       .kw = window[1],
                       .stride_h = strides[0],
                       .stride_w = strides[1],
                       .pad_top = padding.before[0],
                       .pad_left = padding.before[1],
                       .oh = yType.getDimSize(1),
                       .ow = yType.getDimSize(2),
                       .positive_only = op.getPositiveOnly() ? 1 : 0,
                       .y = y,
                       .taps = taps});
    rewriter.replaceOp(op, {toResultTensor(rewriter, loc, yType, y),
                            toResultTensor(rewriter, loc, tapsType, taps)});
    return success();
  }
};

/// graph.max_pool2d_grad_indices: the scatter through the recorded taps.
struct MaxPoolGradIndicesToKernel
    : OpRewritePattern<MaxPool2DGradIndicesOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DGradIndicesOp op,
                                PatternRewriter &rewriter) const override {
    Value taps = op.getTaps(), dy = op.getDy();
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isStaticF32Nhwc(dyType) || !isStaticF32Nhwc(resultType))
      return rewriter.notifyMatchFailure(op, "not a static float32 NHWC pool");
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    WindowPadding padding =
        getWindowPadding(resultType.getShape().slice(1, 2), window, strides,
                         {1, 1}, op.getPadding() == "same");
    Location loc = op.getLoc();
    Value output = allocResultLike(rewriter, loc, resultType, dy);
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_max_pool2d_grad_indices_f32{
                       .taps = taps,
                       .dy = dy,
                       .n = getDimValue(rewriter, loc, dy, 0),
                       .h = resultType.getDimSize(1),
                       .w = resultType.getDimSize(2),
                       .c = resultType.getDimSize(3),
                       .kh = window[0],
                       .kw = window[1],
                       .stride_h = strides[0],
                       .stride_w = strides[1],
                       .pad_top = padding.before[0],
                       .pad_left = padding.before[1],
                       .oh = dyType.getDimSize(1),
                       .ow = dyType.getDimSize(2),
                       .dx = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphPoolingToLinalgPatterns(
    RewritePatternSet &patterns, bool kernelCalls) {
  patterns.add<MaxPool2DLowering, AvgPool2DLowering,
               GlobalPoolLowering<GlobalAvgPool2DOp, false>,
               GlobalPoolLowering<GlobalMaxPool2DOp, true>>(
      patterns.getContext());
  if (kernelCalls)
    patterns.add<PoolToKernel<MaxPool2DOp>, PoolToKernel<AvgPool2DOp>,
                 MaxPoolWithIndicesToKernel, MaxPoolGradIndicesToKernel>(
        patterns.getContext(), /*benefit=*/2);
}
