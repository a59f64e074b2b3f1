//===- Training.cpp - the compiler-internal training ops to linalg --------===//
//
// The ops tfcc-autodiff adds (docs/autodiff.md), except graph.assign:
// - dropout_mask: a linalg.generic hashing the row-major element index with
//   splitmix64 on i64 (the interpreter's generator, bit for bit).
// - broadcast_like, element_count: a broadcast copy; a product of dims.
// - conv2d_backprop_input: dy is placed, strided, into a zero tensor padded
//   by (k - 1) * dilation - pad_before (tensor.insert_slice with strides),
//   then convolved with the flipped kernel in one linalg.generic over
//   (n, ih, iw, g, ci, i, j, cog).
// - conv2d_backprop_filter: one linalg.generic over (i, j, ci, g, cog) with
//   a reduction over (n, oh, ow) of the zero-padded input times dy.
// - max_pool2d_grad: a reduction over each window finds the first maximum
//   (i64 tap index; NaN wins, padding never chosen), then a linalg.generic
//   over dx and the window taps gathers the dy of each window whose argmax
//   is that tap. avg_pool2d_grad: dy / count, gathered the same way.
// - resize_grad: per spatial dim, compile-time tables of the (output index,
//   weight) pairs that reach each input index (the interpreter's f32 source
//   coordinates), applied by two linalg.generic ops (rows, then columns).
// - gather_grad: scf.for loops over (indices, outer, inner) accumulating dy
//   into a zero table with tensor.extract/insert (same summation order as
//   the interpreter); out-of-range indices report error 2 and are clamped.
// Above those, float32 groups-1 NHWC convolution gradients and max_pool2d_grad
// with static sizes are calls of the runtime's kernels (a stride-1
// convolution of dy with the flipped kernel; the filter gradient kernel or
// one GEMM; the pooling gradient kernel).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "passes/ConstantValues.h"
#include "passes/GraphToLinalg/KernelCalls.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "tfcc/tfcc_kernels.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

Value i64Constant(OpBuilder &b, Location loc, uint64_t value) {
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(b.getI64Type(), static_cast<int64_t>(value)));
}

/// splitmix64 on an i64 value (wrapping arithmetic, logical shifts).
Value buildSplitmix64(OpBuilder &b, Location loc, Value x) {
  auto mix = [&](Value v, int64_t shift, uint64_t multiplier) -> Value {
    Value shifted =
        b.create<arith::ShRUIOp>(loc, v, i64Constant(b, loc, shift));
    Value mixed = b.create<arith::XOrIOp>(loc, v, shifted);
    return b.create<arith::MulIOp>(loc, mixed, i64Constant(b, loc, multiplier));
  };
  x = b.create<arith::AddIOp>(loc, x, i64Constant(b, loc, kGolden));
  x = mix(x, 30, 0xBF58476D1CE4E5B9ull);
  x = mix(x, 27, 0x94D049BB133111EBull);
  Value shifted = b.create<arith::ShRUIOp>(loc, x, i64Constant(b, loc, 31));
  return b.create<arith::XOrIOp>(loc, x, shifted);
}

struct DropoutMaskLowering : OpRewritePattern<DropoutMaskOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DropoutMaskOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    int64_t rank = resultType.getRank();
    double rate = op.getRate().convertToFloat();

    // key = splitmix64(seed * golden + step), outside the loops.
    Value step = rewriter.create<tensor::ExtractOp>(loc, op.getStep(),
                                                    ValueRange{});
    Value seedTerm = i64Constant(
        rewriter, loc, static_cast<uint64_t>(op.getSeed()) * kGolden);
    Value key = buildSplitmix64(
        rewriter, loc, rewriter.create<arith::AddIOp>(loc, seedTerm, step));
    SmallVector<Value> dims;
    for (int64_t dim = 0; dim < rank; ++dim)
      dims.push_back(getDimValue(rewriter, loc, x, dim));
    Value scale =
        createScalarConstant(rewriter, loc, elementType, 1.0 / (1.0 - rate));
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value rateValue =
        createScalarConstant(rewriter, loc, rewriter.getF64Type(), rate);
    Value unit =
        createScalarConstant(rewriter, loc, rewriter.getF64Type(), 0x1.0p-24);

    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, x);
    Value init = createEmpty(rewriter, loc, resultType, sizes);
    Value mask = buildGeneric(
        rewriter, loc, ValueRange{}, {}, init,
        rewriter.getMultiDimIdentityMap(rank), getIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          // Row-major linear index of the element.
          Value linear = b.create<arith::ConstantIndexOp>(l, 0);
          for (int64_t dim = 0; dim < rank; ++dim) {
            linear = b.create<arith::MulIOp>(l, linear, dims[dim]);
            linear = b.create<arith::AddIOp>(
                l, linear, b.create<linalg::IndexOp>(l, dim));
          }
          Value i = b.create<arith::IndexCastOp>(l, b.getI64Type(), linear);
          Value hash =
              buildSplitmix64(b, l, b.create<arith::AddIOp>(l, key, i));
          Value top = b.create<arith::ShRUIOp>(l, hash, i64Constant(b, l, 40));
          Value u = b.create<arith::MulFOp>(
              l, b.create<arith::UIToFPOp>(l, b.getF64Type(), top), unit);
          Value keep = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGE,
                                               u, rateValue);
          return b.create<arith::SelectOp>(l, keep, scale, zero);
        });
    rewriter.replaceOp(op, mask);
    return success();
  }
};

struct BroadcastLikeLowering : OpRewritePattern<BroadcastLikeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastLikeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, op.getLike());
    Value result = buildElementwise(
        rewriter, loc, resultType, sizes, op.getValue(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ElementCountLowering : OpRewritePattern<ElementCountOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ElementCountOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> axes = getIntegers(op.getAxes());
    Value count = castIndexTo(
        rewriter, loc, getDimsProduct(rewriter, loc, op.getX(), axes),
        resultType.getElementType());
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, resultType,
                                                        ValueRange{count});
    return success();
  }
};

