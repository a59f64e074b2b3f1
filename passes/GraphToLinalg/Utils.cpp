//===- Utils.cpp - helpers shared by the graph-to-linalg patterns ---------===//

#include "passes/GraphToLinalg/Utils.h"
#include "dialects/graph/IR/DimNames.h"
#include "dialects/graph/IR/GraphOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"

#include <limits>

using namespace mlir;
using namespace mlir::tfcc;

//===----------------------------------------------------------------------===//
// Constants and sizes
//===----------------------------------------------------------------------===//

bool mlir::tfcc::isConstantPadOfHW(graph::PadOp pad) {
  SmallVector<int64_t> pads = getIntegers(pad.getPads());
  return pad.getMode() == "constant" && pads.size() == 8 && !pads[0] &&
         !pads[1] && !pads[6] && !pads[7] &&
         llvm::all_of(pads, [](int64_t v) { return v >= 0; });
}

bool mlir::tfcc::hasDynamicInnerDims(Operation *op) {
  auto inner = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasRank() && shaped.getRank() > 1 &&
           llvm::any_of(shaped.getShape().drop_front(), ShapedType::isDynamic);
  };
  return llvm::any_of(op->getOperandTypes(), inner) ||
         llvm::any_of(op->getResultTypes(), inner);
}

bool mlir::tfcc::hasUnsignedElements(Value graphValue) {
  return getElementTypeOrSelf(graphValue.getType()).isUnsignedInteger();
}

Type mlir::tfcc::signlessOf(Type type) {
  if (type.isUnsignedInteger())
    return IntegerType::get(type.getContext(), type.getIntOrFloatBitWidth());
  return type;
}

Value mlir::tfcc::clampFloat(OpBuilder &b, Location loc, Value x, double lowest,
                             double highest) {
  Value low = b.create<arith::MaxNumFOp>(
      loc, x, createScalarConstant(b, loc, x.getType(), lowest));
  return b.create<arith::MinNumFOp>(
      loc, low, createScalarConstant(b, loc, x.getType(), highest));
}

Value mlir::tfcc::toSignless(OpBuilder &b, Location loc, Value value) {
  Type signless = signlessOf(value.getType());
  if (signless == value.getType())
    return value;
  return b.create<UnrealizedConversionCastOp>(loc, signless, value)
      .getResult(0);
}

Value mlir::tfcc::fromSignless(OpBuilder &b, Location loc, Value value,
                               Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || integer.isSignless() || value.getType() == type)
    return value;
  return b.create<UnrealizedConversionCastOp>(loc, type, value).getResult(0);
}

Value mlir::tfcc::createScalarConstant(OpBuilder &b, Location loc, Type type,
                                       double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(floatType, value));
  Type signless = b.getIntegerType(type.getIntOrFloatBitWidth());
  Value constant = b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(signless, static_cast<int64_t>(value)));
  return fromSignless(b, loc, constant, type);
}

namespace {
/// Runs `body` on the signless forms of `args` and converts its value to
/// `resultElement` (see ScalarBodyFn).
Value buildSignlessBody(OpBuilder &b, Location loc, ValueRange args,
                        Type resultElement, ScalarBodyFn body) {
  SmallVector<Value> signless = llvm::map_to_vector(
      args, [&](Value arg) { return toSignless(b, loc, arg); });
  return fromSignless(b, loc, body(b, loc, signless), resultElement);
}
} // namespace

Value mlir::tfcc::createLowestValue(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc,
        b.getFloatAttr(floatType, -std::numeric_limits<double>::infinity()));
  unsigned width = type.getIntOrFloatBitWidth();
  // i1 is the one unsigned-looking case: its lowest value is 0 (false).
  APInt lowest =
      width == 1 ? APInt::getZero(1) : APInt::getSignedMinValue(width);
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, lowest));
}

Value mlir::tfcc::createHighestValue(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc,
        b.getFloatAttr(floatType, std::numeric_limits<double>::infinity()));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt highest =
      width == 1 ? APInt::getAllOnes(1) : APInt::getSignedMaxValue(width);
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, highest));
}

Value mlir::tfcc::getDimValue(OpBuilder &b, Location loc, Value tensor,
                              int64_t dim) {
  int64_t size = cast<RankedTensorType>(tensor.getType()).getDimSize(dim);
  if (!ShapedType::isDynamic(size))
    return b.create<arith::ConstantIndexOp>(loc, size);
  return b.create<tensor::DimOp>(loc, tensor, dim);
}

