//===- Shape.cpp - graph shape ops to tensor and linalg -------------------===//
//
// reshape: collapse to 1-D, then expand to the result (views, no copy; the
// one dynamic result dim is the element count over the static ones); with
// several dynamic dims kept in order, collapse and expand around each.
// transpose: linalg.transpose. concat: tensor.insert_slice of each operand
// into a tensor.empty. slice: tensor.extract_slice. pad: tensor.pad (constant
// mode). reflect and edge pad, resize and gather: a linalg.generic over the
// result reading the source with tensor.extract at computed (always
// in-bounds) positions.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/IR/GraphOps.h"
#include "dialects/graph/IR/ShapeInference.h"
#include "passes/GraphToLinalg/Utils.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tfcc;
using namespace mlir::graph;

namespace {

/// `value` as a rank-1 tensor of `flatType`, by collapse_shape (or
/// expand_shape from rank 0) and a tensor.cast where the static-ness differs.
Value flatten(OpBuilder &b, Location loc, Value value,
              RankedTensorType flatType) {
  auto type = cast<RankedTensorType>(value.getType());
  Value flat = value;
  if (type.getRank() == 0) {
    auto oneType = RankedTensorType::get({1}, type.getElementType());
    flat = b.create<tensor::ExpandShapeOp>(loc, oneType, value,
                                           ArrayRef<ReassociationIndices>{});
  } else if (type.getRank() > 1) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    flat = b.create<tensor::CollapseShapeOp>(
        loc, value, ArrayRef<ReassociationIndices>{all});
  }
  if (flat.getType() != flatType)
    flat = b.create<tensor::CastOp>(loc, flatType, flat);
  return flat;
}

/// Groups of consecutive dims of `shape` holding one dynamic dim each: the
/// static dims before the first dynamic one and after each join its group.
SmallVector<ReassociationIndices> dynamicGroups(ArrayRef<int64_t> shape) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
    if (ShapedType::isDynamic(shape[i])) {
      groups.push_back(leading);
      leading.clear();
      groups.back().push_back(i);
    } else if (groups.empty()) {
      leading.push_back(i);
    } else {
      groups.back().push_back(i);
    }
  }
  return groups;
}

/// A reshape keeping several dynamic dims in order (isOrderPreservingReshape):
/// both shapes collapse, one dynamic dim per group, to the same [?, ..., ?]
/// (the static products around each dynamic dim agree), then expand to the
/// result with the input's dynamic sizes.
Value lowerOrderPreservingReshape(OpBuilder &b, Location loc, Value x,
                                  RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<ReassociationIndices> inGroups = dynamicGroups(type.getShape());
  SmallVector<ReassociationIndices> outGroups =
      dynamicGroups(resultType.getShape());
  Value collapsed = b.create<tensor::CollapseShapeOp>(loc, x, inGroups);
  SmallVector<OpFoldResult> sizes;
  int64_t carried = 0;
  SmallVector<int64_t> dynamicDims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicDims.push_back(d);
  for (int64_t size : resultType.getShape())
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(b.create<tensor::DimOp>(
                                            loc, x, dynamicDims[carried++])
                                           .getResult())
                        : OpFoldResult(b.getIndexAttr(size)));
  return b.create<tensor::ExpandShapeOp>(loc, resultType, collapsed, outGroups,
                                         sizes);
}

struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto type = cast<RankedTensorType>(x.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (resultType.getNumDynamicDims() > 1) {
      if (!isOrderPreservingReshape(type.getShape(), resultType.getShape()))
        return rewriter.notifyMatchFailure(op,
                                           "more than one dynamic result dim");
      rewriter.replaceOp(
          op, lowerOrderPreservingReshape(rewriter, loc, x, resultType));
      return success();
    }
    int64_t flatSize = resultType.hasStaticShape() ? resultType.getNumElements()
                                                   : ShapedType::kDynamic;
    auto flatType = RankedTensorType::get({flatSize}, type.getElementType());
    Value flat = flatten(rewriter, loc, x, flatType);
    if (resultType.getRank() == 1) {
      rewriter.replaceOp(op, flat);
      return success();
    }
    if (resultType.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          op, resultType, flat, ArrayRef<ReassociationIndices>{});
      return success();
    }
    // The dynamic dim, if any, is what the static ones leave of the count.
    SmallVector<OpFoldResult> sizes;
    int64_t staticCount = 1;
    for (int64_t size : resultType.getShape())
      if (!ShapedType::isDynamic(size))
        staticCount *= size;
    for (int64_t size : resultType.getShape()) {
      if (!ShapedType::isDynamic(size)) {
        sizes.push_back(rewriter.getIndexAttr(size));
        continue;
      }
      Value total = getDimsProduct(
          rewriter, loc, x,
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
      Value divisor = rewriter.create<arith::ConstantIndexOp>(loc, staticCount);
      sizes.push_back(
          rewriter.create<arith::DivUIOp>(loc, total, divisor).getResult());
    }
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank()));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, resultType, flat, ArrayRef<ReassociationIndices>{all}, sizes);
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<int64_t> perm = getIntegers(op.getPerm());
    SmallVector<OpFoldResult> sourceSizes =
        tensor::getMixedSizes(rewriter, loc, op.getX());
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : perm)
      sizes.push_back(sourceSizes[p]);
    Value init =
        createEmpty(rewriter, loc, cast<RankedTensorType>(op.getType()), sizes);
    auto transpose =
        rewriter.create<linalg::TransposeOp>(loc, op.getX(), init, perm);
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