Value zeroFilledLike(OpBuilder &b, Location loc, RankedTensorType type,
                     Value batchSource) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    sizes.push_back(dim == 0 ? tensor::getMixedSize(b, loc, batchSource, 0)
                             : OpFoldResult(b.getIndexAttr(type.getDimSize(dim))));
  Value zero = createScalarConstant(b, loc, type.getElementType(), 0.0);
  return createFilled(b, loc, type, sizes, zero);
}

Value buildMulAdd(OpBuilder &b, Location loc, ValueRange args) {
  Value product = b.create<arith::MulFOp>(loc, args[0], args[1]);
  return b.create<arith::AddFOp>(loc, args[2], product);
}

struct Conv2DBackpropInputLowering : OpRewritePattern<Conv2DBackpropInputOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackpropInputOp op,
                                PatternRewriter &rewriter) const override {
    Value dy = op.getDy(), kernel = op.getKernel();
    auto kernelType = cast<RankedTensorType>(kernel.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isNhwcWithStaticHwc(dy.getType()) ||
        !isNhwcWithStaticHwc(resultType) || kernelType.getRank() != 4 ||
        !kernelType.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "expected NHWC tensors with static H, W, C and a static kernel");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto dyType = cast<RankedTensorType>(dy.getType());
    Type elementType = resultType.getElementType();
    SmallVector<int64_t> inputSize = getIntegers(op.getInputSize());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    SmallVector<int64_t> dilations = getIntegers(op.getDilations());
    int64_t groups = op.getGroups();
    int64_t kh = kernelType.getDimSize(0), kw = kernelType.getDimSize(1);
    int64_t groupIn = kernelType.getDimSize(2), out = kernelType.getDimSize(3);
    int64_t k[2] = {kh, kw};
    WindowPadding padding = getWindowPadding(inputSize, {kh, kw}, strides,
                                             dilations, op.getPadding() == "same");

    // dy at rows before + oh * stride of a zero tensor [n, PH, PW, out].
    SmallVector<int64_t> placedShape = {dyType.getDimSize(0), 0, 0, out};
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0)};
    for (int d = 0; d < 2; ++d) {
      int64_t reach = (k[d] - 1) * dilations[d];
      placedShape[d + 1] = inputSize[d] + reach;
      offsets.push_back(rewriter.getIndexAttr(reach - padding.before[d]));
    }
    offsets.push_back(rewriter.getIndexAttr(0));
    auto placedType = RankedTensorType::get(placedShape, elementType);
    Value placed = zeroFilledLike(rewriter, loc, placedType, dy);
    SmallVector<OpFoldResult> sliceSizes =
        tensor::getMixedSizes(rewriter, loc, dy);
    SmallVector<OpFoldResult> sliceStrides = {
        rewriter.getIndexAttr(1), rewriter.getIndexAttr(strides[0]),
        rewriter.getIndexAttr(strides[1]), rewriter.getIndexAttr(1)};
    placed = rewriter.create<tensor::InsertSliceOp>(loc, dy, placed, offsets,
                                                    sliceSizes, sliceStrides);

    // The kernel flipped in both spatial dims.
    AffineExpr d0, d1, d2, d3;
    bindDims(ctx, d0, d1, d2, d3);
    Value flipInit = rewriter.create<tensor::EmptyOp>(
        loc, kernelType.getShape(), elementType);
    Value flipped = buildGeneric(
        rewriter, loc, kernel,
        AffineMap::get(4, 0, {(kh - 1) - d0, (kw - 1) - d1, d2, d3}, ctx),
        flipInit, rewriter.getMultiDimIdentityMap(4), getIterators(4),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });

    int64_t groupOut = out / groups;
    Value input = splitLastDim(rewriter, loc, placed, groupOut);
    Value groupedKernel = splitLastDim(rewriter, loc, flipped, groupOut);
    Value init = splitLastDim(
        rewriter, loc, zeroFilledLike(rewriter, loc, resultType, dy), groupIn);
    AffineExpr n, ih, iw, g, ci, i, j, cog;
    bindDims(ctx, n, ih, iw, g, ci, i, j, cog);
    SmallVector<AffineMap> maps = {
        AffineMap::get(8, 0,
                       {n, ih + i * dilations[0], iw + j * dilations[1], g, cog},
                       ctx),
        AffineMap::get(8, 0, {i, j, ci, g, cog}, ctx),
        AffineMap::get(8, 0, {n, ih, iw, g, ci}, ctx)};
    Value dx = buildGeneric(rewriter, loc, ValueRange{input, groupedKernel},
                            ArrayRef(maps).drop_back(), init, maps.back(),
                            getIterators(8, {5, 6, 7}), buildMulAdd);
    rewriter.replaceOp(op, mergeLastDims(rewriter, loc, dx));
    return success();
  }
};