bool mlir::tfcc::isNhwcWithStaticHwc(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || ranked.getRank() != 4)
    return false;
  return !ranked.isDynamicDim(1) && !ranked.isDynamicDim(2) &&
         !ranked.isDynamicDim(3);
}

Value mlir::tfcc::getDimsProduct(OpBuilder &b, Location loc, Value tensor,
                                 ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t staticProduct = 1;
  Value product;
  for (int64_t dim : dims) {
    if (!type.isDynamicDim(dim)) {
      staticProduct *= type.getDimSize(dim);
      continue;
    }
    Value size = b.create<tensor::DimOp>(loc, tensor, dim);
    product = product ? b.create<arith::MulIOp>(loc, product, size) : size;
  }
  Value staticValue = b.create<arith::ConstantIndexOp>(loc, staticProduct);
  if (!product)
    return staticValue;
  return staticProduct == 1
             ? product
             : b.create<arith::MulIOp>(loc, product, staticValue);
}

Value mlir::tfcc::castIndexTo(OpBuilder &b, Location loc, Value index,
                              Type type) {
  // Static counts fold to a constant of the target type.
  if (std::optional<int64_t> constant = getConstantIntValue(index))
    return createScalarConstant(b, loc, type, static_cast<double>(*constant));
  if (isa<FloatType>(type)) {
    Value asInt = b.create<arith::IndexCastOp>(loc, b.getI64Type(), index);
    return b.create<arith::SIToFPOp>(loc, type, asInt);
  }
  return b.create<arith::IndexCastOp>(loc, type, index);
}

SmallVector<OpFoldResult> mlir::tfcc::getBroadcastSizes(OpBuilder &b,
                                                        Location loc,
                                                        RankedTensorType type,
                                                        ValueRange operands) {
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes;
  // Without named dimensions every dynamic dim is the batch: equal.
  Operation *anchor = b.getInsertionBlock()->getParentOp();
  auto module = anchor->getParentOfType<ModuleOp>();
  bool mayDiffer = module && module->hasAttr(graph::kDimBoundsAttr);
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!type.isDynamicDim(dim)) {
      sizes.push_back(b.getIndexAttr(type.getDimSize(dim)));
      continue;
    }
    Value size;
    for (Value operand : operands) {
      auto operandType = cast<RankedTensorType>(operand.getType());
      int64_t operandDim = dim - (rank - operandType.getRank());
      if (operandDim < 0 || !operandType.isDynamicDim(operandDim))
        continue;
      Value other = b.create<tensor::DimOp>(loc, operand, operandDim);
      if (!size) {
        size = other;
        if (!mayDiffer)
          break;
        continue;
      }
      // Named dimensions may differ at run time where the graph needs them
      // equal: reported, and the loops kept within both operands.
      Value differs =
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, size, other);
      buildErrorReport(b, loc, anchor, differs, kErrorOutOfRange);
      size = b.create<arith::MinSIOp>(loc, size, other);
    }
    assert(size && "a dynamic result dim needs a dynamic operand dim");
    sizes.push_back(size);
  }
  return sizes;
}

Value mlir::tfcc::createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                              ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamicSizes;
  for (auto [dim, size] : llvm::enumerate(sizes))
    if (type.isDynamicDim(dim))
      dynamicSizes.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  return b.create<tensor::EmptyOp>(loc, type, dynamicSizes);
}

Value mlir::tfcc::createFilled(OpBuilder &b, Location loc,
                               RankedTensorType type,
                               ArrayRef<OpFoldResult> sizes, Value scalar) {
  Value empty = createEmpty(b, loc, type, sizes);
  return b.create<linalg::FillOp>(loc, scalar, empty).getResult(0);
}

//===----------------------------------------------------------------------===//
// linalg.generic builders
//===----------------------------------------------------------------------===//

AffineMap mlir::tfcc::getBroadcastMap(MLIRContext *ctx, ShapedType operandType,
                                      unsigned loopRank) {
  int64_t offset = loopRank - operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = 0; dim < operandType.getRank(); ++dim)
    exprs.push_back(operandType.getDimSize(dim) == 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(dim + offset, ctx));
  return AffineMap::get(loopRank, 0, exprs, ctx);
}