/// a + b on index values that may be static.
OpFoldResult addSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs) {
  std::optional<int64_t> l = getConstantIntValue(lhs),
                         r = getConstantIntValue(rhs);
  if (l && r)
    return b.getIndexAttr(*l + *r);
  return b
      .create<arith::AddIOp>(loc, getValueOrCreateConstantIndexOp(b, loc, lhs),
                             getValueOrCreateConstantIndexOp(b, loc, rhs))
      .getResult();
}

struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    std::optional<int64_t> axis =
        normalizeAxis(op.getAxis(), resultType.getRank());
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    // Sizes: the first operand's, but along the axis the sum of all.
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, op.getInputs()[0]);
    for (Value input : op.getInputs().drop_front())
      sizes[*axis] =
          addSizes(rewriter, loc, sizes[*axis],
                   tensor::getMixedSize(rewriter, loc, input, *axis));
    for (auto [dim, size] : llvm::enumerate(resultType.getShape()))
      if (!ShapedType::isDynamic(size))
        sizes[dim] = rewriter.getIndexAttr(size);
    Value result = createEmpty(rewriter, loc, resultType, sizes);

    SmallVector<OpFoldResult> offsets(resultType.getRank(),
                                      rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(resultType.getRank(),
                                      rewriter.getIndexAttr(1));
    for (Value input : op.getInputs()) {
      SmallVector<OpFoldResult> inputSizes =
          tensor::getMixedSizes(rewriter, loc, input);
      result = rewriter.create<tensor::InsertSliceOp>(
          loc, input, result, offsets, inputSizes, strides);
      offsets[*axis] =
          addSizes(rewriter, loc, offsets[*axis], inputSizes[*axis]);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> starts = getIntegers(op.getStarts());
    SmallVector<int64_t> limits = getIntegers(op.getLimits());
    SmallVector<int64_t> steps = op.getStrides()
                                     ? getIntegers(*op.getStrides())
                                     : SmallVector<int64_t>(rank, 1);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t dim = 0; dim < rank; ++dim) {
      offsets.push_back(rewriter.getIndexAttr(starts[dim]));
      strides.push_back(rewriter.getIndexAttr(steps[dim]));
      if (!resultType.isDynamicDim(dim)) {
        sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(dim)));
        continue;
      }
      // ceil((limit - start) / stride), the limit -1 meaning the dim's end.
      Value limit =
          limits[dim] == -1
              ? getDimValue(rewriter, loc, op.getX(), dim)
              : rewriter.create<arith::ConstantIndexOp>(loc, limits[dim]);
      Value extent = rewriter.create<arith::SubIOp>(
          loc, limit,
          rewriter.create<arith::ConstantIndexOp>(loc, starts[dim]));
      if (steps[dim] == 1) {
        sizes.push_back(extent);
        continue;
      }
      Value step = rewriter.create<arith::ConstantIndexOp>(loc, steps[dim]);
      sizes.push_back(
          rewriter.create<arith::CeilDivSIOp>(loc, extent, step).getResult());
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, op.getX(), offsets, sizes, strides);
    return success();
  }
};