struct Conv2DBackpropFilterLowering
    : OpRewritePattern<Conv2DBackpropFilterOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackpropFilterOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX(), dy = op.getDy();
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isNhwcWithStaticHwc(x.getType()) || !isNhwcWithStaticHwc(dy.getType()) ||
        resultType.getRank() != 4 || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "expected NHWC tensors with static H, W, C");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto xType = cast<RankedTensorType>(x.getType());
    Type elementType = resultType.getElementType();
    SmallVector<int64_t> kernelSize = getIntegers(op.getKernelSize());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    SmallVector<int64_t> dilations = getIntegers(op.getDilations());
    int64_t groups = op.getGroups();
    int64_t groupIn = resultType.getDimSize(2);
    int64_t groupOut = resultType.getDimSize(3) / groups;
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), kernelSize, strides,
                         dilations, op.getPadding() == "same");
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value input = splitLastDim(
        rewriter, loc, padSpatial(rewriter, loc, x, padding, zero), groupIn);
    Value grad = splitLastDim(rewriter, loc, dy, groupOut);
    Value init = splitLastDim(
        rewriter, loc, createFilled(rewriter, loc, resultType, {}, zero),
        groupOut);
    AffineExpr i, j, ci, g, cog, n, oh, ow;
    bindDims(ctx, i, j, ci, g, cog, n, oh, ow);
    SmallVector<AffineMap> maps = {
        AffineMap::get(8, 0,
                       {n, oh * strides[0] + i * dilations[0],
                        ow * strides[1] + j * dilations[1], g, ci},
                       ctx),
        AffineMap::get(8, 0, {n, oh, ow, g, cog}, ctx),
        AffineMap::get(8, 0, {i, j, ci, g, cog}, ctx)};
    Value dk = buildGeneric(rewriter, loc, ValueRange{input, grad},
                            ArrayRef(maps).drop_back(), init, maps.back(),
                            getIterators(8, {5, 6, 7}), buildMulAdd);
    rewriter.replaceOp(op, mergeLastDims(rewriter, loc, dk));
    return success();
  }
};

/// dx[n, ih, iw, c] = sum over the window taps (i, j) of the output (oh, ow)
/// with ih = oh * sh - before_h + i (same for w) of grad[n, oh, ow, c], only
/// where argmax[n, oh, ow, c] == i * kw + j when `argmax` is given.
Value buildWindowGradient(OpBuilder &b, Location loc, Value grad, Value argmax,
                          RankedTensorType resultType, ArrayRef<int64_t> window,
                          ArrayRef<int64_t> strides,
                          const WindowPadding &padding) {
  MLIRContext *ctx = b.getContext();
  auto gradType = cast<RankedTensorType>(grad.getType());
  Type elementType = resultType.getElementType();
  Value init = zeroFilledLike(b, loc, resultType, grad);
  Value windowShape = b.create<tensor::EmptyOp>(loc, window, elementType);
  AffineExpr n, ih, iw, c, i, j;
  bindDims(ctx, n, ih, iw, c, i, j);
  int64_t outSizes[2] = {gradType.getDimSize(1), gradType.getDimSize(2)};
  return buildGeneric(
      b, loc, windowShape, AffineMap::get(6, 0, {i, j}, ctx), init,
      AffineMap::get(6, 0, {n, ih, iw, c}, ctx), getIterators(6, {4, 5}),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value zeroIndex = nb.create<arith::ConstantIndexOp>(l, 0);
        Value valid;
        Value position[2];
        for (int d = 0; d < 2; ++d) {
          // t = i_d + before - tap; the output is t / stride when exact.
          Value t = nb.create<arith::AddIOp>(
              l, nb.create<linalg::IndexOp>(l, d + 1),
              nb.create<arith::ConstantIndexOp>(l, padding.before[d]));
          t = nb.create<arith::SubIOp>(l, t,
                                       nb.create<linalg::IndexOp>(l, d + 4));
          Value stride = nb.create<arith::ConstantIndexOp>(l, strides[d]);
          Value o = nb.create<arith::DivSIOp>(l, t, stride);
          Value rem = nb.create<arith::RemSIOp>(l, t, stride);
          Value ok = nb.create<arith::AndIOp>(
              l,
              nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, t,
                                       zeroIndex),
              nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, rem,
                                       zeroIndex));
          ok = nb.create<arith::AndIOp>(
              l, ok,
              nb.create<arith::CmpIOp>(
                  l, arith::CmpIPredicate::slt, o,
                  nb.create<arith::ConstantIndexOp>(l, outSizes[d])));
          valid = d == 0 ? ok : nb.create<arith::AndIOp>(l, valid, ok);
          position[d] = o;
        }
        for (int d = 0; d < 2; ++d)
          position[d] =
              nb.create<arith::SelectOp>(l, valid, position[d], zeroIndex);
        SmallVector<Value> at = {nb.create<linalg::IndexOp>(l, 0), position[0],
                                 position[1], nb.create<linalg::IndexOp>(l, 3)};
        Value g = nb.create<tensor::ExtractOp>(l, grad, at);
        if (argmax) {
          Value tap = nb.create<arith::AddIOp>(
              l,
              nb.create<arith::MulIOp>(
                  l, nb.create<linalg::IndexOp>(l, 4),
                  nb.create<arith::ConstantIndexOp>(l, window[1])),
              nb.create<linalg::IndexOp>(l, 5));
          Value tap64 = nb.create<arith::IndexCastOp>(l, nb.getI64Type(), tap);
          Value chosen = nb.create<tensor::ExtractOp>(l, argmax, at);
          valid = nb.create<arith::AndIOp>(
              l, valid,
              nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, chosen,
                                       tap64));
        }
        Value sum = nb.create<arith::AddFOp>(l, args[1], g);
        return nb.create<arith::SelectOp>(l, valid, sum, args[1]);
      });
}