AffineMap mlir::tfcc::getDropDimsMap(MLIRContext *ctx, unsigned rank,
                                     ArrayRef<int64_t> droppedDims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned dim = 0; dim < rank; ++dim)
    if (!llvm::is_contained(droppedDims, dim))
      exprs.push_back(getAffineDimExpr(dim, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value mlir::tfcc::buildElementwise(OpBuilder &b, Location loc,
                                   RankedTensorType resultType,
                                   ArrayRef<OpFoldResult> resultSizes,
                                   ValueRange inputs, ScalarBodyFn body) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(
        getBroadcastMap(ctx, cast<ShapedType>(input.getType()), rank));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = createEmpty(b, loc, resultType, resultSizes);
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = buildSignlessBody(nested, nestedLoc, args,
                                         args.back().getType(), body);
        nested.create<linalg::YieldOp>(nestedLoc, result);
      });
  return generic.getResult(0);
}

Value mlir::tfcc::buildElementwise(OpBuilder &b, Location loc,
                                   RankedTensorType resultType,
                                   ValueRange inputs, ScalarBodyFn body) {
  SmallVector<OpFoldResult> sizes =
      getBroadcastSizes(b, loc, resultType, inputs);
  return buildElementwise(b, loc, resultType, sizes, inputs, body);
}

Value mlir::tfcc::buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                               ArrayRef<AffineMap> inputMaps, Value init,
                               AffineMap outputMap,
                               ArrayRef<utils::IteratorType> iterators,
                               ScalarBodyFn body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outputMap);
  auto generic = b.create<linalg::GenericOp>(
      loc, init.getType(), inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = buildSignlessBody(nested, nestedLoc, args,
                                         args.back().getType(), body);
        nested.create<linalg::YieldOp>(nestedLoc, result);
      });
  return generic.getResult(0);
}

SmallVector<utils::IteratorType>
mlir::tfcc::getIterators(unsigned rank, ArrayRef<int64_t> reductionDims) {
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  for (int64_t dim : reductionDims)
    iterators[dim] = utils::IteratorType::reduction;
  return iterators;
}

Value mlir::tfcc::buildReduction(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> axes, Value init,
                                 ScalarBodyFn body) {
  MLIRContext *ctx = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  unsigned rank = inputType.getRank();
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  SmallVector<utils::IteratorType> iterators;
  for (unsigned dim = 0; dim < rank; ++dim) {
    if (llvm::is_contained(axes, dim)) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    shape.push_back(inputType.getDimSize(dim));
    sizes.push_back(tensor::getMixedSize(b, loc, input, dim));
  }
  auto resultType = RankedTensorType::get(shape, init.getType());
  Value filled = createFilled(b, loc, resultType, sizes, init);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 getDropDimsMap(ctx, rank, axes)};
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, input, filled, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = buildSignlessBody(nested, nestedLoc, args,
                                         args.back().getType(), body);
        nested.create<linalg::YieldOp>(nestedLoc, result);
      });
  return generic.getResult(0);
}

SoftmaxStats mlir::tfcc::buildSoftmaxStats(OpBuilder &b, Location loc, Value x,
                                           int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  unsigned rank = type.getRank();
  Type elementType = type.getElementType();
  SoftmaxStats stats;
  stats.max = buildReduction(
      b, loc, x, axis, createLowestValue(b, loc, elementType),
      [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        return nb.create<arith::MaximumFOp>(nl, args[0], args[1]);
      });
  AffineMap reduced = getDropDimsMap(b.getContext(), rank, axis);
  Value zero = createScalarConstant(b, loc, elementType, 0.0);
  Value init = createFilled(b, loc, cast<RankedTensorType>(stats.max.getType()),
                            tensor::getMixedSizes(b, loc, stats.max), zero);
  stats.sumExp = buildGeneric(
      b, loc, ValueRange{x, stats.max},
      {b.getMultiDimIdentityMap(rank), reduced}, init, reduced,
      getIterators(rank, axis),
      [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value shifted = nb.create<arith::SubFOp>(nl, args[0], args[1]);
        return nb.create<arith::AddFOp>(nl, args[2],
                                        nb.create<math::ExpOp>(nl, shifted));
      });
  return stats;
}