/// Where result index `dst` of a reflect or edge pad reads along a dimension
/// of `size` elements padded by `low` in front: src = dst - low, then edge
/// clamps it to [0, size - 1] and reflect mirrors it about the edge elements
/// as min(|src|, 2 * (size - 1) - |src|) (exact while the pads are < size).
Value buildPadSource(OpBuilder &b, Location loc, Value dst, int64_t low,
                     Value size, bool reflect) {
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value src = b.create<arith::SubIOp>(
      loc, dst, b.create<arith::ConstantIndexOp>(loc, low));
  Value last = b.create<arith::SubIOp>(loc, size, one);
  if (!reflect)
    return b.create<arith::MinSIOp>(
        loc, b.create<arith::MaxSIOp>(loc, src, zero), last);
  Value magnitude = b.create<arith::MaxSIOp>(
      loc, src, b.create<arith::SubIOp>(loc, zero, src));
  Value mirrored = b.create<arith::SubIOp>(
      loc, b.create<arith::AddIOp>(loc, last, last), magnitude);
  return b.create<arith::MinSIOp>(loc, magnitude, mirrored);
}

/// Reflect and edge padding: a linalg.generic over the result reading the
/// input with tensor.extract at the mirrored or clamped position.
LogicalResult lowerIndexedPad(PadOp op, ArrayRef<int64_t> pads,
                              PatternRewriter &rewriter) {
  bool reflect = op.getMode() == "reflect";
  if (!reflect && op.getMode() != "edge")
    return rewriter.notifyMatchFailure(op, "unknown pad mode");
  Location loc = op.getLoc();
  Value x = op.getX();
  auto resultType = cast<RankedTensorType>(op.getType());
  int64_t rank = resultType.getRank();
  SmallVector<Value> inSizes;
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim = 0; dim < rank; ++dim) {
    inSizes.push_back(getDimValue(rewriter, loc, x, dim));
    if (!resultType.isDynamicDim(dim)) {
      sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(dim)));
      continue;
    }
    Value extra = rewriter.create<arith::ConstantIndexOp>(
        loc, pads[2 * dim] + pads[2 * dim + 1]);
    sizes.push_back(
        rewriter.create<arith::AddIOp>(loc, inSizes[dim], extra).getResult());
  }
  // A dynamic dimension too small for its pads (reflect: size <= pad; edge:
  // size 0) is reported at run time (code 2); reflect then clamps the read.
  auto xType = cast<RankedTensorType>(x.getType());
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t widest = std::max(pads[2 * dim], pads[2 * dim + 1]);
    if (!xType.isDynamicDim(dim) || widest == 0)
      continue;
    Value bound =
        rewriter.create<arith::ConstantIndexOp>(loc, reflect ? widest : 0);
    Value tooSmall = rewriter.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sle, inSizes[dim], bound);
    buildErrorReport(rewriter, loc, op, tooSmall, kErrorOutOfRange);
  }
  Value init = createEmpty(rewriter, loc, resultType, sizes);
  Value result = buildGeneric(
      rewriter, loc, ValueRange{}, {}, init,
      rewriter.getMultiDimIdentityMap(rank), getIterators(rank),
      [&](OpBuilder &b, Location l, ValueRange) -> Value {
        SmallVector<Value> position;
        for (int64_t dim = 0; dim < rank; ++dim) {
          Value dst = b.create<linalg::IndexOp>(l, dim);
          if (pads[2 * dim] == 0 && pads[2 * dim + 1] == 0) {
            position.push_back(dst);
            continue;
          }
          Value src = buildPadSource(b, l, dst, pads[2 * dim], inSizes[dim],
                                     reflect);
          if (reflect && xType.isDynamicDim(dim))
            src = b.create<arith::MinSIOp>(
                l,
                b.create<arith::MaxSIOp>(
                    l, src, b.create<arith::ConstantIndexOp>(l, 0)),
                b.create<arith::SubIOp>(
                    l, inSizes[dim], b.create<arith::ConstantIndexOp>(l, 1)));
          position.push_back(src);
        }
        return b.create<tensor::ExtractOp>(l, x, position);
      });
  rewriter.replaceOp(op, result);
  return success();
}

/// constant: tensor.pad; reflect and edge: lowerIndexedPad.
struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> pads = getIntegers(op.getPads());
    SmallVector<OpFoldResult> low, high;
    for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
      low.push_back(rewriter.getIndexAttr(pads[2 * dim]));
      high.push_back(rewriter.getIndexAttr(pads[2 * dim + 1]));
    }
    if (op.getMode() != "constant")
      return lowerIndexedPad(op, pads, rewriter);
    // The f32 `value` converted to the element type (booleans: value != 0).
    Type elementType = resultType.getElementType();
    double value = op.getValue().convertToDouble();
    if (elementType.isInteger(1))
      value = value != 0.0 ? 1.0 : 0.0;
    Value padValue = createScalarConstant(rewriter, loc, elementType, value);
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, resultType, op.getX(), low,
                                               high, padValue);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// resize