struct MaxPool2DGradLowering : OpRewritePattern<MaxPool2DGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DGradOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX(), dy = op.getDy();
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isNhwcWithStaticHwc(x.getType()) || !isNhwcWithStaticHwc(dy.getType()))
      return rewriter.notifyMatchFailure(
          op, "expected NHWC tensors with static H, W, C");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto xType = cast<RankedTensorType>(x.getType());
    auto dyType = cast<RankedTensorType>(dy.getType());
    Type elementType = resultType.getElementType();
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), window, strides, {1, 1},
                         op.getPadding() == "same");
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value input = padSpatial(rewriter, loc, x, padding, zero);

    // Stage 1: the first maximum of each window, as tap i * kw + j (i64).
    auto indexType = RankedTensorType::get(dyType.getShape(),
                                           rewriter.getI64Type());
    Value noTap = i64Constant(rewriter, loc, static_cast<uint64_t>(-1));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, dy);
    Value bestInit = createFilled(rewriter, loc, dyType, sizes, zero);
    Value tapInit = createFilled(rewriter, loc, indexType, sizes, noTap);
    Value windowShape =
        rewriter.create<tensor::EmptyOp>(loc, window, elementType);
    AffineExpr n, oh, ow, c, i, j;
    bindDims(ctx, n, oh, ow, c, i, j);
    AffineMap outMap = AffineMap::get(6, 0, {n, oh, ow, c}, ctx);
    SmallVector<AffineMap> maps = {
        AffineMap::get(6, 0, {n, oh * strides[0] + i, ow * strides[1] + j, c},
                       ctx),
        AffineMap::get(6, 0, {i, j}, ctx), outMap, outMap};
    int64_t inSizes[2] = {xType.getDimSize(1), xType.getDimSize(2)};
    auto argmax = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{dyType, indexType}, ValueRange{input, windowShape},
        ValueRange{bestInit, tapInit}, maps, getIterators(6, {4, 5}),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0], best = args[2], bestTap = args[3];
          // Real when before <= oh * s + i < before + in (same for w).
          Value real;
          for (int d = 0; d < 2; ++d) {
            Value p = b.create<arith::AddIOp>(
                l,
                b.create<arith::MulIOp>(
                    l, b.create<linalg::IndexOp>(l, d + 1),
                    b.create<arith::ConstantIndexOp>(l, strides[d])),
                b.create<linalg::IndexOp>(l, d + 4));
            Value ok = b.create<arith::AndIOp>(
                l,
                b.create<arith::CmpIOp>(
                    l, arith::CmpIPredicate::sge, p,
                    b.create<arith::ConstantIndexOp>(l, padding.before[d])),
                b.create<arith::CmpIOp>(
                    l, arith::CmpIPredicate::slt, p,
                    b.create<arith::ConstantIndexOp>(
                        l, padding.before[d] + inSizes[d])));
            real = d == 0 ? ok : b.create<arith::AndIOp>(l, real, ok);
          }
          Value tap = b.create<arith::AddIOp>(
              l,
              b.create<arith::MulIOp>(
                  l, b.create<linalg::IndexOp>(l, 4),
                  b.create<arith::ConstantIndexOp>(l, window[1])),
              b.create<linalg::IndexOp>(l, 5));
          tap = b.create<arith::IndexCastOp>(l, b.getI64Type(), tap);
          // The first maximum wins; a NaN counts as the maximum.
          Value none = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                               bestTap, i64Constant(b, l, 0));
          Value bestIsNan =
              b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNO, best, best);
          Value isNan =
              b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNO, v, v);
          Value greater =
              b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, v, best);
          Value notBestNan = b.create<arith::XOrIOp>(
              l, bestIsNan,
              b.create<arith::ConstantOp>(l, b.getBoolAttr(true)));
          Value better = b.create<arith::OrIOp>(
              l, none,
              b.create<arith::AndIOp>(
                  l, notBestNan, b.create<arith::OrIOp>(l, isNan, greater)));
          Value take = b.create<arith::AndIOp>(l, real, better);
          b.create<linalg::YieldOp>(
              l, ValueRange{b.create<arith::SelectOp>(l, take, v, best),
                            b.create<arith::SelectOp>(l, take, tap, bestTap)});
        });

    // positive_only: a maximum not above zero chooses no tap.
    Value chosen = argmax.getResult(1);
    if (op.getPositiveOnly()) {
      AffineMap identity = rewriter.getMultiDimIdentityMap(4);
      chosen = buildGeneric(
          rewriter, loc, argmax.getResults(), {identity, identity}, tapInit,
          identity, getIterators(4),
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value positive = b.create<arith::CmpFOp>(
                l, arith::CmpFPredicate::OGT, args[0], zero);
            return b.create<arith::SelectOp>(l, positive, args[1], noTap);
          });
    }

    // Stage 2: each input position gathers the windows that chose it.
    Value dx = buildWindowGradient(rewriter, loc, dy, chosen, resultType,
                                   window, strides, padding);
    rewriter.replaceOp(op, dx);
    return success();
  }
};

struct AvgPool2DGradLowering : OpRewritePattern<AvgPool2DGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AvgPool2DGradOp op,
                                PatternRewriter &rewriter) const override {
    Value dy = op.getDy();
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isNhwcWithStaticHwc(dy.getType()) || !isNhwcWithStaticHwc(resultType))
      return rewriter.notifyMatchFailure(
          op, "expected NHWC tensors with static H, W, C");
    Location loc = op.getLoc();
    auto dyType = cast<RankedTensorType>(dy.getType());
    Type elementType = resultType.getElementType();
    SmallVector<int64_t> inputSize = getIntegers(op.getInputSize());
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    WindowPadding padding = getWindowPadding(inputSize, window, strides,
                                             {1, 1}, op.getPadding() == "same");
    int64_t outH = dyType.getDimSize(1), outW = dyType.getDimSize(2);
    // An empty window gets no gradient; divide by 1 to keep it finite.
    Value countsTensor = createWindowCounts(
        rewriter, loc, elementType, inputSize, outH, outW, window, strides,
        padding, /*minimum=*/1);
    Value scaled = buildElementwise(
        rewriter, loc, dyType, tensor::getMixedSizes(rewriter, loc, dy),
        ValueRange{dy, countsTensor},
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::DivFOp>(l, args[0], args[1]);
        });
    Value dx = buildWindowGradient(rewriter, loc, scaled, Value(), resultType,
                                   window, strides, padding);
    rewriter.replaceOp(op, dx);
    return success();
  }
};