//===----------------------------------------------------------------------===//
// Windows (convolution, pooling)
//===----------------------------------------------------------------------===//

WindowPadding mlir::tfcc::getWindowPadding(ArrayRef<int64_t> inHW,
                                           ArrayRef<int64_t> window,
                                           ArrayRef<int64_t> strides,
                                           ArrayRef<int64_t> dilations,
                                           bool same) {
  WindowPadding padding;
  if (!same)
    return padding;
  for (int i = 0; i < 2; ++i) {
    int64_t span = (window[i] - 1) * dilations[i] + 1;
    int64_t out = (inHW[i] + strides[i] - 1) / strides[i];
    int64_t total =
        std::max<int64_t>((out - 1) * strides[i] + span - inHW[i], 0);
    padding.before[i] = total / 2;
    padding.after[i] = total - total / 2;
  }
  return padding;
}

Value mlir::tfcc::buildWindowOutputSize(OpBuilder &b, Location loc,
                                       Operation *anchor, Value in,
                                       int64_t padTotal, int64_t window,
                                       int64_t stride, int64_t dilation,
                                       int64_t declared) {
  auto constant = [&](int64_t v) -> Value {
    return b.create<arith::ConstantIndexOp>(loc, v);
  };
  // floor(p / s) + 1 = (p + s) / s where that is >= 1 (p + s >= s > 0), and
  // the truncating division stays below 1 exactly where the floor does (the
  // LLVM lowering has no floordivsi).
  int64_t span = (window - 1) * dilation + 1;
  Value shifted =
      b.create<arith::AddIOp>(loc, in, constant(padTotal - span + stride));
  Value out = b.create<arith::DivSIOp>(loc, shifted, constant(stride));
  Value bad = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, out,
                                      constant(1));
  if (!ShapedType::isDynamic(declared))
    bad = b.create<arith::OrIOp>(
        loc, bad,
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, out,
                                constant(declared)));
  buildErrorReport(b, loc, anchor, bad, kErrorOutOfRange);
  if (!ShapedType::isDynamic(declared))
    return constant(declared);
  return b.create<arith::MaxSIOp>(loc, out, constant(0));
}

Value mlir::tfcc::padSpatial(OpBuilder &b, Location loc, Value x,
                             const WindowPadding &padding, Value padValue) {
  if (padding.isZero())
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> low = {0, padding.before[0], padding.before[1], 0};
  SmallVector<int64_t> high = {0, padding.after[0], padding.after[1], 0};
  SmallVector<int64_t> shape(type.getShape());
  for (int i = 0; i < 2; ++i)
    if (!ShapedType::isDynamic(shape[i + 1]))
      shape[i + 1] += low[i + 1] + high[i + 1];
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  return b.create<tensor::PadOp>(
      loc, paddedType, x, getAsIndexOpFoldResult(b.getContext(), low),
      getAsIndexOpFoldResult(b.getContext(), high), padValue);
}

SmallVector<int64_t> mlir::tfcc::getIntegers(ArrayAttr attr) {
  return llvm::to_vector(llvm::map_range(
      attr, [](Attribute a) { return cast<IntegerAttr>(a).getInt(); }));
}

Value mlir::tfcc::splitLastDim(OpBuilder &b, Location loc, Value value,
                               int64_t inner) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  int64_t last = type.getDimSize(rank - 1);
  sizes.back() = b.getIndexAttr(last / inner);
  sizes.push_back(b.getIndexAttr(inner));
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = last / inner;
  shape.push_back(inner);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t dim = 0; dim < rank - 1; ++dim)
    reassociation.push_back({dim});
  reassociation.push_back({rank - 1, rank});
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return b.create<tensor::ExpandShapeOp>(loc, resultType, value, reassociation,
                                         sizes);
}

Value mlir::tfcc::mergeLastDims(OpBuilder &b, Location loc, Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t dim = 0; dim < rank - 2; ++dim)
    reassociation.push_back({dim});
  reassociation.push_back({rank - 2, rank - 1});
  return b.create<tensor::CollapseShapeOp>(loc, value, reassociation);
}

//===----------------------------------------------------------------------===//
// Runtime checks
//===----------------------------------------------------------------------===//