//===----------------------------------------------------------------------===//

/// Where output coordinate `dst` reads along one dimension (as the reference
/// computes it, in f32): with half-pixel centers (dst + 0.5) * scale, minus
/// 0.5 for bilinear; else dst * scale.
Value resizeSource(OpBuilder &b, Location loc, Value dst, Value scale,
                   bool halfPixelCenters, bool bilinear) {
  Type f32 = b.getF32Type();
  Value position = castIndexTo(b, loc, dst, f32);
  if (!halfPixelCenters)
    return b.create<arith::MulFOp>(loc, position, scale);
  Value half = createScalarConstant(b, loc, f32, 0.5);
  Value source = b.create<arith::MulFOp>(
      loc, b.create<arith::AddFOp>(loc, position, half), scale);
  return bilinear ? b.create<arith::SubFOp>(loc, source, half).getResult()
                  : source;
}

/// An f32 coordinate rounded by `RoundOp` (floor or ceil) to an index in
/// [0, size - 1].
template <typename RoundOp>
Value roundToIndex(OpBuilder &b, Location loc, Value source, Value size) {
  Value rounded = b.create<RoundOp>(loc, source);
  Value asInt = b.create<arith::FPToSIOp>(loc, b.getI64Type(), rounded);
  return buildClampedIndex(b, loc, asInt, size);
}