/// For each input index along one dim of a resize, the output indices that
/// reach it (in increasing order) and their weights, as the interpreter
/// computes them (f32 coordinates); padded with (-1, 0).
struct ResizeTable {
  int64_t width = 1;
  SmallVector<int64_t> outputs;
  SmallVector<double> weights;
};

ResizeTable buildResizeTable(int64_t in, int64_t out, bool bilinear,
                             bool halfPixel) {
  float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<std::vector<std::pair<int64_t, double>>> taps(in);
  auto add = [&](int64_t input, int64_t output, double weight) {
    auto &list = taps[input];
    if (!list.empty() && list.back().first == output)
      list.back().second += weight;
    else
      list.push_back({output, weight});
  };
  for (int64_t o = 0; o < out; ++o) {
    float src;
    if (!halfPixel)
      src = static_cast<float>(o) * scale;
    else {
      src = (static_cast<float>(o) + 0.5f) * scale;
      if (bilinear)
        src = src - 0.5f;
    }
    if (!bilinear) {
      int64_t index = static_cast<int64_t>(std::floor(src));
      add(std::max<int64_t>(std::min<int64_t>(index, in - 1), 0), o, 1.0);
      continue;
    }
    float floorSrc = std::floor(src);
    int64_t lower = std::max<int64_t>(static_cast<int64_t>(floorSrc), 0);
    int64_t upper =
        std::min<int64_t>(static_cast<int64_t>(std::ceil(src)), in - 1);
    double lerp = static_cast<double>(src - floorSrc);
    add(lower, o, 1 - lerp);
    add(upper, o, lerp);
  }
  ResizeTable table;
  for (auto &list : taps)
    table.width = std::max<int64_t>(table.width, list.size());
  for (auto &list : taps)
    for (int64_t k = 0; k < table.width; ++k) {
      bool real = k < static_cast<int64_t>(list.size());
      table.outputs.push_back(real ? list[k].first : -1);
      table.weights.push_back(real ? list[k].second : 0.0);
    }
  return table;
}

struct ResizeGradLowering : OpRewritePattern<ResizeGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ResizeGradOp op,
                                PatternRewriter &rewriter) const override {
    Value dy = op.getDy();
    auto resultType = cast<RankedTensorType>(op.getType());
    bool bilinear = op.getMode() == "bilinear";
    if (!bilinear && op.getMode() != "nearest")
      return rewriter.notifyMatchFailure(op, "unknown resize mode");
    if (!isNhwcWithStaticHwc(dy.getType()) || !isNhwcWithStaticHwc(resultType))
      return rewriter.notifyMatchFailure(
          op, "expected NHWC tensors with static H, W, C");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto dyType = cast<RankedTensorType>(dy.getType());
    Type elementType = resultType.getElementType();
    auto floatType = cast<FloatType>(elementType);
    SmallVector<int64_t> inputSize = getIntegers(op.getInputSize());

    // Rows first ([n, in_h, out_w, c]), then columns.
    Value current = dy;
    for (int d = 0; d < 2; ++d) {
      int64_t in = inputSize[d], out = dyType.getDimSize(d + 1);
      ResizeTable table =
          buildResizeTable(in, out, bilinear, op.getHalfPixelCenters());
      auto outputsType =
          RankedTensorType::get({in, table.width}, rewriter.getI64Type());
      auto weightsType = RankedTensorType::get({in, table.width}, elementType);
      SmallVector<APFloat> weights;
      for (double w : table.weights) {
        APFloat value(w);
        bool losesInfo;
        value.convert(floatType.getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
        weights.push_back(value);
      }
      Value outputs = rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(outputsType, ArrayRef(table.outputs)));
      Value weightTensor = rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(weightsType, weights));
      auto currentType = cast<RankedTensorType>(current.getType());
      SmallVector<int64_t> shape(currentType.getShape());
      shape[d + 1] = in;
      auto stepType = RankedTensorType::get(shape, elementType);
      Value init = zeroFilledLike(rewriter, loc, stepType, dy);
      // Loops (n, h, w, c, k): the input index is dim d + 1.
      AffineExpr input = getAffineDimExpr(d + 1, ctx),
                 k = getAffineDimExpr(4, ctx);
      AffineMap tableMap = AffineMap::get(5, 0, {input, k}, ctx);
      Value source = current;
      current = buildGeneric(
          rewriter, loc, ValueRange{outputs, weightTensor},
          {tableMap, tableMap}, init,
          AffineMap::getMultiDimIdentityMap(5, ctx).getMajorSubMap(4),
          getIterators(5, {4}),
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value real = b.create<arith::CmpIOp>(
                l, arith::CmpIPredicate::sge, args[0], i64Constant(b, l, 0));
            Value zeroIndex = b.create<arith::ConstantIndexOp>(l, 0);
            Value o = b.create<arith::SelectOp>(
                l, real,
                b.create<arith::IndexCastOp>(l, b.getIndexType(), args[0]),
                zeroIndex);
            SmallVector<Value> at;
            for (int64_t dim = 0; dim < 4; ++dim)
              at.push_back(dim == d + 1
                               ? o
                               : b.create<linalg::IndexOp>(l, dim).getResult());
            Value g = b.create<tensor::ExtractOp>(l, source, at);
            Value sum = b.create<arith::AddFOp>(
                l, args[2], b.create<arith::MulFOp>(l, g, args[1]));
            return b.create<arith::SelectOp>(l, real, sum, args[2]);
          });
    }
    rewriter.replaceOp(op, current);
    return success();
  }
};