Value mlir::tfcc::buildAnyOutOfRange(OpBuilder &b, Location loc, Value indices,
                                     Value limit) {
  auto type = cast<RankedTensorType>(indices.getType());
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  Value init = b.create<arith::ConstantOp>(loc, b.getBoolAttr(false));
  Value limitAsElement =
      b.create<arith::IndexCastOp>(loc, type.getElementType(), limit);
  Value anyTensor = buildReduction(
      b, loc, indices, axes, init,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value zero = createScalarConstant(nb, nl, args[0].getType(), 0);
        Value negative = nb.create<arith::CmpIOp>(nl, arith::CmpIPredicate::slt,
                                                  args[0], zero);
        Value tooLarge = nb.create<arith::CmpIOp>(nl, arith::CmpIPredicate::sge,
                                                  args[0], limitAsElement);
        Value bad = nb.create<arith::OrIOp>(nl, negative, tooLarge);
        return nb.create<arith::OrIOp>(nl, args[1], bad);
      });
  return b.create<tensor::ExtractOp>(loc, anyTensor, ValueRange{});
}

StringAttr mlir::tfcc::createStringConstant(OpBuilder &b, Location loc,
                                            ModuleOp module,
                                            SymbolTable &symbols,
                                            StringRef symbolPrefix,
                                            StringRef text) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  std::string value = text.str();
  value.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), value.size());
  auto global = b.create<LLVM::GlobalOp>(
      loc, type, /*isConstant=*/true, LLVM::Linkage::Internal, symbolPrefix,
      b.getStringAttr(value), /*alignment=*/0);
  return symbols.insert(global);
}

void mlir::tfcc::buildErrorReport(OpBuilder &b, Location loc, Operation *anchor,
                                  Value condition, int32_t code) {
  declareRuntimeFunction(anchor->getParentOfType<ModuleOp>(),
                         kReportErrorFunction,
                         b.getFunctionType({b.getI32Type()}, {}));
  b.create<scf::IfOp>(loc, condition, [&](OpBuilder &nb, Location nl) {
    Value codeValue =
        nb.create<arith::ConstantOp>(nl, nb.getI32IntegerAttr(code));
    nb.create<func::CallOp>(nl, kReportErrorFunction, TypeRange{}, codeValue);
    nb.create<scf::YieldOp>(nl);
  });
}

Value mlir::tfcc::buildClampedIndex(OpBuilder &b, Location loc, Value value,
                                    Value limit) {
  Value index = b.create<arith::IndexCastOp>(loc, b.getIndexType(), value);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value last = b.create<arith::SubIOp>(loc, limit, one);
  Value clamped = b.create<arith::MaxSIOp>(loc, index, zero);
  return b.create<arith::MinSIOp>(loc, clamped, last);
}

/// Real (unpadded) input rows or columns under each of the `out` output
/// positions along one dimension.
static SmallVector<int64_t> countRealElements(int64_t in, int64_t out,
                                              int64_t window, int64_t stride,
                                              int64_t before) {
  SmallVector<int64_t> counts;
  for (int64_t o = 0; o < out; ++o) {
    int64_t first = o * stride - before;
    int64_t begin = std::max<int64_t>(first, 0);
    int64_t end = std::min<int64_t>(first + window, in);
    counts.push_back(std::max<int64_t>(end - begin, 0));
  }
  return counts;
}

Value mlir::tfcc::createWindowCounts(OpBuilder &b, Location loc,
                                     Type elementType, ArrayRef<int64_t> inHW,
                                     int64_t outH, int64_t outW,
                                     ArrayRef<int64_t> window,
                                     ArrayRef<int64_t> strides,
                                     const WindowPadding &padding,
                                     int64_t minimum) {
  SmallVector<int64_t> rows = countRealElements(inHW[0], outH, window[0],
                                                strides[0], padding.before[0]);
  SmallVector<int64_t> cols = countRealElements(inHW[1], outW, window[1],
                                                strides[1], padding.before[1]);
  auto floatType = cast<FloatType>(elementType);
  SmallVector<APFloat> counts;
  for (int64_t r : rows)
    for (int64_t c : cols) {
      APFloat count(static_cast<double>(std::max<int64_t>(r * c, minimum)));
      bool losesInfo;
      count.convert(floatType.getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &losesInfo);
      counts.push_back(count);
    }
  auto countsType = RankedTensorType::get({outH, outW, 1}, elementType);
  return b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(countsType, counts));
}