struct ResizeLowering : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto resultType = cast<RankedTensorType>(op.getType());
    bool bilinear = op.getMode() == "bilinear";
    if (!bilinear && op.getMode() != "nearest")
      return rewriter.notifyMatchFailure(op, "unknown resize mode");
    Type elementType = resultType.getElementType();
    if (!(elementType.isF32() || elementType.isF64()) ||
        resultType.getRank() != 4)
      return rewriter.notifyMatchFailure(op,
                                         "expected an f32 or f64 NHWC image");
    bool halfPixel = op.getHalfPixelCenters();
    Type f32 = rewriter.getF32Type();

    // scale = in / out per spatial dim, in f32 like the reference.
    Value inSizes[2], scales[2];
    for (int i = 0; i < 2; ++i) {
      inSizes[i] = getDimValue(rewriter, loc, x, i + 1);
      Value in = castIndexTo(rewriter, loc, inSizes[i], f32);
      Value out = createScalarConstant(rewriter, loc, f32,
                                       resultType.getDimSize(i + 1));
      scales[i] = rewriter.create<arith::DivFOp>(loc, in, out);
    }
    SmallVector<OpFoldResult> sizes =
        getBroadcastSizes(rewriter, loc, resultType, x);
    Value init = createEmpty(rewriter, loc, resultType, sizes);
    AffineMap identity = rewriter.getMultiDimIdentityMap(4);
    Value result = buildGeneric(
        rewriter, loc, ValueRange{}, {}, init, identity, getIterators(4),
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value n = b.create<linalg::IndexOp>(l, 0),
                c = b.create<linalg::IndexOp>(l, 3);
          Value source[2];
          for (int i = 0; i < 2; ++i)
            source[i] = resizeSource(b, l, b.create<linalg::IndexOp>(l, i + 1),
                                     scales[i], halfPixel, bilinear);
          auto at = [&](Value h, Value w) -> Value {
            return b.create<tensor::ExtractOp>(l, x, ValueRange{n, h, w, c});
          };
          if (!bilinear)
            return at(roundToIndex<math::FloorOp>(b, l, source[0], inSizes[0]),
                      roundToIndex<math::FloorOp>(b, l, source[1], inSizes[1]));
          // Bilinear: taps floor/ceil (clamped), weight of the upper tap
          // src - floor(src).
          Value lower[2], upper[2], lerp[2];
          for (int i = 0; i < 2; ++i) {
            lower[i] = roundToIndex<math::FloorOp>(b, l, source[i], inSizes[i]);
            upper[i] = roundToIndex<math::CeilOp>(b, l, source[i], inSizes[i]);
            lerp[i] = b.create<arith::SubFOp>(
                l, source[i], b.create<math::FloorOp>(l, source[i]));
            // Coordinates stay f32 like the reference; f64 images mix in f64.
            if (elementType != f32)
              lerp[i] = b.create<arith::ExtFOp>(l, elementType, lerp[i]);
          }
          auto mix = [&](Value from, Value to, Value weight) -> Value {
            Value delta = b.create<arith::SubFOp>(l, to, from);
            return b.create<arith::AddFOp>(
                l, from, b.create<arith::MulFOp>(l, delta, weight));
          };
          Value top =
              mix(at(lower[0], lower[1]), at(lower[0], upper[1]), lerp[1]);
          Value bottom =
              mix(at(upper[0], lower[1]), at(upper[0], upper[1]), lerp[1]);
          return mix(top, bottom, lerp[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

/// result[o..., j..., i...] = table[o..., indices[j...], i...]. Indices out
/// of [0, table.shape[axis]) call the runtime's error report (code 2) and are
/// clamped, so the read stays in bounds.
struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value table = op.getTable(), indices = op.getIndices();
    auto tableType = cast<RankedTensorType>(table.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    std::optional<int64_t> axis =
        normalizeAxis(op.getAxis(), tableType.getRank());
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t indexRank = indicesType.getRank(), rank = resultType.getRank();

    Value limit = getDimValue(rewriter, loc, table, *axis);
    Value outOfRange = buildAnyOutOfRange(rewriter, loc, indices, limit);
    buildErrorReport(rewriter, loc, op, outOfRange, kErrorOutOfRange);

    SmallVector<OpFoldResult> sizes;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (dim < *axis)
        sizes.push_back(tensor::getMixedSize(rewriter, loc, table, dim));
      else if (dim < *axis + indexRank)
        sizes.push_back(
            tensor::getMixedSize(rewriter, loc, indices, dim - *axis));
      else
        sizes.push_back(
            tensor::getMixedSize(rewriter, loc, table, dim - indexRank + 1));
    }
    Value init = createEmpty(rewriter, loc, resultType, sizes);
    SmallVector<AffineExpr> indexExprs;
    for (int64_t dim = 0; dim < indexRank; ++dim)
      indexExprs.push_back(getAffineDimExpr(*axis + dim, ctx));
    AffineMap indicesMap = AffineMap::get(rank, 0, indexExprs, ctx);
    Value result = buildGeneric(
        rewriter, loc, indices, indicesMap, init,
        rewriter.getMultiDimIdentityMap(rank), getIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          SmallVector<Value> position;
          for (int64_t dim = 0; dim < *axis; ++dim)
            position.push_back(b.create<linalg::IndexOp>(l, dim));
          position.push_back(buildClampedIndex(b, l, args[0], limit));
          for (int64_t dim = *axis + indexRank; dim < rank; ++dim)
            position.push_back(b.create<linalg::IndexOp>(l, dim));
          return b.create<tensor::ExtractOp>(l, table, position);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// result[p] = data[p with p[axis] = indices[p]]: one generic over the
/// indices' shape. Indices out of [0, data.shape[axis]) call the runtime's
/// error report (code 2) and are clamped, so the read stays in bounds.
struct GatherElementsLowering : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = op.getData(), indices = op.getIndices();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "axis out of range");

    Value limit = getDimValue(rewriter, loc, data, *axis);
    Value outOfRange = buildAnyOutOfRange(rewriter, loc, indices, limit);
    buildErrorReport(rewriter, loc, op, outOfRange, kErrorOutOfRange);
    // The verifier checks static dimensions; a dynamic dimension of indices
    // larger than data's is reported, and its positions are clamped.
    auto dataType = cast<RankedTensorType>(data.getType());
    SmallVector<Value> lastOf(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == *axis ||
          (!dataType.isDynamicDim(d) && !resultType.isDynamicDim(d)))
        continue;
      Value dataDim = getDimValue(rewriter, loc, data, d);
      Value larger = rewriter.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::sgt,
          getDimValue(rewriter, loc, indices, d), dataDim);
      buildErrorReport(rewriter, loc, op, larger, kErrorOutOfRange);
      lastOf[d] = rewriter.create<arith::SubIOp>(
          loc, dataDim, rewriter.create<arith::ConstantIndexOp>(loc, 1));
    }

    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, indices, d));
    Value init = createEmpty(rewriter, loc, resultType, sizes);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    Value result = buildGeneric(
        rewriter, loc, indices, identity, init, identity, getIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d) {
            if (d == *axis) {
              position.push_back(buildClampedIndex(b, l, args[0], limit));
              continue;
            }
            Value at = b.create<linalg::IndexOp>(l, d);
            if (lastOf[d])
              at = b.create<arith::MinSIOp>(l, at, lastOf[d]);
            position.push_back(at);
          }
          return b.create<tensor::ExtractOp>(l, data, position);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tfcc::populateGraphShapeToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ReshapeLowering, TransposeLowering, ConcatLowering, SliceLowering,
           PadLowering, ResizeLowering, GatherLowering, GatherElementsLowering>(
          patterns.getContext());
}