struct GatherGradLowering : OpRewritePattern<GatherGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dy = op.getDy(), indices = op.getIndices();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t rank = resultType.getRank(), indexRank = indicesType.getRank();
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Value limit = rewriter.create<arith::ConstantIndexOp>(loc, op.getSize());
    Value outOfRange = buildAnyOutOfRange(rewriter, loc, indices, limit);
    buildErrorReport(rewriter, loc, op, outOfRange, kErrorOutOfRange);

    SmallVector<OpFoldResult> sizes;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (dim < *axis)
        sizes.push_back(tensor::getMixedSize(rewriter, loc, dy, dim));
      else if (dim == *axis)
        sizes.push_back(rewriter.getIndexAttr(op.getSize()));
      else
        sizes.push_back(
            tensor::getMixedSize(rewriter, loc, dy, dim - 1 + indexRank));
    }
    Type elementType = resultType.getElementType();
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value table = createFilled(rewriter, loc, resultType, sizes, zero);

    // Loops: index dims (outermost, like the interpreter), outer, inner.
    SmallVector<int64_t> loopDims; // dims of dy
    for (int64_t dim = 0; dim < indexRank; ++dim)
      loopDims.push_back(*axis + dim);
    for (int64_t dim = 0; dim < *axis; ++dim)
      loopDims.push_back(dim);
    for (int64_t dim = *axis + indexRank; dim < rank - 1 + indexRank; ++dim)
      loopDims.push_back(dim);
    SmallVector<Value> lbs, ubs, steps;
    Value zeroIndex = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
    for (int64_t dim : loopDims) {
      lbs.push_back(zeroIndex);
      ubs.push_back(getDimValue(rewriter, loc, dy, dim));
      steps.push_back(one);
    }
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{table},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iterArgs) -> scf::ValueVector {
          SmallVector<Value> dyAt(ivs.size());
          for (auto [dim, iv] : llvm::zip(loopDims, ivs))
            dyAt[dim] = iv;
          SmallVector<Value> indexAt(dyAt.begin() + *axis,
                                     dyAt.begin() + *axis + indexRank);
          Value index = b.create<tensor::ExtractOp>(l, indices, indexAt);
          SmallVector<Value> tableAt(dyAt.begin(), dyAt.begin() + *axis);
          tableAt.push_back(buildClampedIndex(b, l, index, limit));
          tableAt.append(dyAt.begin() + *axis + indexRank, dyAt.end());
          Value g = b.create<tensor::ExtractOp>(l, dy, dyAt);
          Value old = b.create<tensor::ExtractOp>(l, iterArgs[0], tableAt);
          Value sum = b.create<arith::AddFOp>(l, old, g);
          return {b.create<tensor::InsertOp>(l, sum, iterArgs[0], tableAt)};
        });
    rewriter.replaceOp(op, nest.results.empty() ? table : nest.results[0]);
    return success();
  }
};


//===----------------------------------------------------------------------===//
// Runtime kernel calls
//===----------------------------------------------------------------------===//

/// graph.max_pool2d_grad through the runtime's kernel (one pass over x and
/// dy per image instead of the linalg lowering's window argmax and gather).
struct MaxPool2DGradToKernel : OpRewritePattern<MaxPool2DGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DGradOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX(), dy = op.getDy();
    auto xType = cast<RankedTensorType>(x.getType());
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isStaticF32Nhwc(xType) || !isStaticF32Nhwc(dyType))
      return rewriter.notifyMatchFailure(op, "not a static float32 NHWC pool");
    SmallVector<int64_t> window = getIntegers(op.getWindow());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), window, strides,
                         {1, 1}, op.getPadding() == "same");
    Location loc = op.getLoc();
    Value output = allocResultLike(rewriter, loc, resultType, x);
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_max_pool2d_grad_f32{
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
                       .oh = dyType.getDimSize(1),
                       .ow = dyType.getDimSize(2),
                       .positive_only = op.getPositiveOnly() ? 1 : 0,
                       .dy = dy,
                       .dx = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// Checks the operands of a float32, groups = 1 convolution gradient: NHWC
/// tensors with static H, W, C and a static kernel (or kernel size).
bool isKernelConvGradient(ArrayRef<Type> nhwc, Type kernel, int64_t groups) {
  if (groups != 1)
    return false;
  if (!llvm::all_of(nhwc, isStaticF32Nhwc))
    return false;
  auto kernelType = cast<RankedTensorType>(kernel);
  return kernelType.getRank() == 4 && kernelType.hasStaticShape() &&
         kernelType.getElementType().isF32();
}

/// conv2d_backprop_input as a stride-1 forward convolution of dy:
///   dx[n, ih, iw, ci] = sum over (i', j', co) of
///     dy[n, ih - P_h + i' * d_h, iw - P_w + j' * d_w, co] * W'[i', j', co, ci]
/// with W'[i', j', co, ci] = kernel[kh-1-i', kw-1-j', ci, co] (flipped, in and
/// out channels swapped; a small linalg.generic per step, packed at run
/// time) and P = (k - 1) * d - pad_before. A stride s > 1 is stride 1 over
/// dy spread out with s - 1 zeros between its elements (s^2 times the
/// multiply-adds, at the convolution kernel's speed). Groups > 1 stay on the
/// linalg lowering. A 3x3 kernel of dilation 1 whose stride-1 convolution
/// isWinogradConv takes (the mnist_cnn_train conv2's gradient: 11x11x64 ->
/// 13x13x32, pad 2) goes to the Winograd kernel instead, W' transformed at
/// run time (or compile time) by packWinogradWeights.
struct Conv2DBackpropInputToKernel : OpRewritePattern<Conv2DBackpropInputOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackpropInputOp op,
                                PatternRewriter &rewriter) const override {
    Value dy = op.getDy(), kernel = op.getKernel();
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    SmallVector<int64_t> dilations = getIntegers(op.getDilations());
    if (!isKernelConvGradient({dy.getType(), resultType}, kernel.getType(),
                              op.getGroups()))
      return rewriter.notifyMatchFailure(
          op, "not a float32 static groups-1 NHWC gradient");
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto kernelType = cast<RankedTensorType>(kernel.getType());
    int64_t kh = kernelType.getDimSize(0), kw = kernelType.getDimSize(1);
    int64_t in = kernelType.getDimSize(2), out = kernelType.getDimSize(3);
    SmallVector<int64_t> inputSize = getIntegers(op.getInputSize());
    WindowPadding padding = getWindowPadding(
        inputSize, {kh, kw}, strides, dilations, op.getPadding() == "same");
    int64_t padTop = (kh - 1) * dilations[0] - padding.before[0];
    int64_t padLeft = (kw - 1) * dilations[1] - padding.before[1];
    if (padTop < 0 || padLeft < 0 || dyType.getDimSize(3) != out ||
        resultType.getDimSize(3) != in)
      return rewriter.notifyMatchFailure(op, "unsupported padding");

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    if (strides[0] != 1 || strides[1] != 1) {
      // dy' holds dy[n, r, s, c] at [n, r * sh, s * sw, c] and zeros between:
      // the stride-1 gradient over dy' is the strided gradient over dy.
      auto dilatedType = RankedTensorType::get(
          {dyType.getDimSize(0), (dyType.getDimSize(1) - 1) * strides[0] + 1,
           (dyType.getDimSize(2) - 1) * strides[1] + 1, out},
          rewriter.getF32Type());
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, dy);
      SmallVector<OpFoldResult> dilatedSizes = {
          sizes[0], rewriter.getIndexAttr(dilatedType.getDimSize(1)),
          rewriter.getIndexAttr(dilatedType.getDimSize(2)), sizes[3]};
      Value zeros = createFilled(
          rewriter, loc, dilatedType, dilatedSizes,
          createScalarConstant(rewriter, loc, rewriter.getF32Type(), 0.0));
      SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> steps = {
          rewriter.getIndexAttr(1), rewriter.getIndexAttr(strides[0]),
          rewriter.getIndexAttr(strides[1]), rewriter.getIndexAttr(1)};
      dy = rewriter.create<tensor::InsertSliceOp>(loc, dy, zeros, offsets,
                                                  sizes, steps);
      dyType = dilatedType;
    }
    auto transformedType =
        RankedTensorType::get({kh, kw, out, in}, rewriter.getF32Type());
    Value transformed;
    if (std::optional<std::vector<float>> values = getConstantFloats(kernel)) {
      std::vector<float> flipped(values->size());
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          for (int64_t co = 0; co < out; ++co)
            for (int64_t ci = 0; ci < in; ++ci)
              flipped[((i * kw + j) * out + co) * in + ci] =
                  (*values)[(((kh - 1 - i) * kw + (kw - 1 - j)) * in + ci) *
                                out +
                            co];
      transformed = rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(transformedType, ArrayRef<float>(flipped)));
    } else {
      AffineExpr d0, d1, d2, d3;
      bindDims(ctx, d0, d1, d2, d3);
      Value init = rewriter.create<tensor::EmptyOp>(
          loc, transformedType.getShape(), rewriter.getF32Type());
      transformed = buildGeneric(
          rewriter, loc, kernel,
          AffineMap::get(4, 0, {(kh - 1) - d0, (kw - 1) - d1, d3, d2}, ctx),
          init, rewriter.getMultiDimIdentityMap(4), getIterators(4),
          [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    }
    int64_t dyHeight = dyType.getDimSize(1), dyWidth = dyType.getDimSize(2);
    int64_t oh = resultType.getDimSize(1), ow = resultType.getDimSize(2);
    if (isWinogradConv(dyHeight, dyWidth, out, in, oh, ow, {kh, kw}, {1, 1},
                       dilations,
                       /*runtimeTransform=*/!getConstantFloats(kernel))) {
      Value weights = packWinogradWeights(rewriter, loc, transformed, out, in);
      Value output = allocResultLike(rewriter, loc, resultType, dy);
      emitKernelCall(rewriter, loc,
                     kernels::tfcc_rt_conv2d_winograd_f32{
                         .x = dy,
                         .n = getDimValue(rewriter, loc, dy, 0),
                         .h = dyHeight,
                         .w = dyWidth,
                         .c = out,
                         .packed_weights = weights,
                         .oc = in,
                         .pad_top = padTop,
                         .pad_left = padLeft,
                         .oh = oh,
                         .ow = ow,
                         .bias = nullptr,
                         .residual = nullptr,
                         .activation = TFCC_ACT_NONE,
                         .alpha = 0,
                         .beta = 0,
                         .y = output});
      rewriter.replaceOp(op,
                         toResultTensor(rewriter, loc, resultType, output));
      return success();
    }
    Value weights =
        packGemmWeights(rewriter, loc, transformed, kh * kw * out, in);
    Value output = allocResultLike(rewriter, loc, resultType, dy);
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_conv2d_f32{
                       .x = dy,
                       .n = getDimValue(rewriter, loc, dy, 0),
                       .h = dyHeight,
                       .w = dyWidth,
                       .c = out,
                       .packed_weights = weights,
                       .oc = in,
                       .kh = kh,
                       .kw = kw,
                       .stride_h = 1,
                       .stride_w = 1,
                       .dil_h = dilations[0],
                       .dil_w = dilations[1],
                       .pad_top = padTop,
                       .pad_left = padLeft,
                       .oh = oh,
                       .ow = ow,
                       .bias = nullptr,
                       .residual = nullptr,
                       .activation = TFCC_ACT_NONE,
                       .alpha = 0,
                       .beta = 0,
                       .y = output});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

/// conv2d_backprop_filter as one GEMM: dk viewed as [kh*kw*ci, co] =
/// im2col(x)^T [kh*kw*ci, n*oh*ow] @ dy [n*oh*ow, co], the im2col matrix
/// (rows (n, oh, ow), columns (i, j, ci)) materialized by a linalg.generic
/// over the zero-padded input, or x itself for a 1x1 stride-1 unpadded
/// kernel. Groups > 1 stay on the linalg lowering.
struct Conv2DBackpropFilterToKernel
    : OpRewritePattern<Conv2DBackpropFilterOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DBackpropFilterOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX(), dy = op.getDy();
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!isKernelConvGradient({x.getType(), dy.getType()}, resultType,
                              op.getGroups()))
      return rewriter.notifyMatchFailure(
          op, "not a float32 static groups-1 NHWC gradient");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto xType = cast<RankedTensorType>(x.getType());
    auto dyType = cast<RankedTensorType>(dy.getType());
    SmallVector<int64_t> kernelSize = getIntegers(op.getKernelSize());
    SmallVector<int64_t> strides = getIntegers(op.getStrides());
    SmallVector<int64_t> dilations = getIntegers(op.getDilations());
    int64_t kh = kernelSize[0], kw = kernelSize[1];
    int64_t in = xType.getDimSize(3), out = dyType.getDimSize(3);
    int64_t oh = dyType.getDimSize(1), ow = dyType.getDimSize(2);
    if (resultType.getShape() != ArrayRef<int64_t>{kh, kw, in, out})
      return rewriter.notifyMatchFailure(op, "unexpected kernel shape");
    WindowPadding padding =
        getWindowPadding(xType.getShape().slice(1, 2), kernelSize, strides,
                         dilations, op.getPadding() == "same");

    bool unitSteps = strides[0] == 1 && strides[1] == 1 && dilations[0] == 1 &&
                     dilations[1] == 1;
    // Stride 1, a window: the runtime reads the (padded) input in place
    // through per-row tap offsets instead of an im2col matrix kh * kw times
    // the input's size.
    if (unitSteps && kh * kw > 1 && ow <= 1024) {
      Value zero =
          createScalarConstant(rewriter, loc, rewriter.getF32Type(), 0.0);
      Value padded = padSpatial(rewriter, loc, x, padding, zero);
      auto paddedType = cast<RankedTensorType>(padded.getType());
      Value output = allocResult(rewriter, loc, resultType, {});
      emitKernelCall(rewriter, loc,
                     kernels::tfcc_rt_conv2d_filter_grad_f32{
                         .x = padded,
                         .n = getDimValue(rewriter, loc, padded, 0),
                         .h = paddedType.getDimSize(1),
                         .w = paddedType.getDimSize(2),
                         .c = paddedType.getDimSize(3),
                         .kh = kh,
                         .kw = kw,
                         .dy = dy,
                         .oh = oh,
                         .ow = ow,
                         .co = out,
                         .dk = output,
                         .flags = bf16OperandsFlag(op)});
      rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
      return success();
    }
    Value columns = x;
    bool direct = kh == 1 && kw == 1 && unitSteps && padding.isZero() &&
                  xType.getDimSize(1) == oh && xType.getDimSize(2) == ow;
    if (!direct) {
      Value zero =
          createScalarConstant(rewriter, loc, rewriter.getF32Type(), 0.0);
      Value padded = padSpatial(rewriter, loc, x, padding, zero);
      auto columnsType = RankedTensorType::get(
          {xType.getDimSize(0), oh, ow, kh, kw, in}, rewriter.getF32Type());
      SmallVector<OpFoldResult> sizes = {
          tensor::getMixedSize(rewriter, loc, x, 0), rewriter.getIndexAttr(oh),
          rewriter.getIndexAttr(ow), rewriter.getIndexAttr(kh),
          rewriter.getIndexAttr(kw), rewriter.getIndexAttr(in)};
      Value init = createEmpty(rewriter, loc, columnsType, sizes);
      AffineExpr n, r, s, i, j, c;
      bindDims(ctx, n, r, s, i, j, c);
      columns = buildGeneric(
          rewriter, loc, padded,
          AffineMap::get(6, 0,
                         {n, r * strides[0] + i * dilations[0],
                          s * strides[1] + j * dilations[1], c},
                         ctx),
          init, rewriter.getMultiDimIdentityMap(6), getIterators(6),
          [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    }
    int64_t m = kh * kw * in;
    Value rows = getDimsProduct(rewriter, loc, dy, {0, 1, 2});
    Value output = allocResult(rewriter, loc, resultType, {});
    emitKernelCall(rewriter, loc,
                   kernels::tfcc_rt_sgemm{.batch = 1,
                                          .M = m,
                                          .N = out,
                                          .K = rows,
                                          .A = columns,
                                          .lda = m,
                                          .stride_a = 0,
                                          .trans_a = 1,
                                          .B = dy,
                                          .ldb = out,
                                          .stride_b = 0,
                                          .trans_b = 0,
                                          .b_packed = 0,
                                          .C = output,
                                          .ldc = out,
                                          .stride_c = 0,
                                          .bias = nullptr,
                                          .residual = nullptr,
                                          .activation = TFCC_ACT_NONE,
                                          .alpha = 0,
                                          .beta = 0});
    rewriter.replaceOp(op, toResultTensor(rewriter, loc, resultType, output));
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphTrainingToLinalgPatterns(
    RewritePatternSet &patterns, bool kernelCalls) {
  patterns.add<DropoutMaskLowering, BroadcastLikeLowering, ElementCountLowering,
               Conv2DBackpropInputLowering, Conv2DBackpropFilterLowering,
               MaxPool2DGradLowering, AvgPool2DGradLowering,
               ResizeGradLowering, GatherGradLowering>(patterns.getContext());
  if (kernelCalls)
    patterns.add<MaxPool2DGradToKernel, Conv2DBackpropInputToKernel,
                 Conv2DBackpropFilterToKernel>(patterns.getContext(),
                                               /*benefit=*/2);
}
